import ArgumentParser
import ClassSync
import Classroom
import CommandSupport
import ForwardedCommands
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = StatusArguments.configuration

    @OptionGroup var arguments: StatusArguments

    func run() async throws {
        try await reportingFailures {
            let store = arguments.storeOptions.dataStore()
            let memberships = try await store.classServerMemberships()
            guard let server = memberships.first else {
                print("class server: none (join one with clsfile join URL --code CODE)")
                return
            }
            let depth = try await store.syncOutboxDepth()
            let format = Date.ISO8601FormatStyle(timeZone: .current)
            print("class server: \(server.serverURL.absoluteString)")
            for membership in memberships {
                let teacher =
                    membership.teacherKey.map { "its teacher's recipient key \(Identity.fingerprint(of: $0))" }
                    ?? "joined before classes were tied to their teacher, so it gets every assignment's work: join it again with its code"
                print("class: \(TerminalText.escaped(membership.className)) (\(membership.classID.uuidString.lowercased())); \(teacher)")
            }
            let nowhere = try await store.assignmentsSyncedToNoClass()
            if !nowhere.isEmpty {
                let titles =
                    nowhere.prefix(5).map { "'\(TerminalText.escaped($0.title))'" }.joined(separator: ", ")
                    + (nowhere.count > 5 ? ", …" : "")
                print(
                    "sent to no class: \(nowhere.count) accepted assignment\(nowhere.count == 1 ? "" : "s") (\(titles)) whose teacher's class is not joined: join it with its code"
                )
            }
            print("waiting to be sent: \(depth) operation\(depth == 1 ? "" : "s")")
            print("last sync: \(server.lastSyncAt.map { $0.formatted(format) } ?? "never")")
            if let error = server.lastError { print("last error: \(error)") }
            let refused = try await store.refusedSyncOperations()
            if refused.count > 0 {
                print(
                    "refused by the server and set aside: \(refused.count) operation\(refused.count == 1 ? "" : "s") (the latest: \(refused.latestReason ?? "no reason given"))"
                )
            }
        }
    }
}
