import ArgumentParser
import ClassWire
import Classroom
import ClassSync
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile class-report --server URL`: a class's report, or its pages' address, from the class server.
///
/// What it prints is the contract with `clsfile` (its `ServerReport`): one ``ClassReport`` as
/// `ClassReport.jsonEncoder()` writes it, which `ClassReport.jsonDecoder()` reads.
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

    @Option(
        name: .customLong("class"), help: ArgumentHelp("The class, by name or id; needed when you teach more than one.", valueName: "class")
    )
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
            FileHandle.standardOutput.write(try Self.checkedReport(try await client.classReport(classID: chosen.id)))
        }
    }

    /// The server's report as `clsfile` reads it: checked to be a ``ClassReport``, and written again.
    /// - Throws: ``ClassroomError`` (malformed file) when the server's answer is not a report.
    static func checkedReport(_ answer: Data) throws -> Data {
        do {
            let report = try ClassReport.jsonDecoder().decode(ClassReport.self, from: answer)
            return try ClassReport.jsonEncoder().encode(report)
        } catch {
            throw ClassroomError(
                .malformedFile,
                "the class server's report cannot be read (\(JSONCoding.describe(error))); check that clsfile and the server are of the same version"
            )
        }
    }
}
