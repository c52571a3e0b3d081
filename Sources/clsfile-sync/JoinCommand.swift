import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import ForwardedCommands
import Foundation
import OpenClassKit

/// `clsfile join URL --code CODE`.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = JoinArguments.configuration

    @OptionGroup var arguments: JoinArguments

    func run() async throws {
        try await reportingFailures {
            let mode = try RoleGate.require(.student, for: "join")
            let server = try SyncClient.serverURL(arguments.url)
            guard let name = arguments.name ?? mode.displayName else {
                throw SyncError(
                    .invalidValue,
                    "the student role has no name: give one with --name, or set it with clsfile role student --name \"Your Name\"")
            }
            let client = try SyncClient(serverURL: server, key: try RoleGate.identity(of: .student).signingKey)
            let joined = try await client.join(code: arguments.code.trimmingCharacters(in: .whitespaces), name: name)
            guard let teacherKey = joined.teacherKey else {
                throw SyncError(
                    .invalidValue,
                    "\(server.absoluteString) did not say which teacher \(joined.className) belongs to, so this store cannot tell which assignments to send it: the server runs an older clsfile-server; ask its administrator to update it"
                )
            }
            let store = arguments.storeOptions.dataStore()
            let queued = try await store.joinClassServer(
                ClassServerMembership(
                    serverURL: server, accountID: joined.accountID, classID: joined.classID, className: joined.className,
                    teacherKey: teacherKey))
            print("joined \(joined.className) on \(server.absoluteString) as \(name)")
            do {
                try await client.receiveAssignments(into: store).report()
            } catch let error as SyncError {
                Diagnostics.warn(
                    "joined, but the class's assignments from the catalog were not received yet (clsfile sync receives them): \(error.message)"
                )
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
