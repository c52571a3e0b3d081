import ArgumentParser
import ClassWire
import Classroom
import ClassSync
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile class-report --server URL`: a class's report, or its pages' address, from the class server.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print a class's report from the class server as JSON, or the address of its pages (teacher role).",
        discussion: """
            Run as `clsfile class-report --server URL`, which shows the report as `clsfile \
            class-report` does. The server answers a page of students at a time; every page is \
            read and the whole class printed. With --link, prints the address of the class's pages on the \
            server, with a token good for 30 minutes: open it in a browser (the pages reload as \
            students work).
            """)

    @Option(name: .long, help: ArgumentHelp("The class server's address.", valueName: "url"))
    var server: String

    @Option(name: .customLong("class"), help: ArgumentHelp("The class, by name or id; needed when you teach more than one.", valueName: "class"))
    var className: String?

    @Flag(name: .long, help: "Print the address of the class's pages instead.")
    var link = false

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "class-report --server")
            let key = try RoleGate.identity(of: .teacher).signingKey
            let client = try SyncClient(serverURL: try SyncClient.serverURL(server), key: key)
            let chosen = try await TaughtClass.chosen(className, on: client, server: server)
            if link {
                let token = try await DeviceToken.make(key: key, audience: client.origin)
                let base = server.hasSuffix("/") ? String(server.dropLast()) : server
                print("\(base)/classes/\(chosen.id.uuidString.lowercased())/?token=\(token)")
                return
            }
            FileHandle.standardOutput.write(try await client.classReport(classID: chosen.id))
        }
    }
}
