import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile join URL --code CODE`.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a class on a class server with the code your teacher gave (student role).",
        discussion: """
            Registers this device's key (made with the student role) for the class, receives the \
            assignments the teacher made from the server's catalog (the work under each assigned \
            context reports to it), then sends the work already recorded on the documents that \
            class's teacher assigned you. From then on \
            every save of such a document queues its change for the class; `clsfile sync` sends \
            the queue, and hooks and `clsfile open` start a sync in the background. Join each of \
            your classes on the server: each gets only its own teacher's assignments. Joining a \
            class of another server leaves the classes of the previous one.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The class server's address, such as https://class.example.org.", valueName: "url"))
    var url: String

    @Option(name: .long, help: ArgumentHelp("The class's join code.", valueName: "code"))
    var code: String

    @Option(name: .long, help: ArgumentHelp("Your name as the teacher sees it; the student role's name by default.", valueName: "name"))
    var name: String?

    func run() async throws {
        try await reportingFailures {
            let mode = try RoleGate.require(.student, for: "join")
            let server = try SyncClient.serverURL(url)
            guard let name = name ?? mode.displayName else {
                throw SyncError(.invalidValue, "the student role has no name: give one with --name, or set it with clsfile role student --name \"Your Name\"")
            }
            let client = try SyncClient(serverURL: server, key: try RoleGate.identity(of: .student).signingKey)
            let joined = try await client.join(code: code.trimmingCharacters(in: .whitespaces), name: name)
            guard let teacherKey = joined.teacherKey else {
                throw SyncError(.invalidValue, "\(server.absoluteString) did not say which teacher \(joined.className) belongs to, so this store cannot tell which assignments to send it: the server runs an older clsfile-server; ask its administrator to update it")
            }
            let store = storeOptions.dataStore()
            let queued = try await store.joinClassServer(ClassServerMembership(
                serverURL: server, accountID: joined.accountID, classID: joined.classID, className: joined.className,
                teacherKey: teacherKey))
            print("joined \(joined.className) on \(server.absoluteString) as \(name)")
            do {
                try await client.receiveAssignments(into: store).report()
            } catch let error as SyncError {
                Diagnostics.warn("joined, but the class's assignments from the catalog were not received yet (clsfile sync receives them): \(error.message)")
            }
            let waiting = try await store.syncOutboxDepth()
            guard queued > 0 || waiting > 0 else { return }
            do {
                let outcome = try await client.sendOutbox(of: store)
                print("sent the work recorded before: \(outcome.sent) operation\(outcome.sent == 1 ? "" : "s")")
            } catch let error as SyncError {
                Diagnostics.warn("joined, but the work recorded before was not sent yet: \(error.message)")
            }
        }
    }
}
