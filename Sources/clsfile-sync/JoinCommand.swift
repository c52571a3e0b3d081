import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import ForwardedCommands
import Foundation
import OpenClassKit

/// `clsfile join URL --code CODE`, or `--lti TOKEN` for a course of the school's LMS.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = JoinArguments.configuration

    @OptionGroup var arguments: JoinArguments

    func validate() throws {
        guard (arguments.code == nil) != (arguments.lti == nil) else {
            throw ValidationError("Give the class's join code (--code CODE) or your LMS course's token (--lti TOKEN), one of them.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let server = try SyncClient.serverURL(arguments.url)
            if let token = arguments.lti {
                try await link(token: token.trimmingCharacters(in: .whitespaces), on: server)
            } else if let code = arguments.code {
                try await join(code: code.trimmingCharacters(in: .whitespaces), on: server)
            }
        }
    }

    private func join(code: String, on server: URL) async throws {
        let mode = try RoleGate.require(.student, for: "join")
        guard let name = arguments.name ?? mode.displayName else {
            throw SyncError(
                .invalidValue,
                "the student role has no name: give one with --name, or set it with clsfile role student --name \"Your Name\"")
        }
        let client = try SyncClient(serverURL: server, key: try RoleGate.identity(of: .student).signingKey)
        let joined = try await client.join(code: code, name: name)
        try await enrol(
            in: joined.className, classID: joined.classID, accountID: joined.accountID, teacherKey: joined.teacherKey, on: server,
            with: client, saying: "joined \(joined.className) on \(server.absoluteString) as \(name)")
    }

    /// Ties this device to the LMS person whose launch showed `token`: in the student role it
    /// joins their course's class; in the teacher role it puts the teacher's keys on their account.
    private func link(token: String, on server: URL) async throws {
        let role = try DeveloperMode.current().role
        guard role == .student || role == .teacher else {
            throw SyncError(
                .invalidValue,
                "`clsfile join --lti` ties the student or teacher role to your LMS account, and development mode is off: run `clsfile role student --name \"Your Name\"` (or `clsfile role teacher`) first"
            )
        }
        let identity = try RoleGate.identity(of: role)
        let client = try SyncClient(serverURL: server, key: identity.signingKey)
        let linked = try await client.link(token: token, recipientKey: role == .teacher ? identity.recipientPublicKey : nil)
        if role == .teacher {
            print(
                "tied this clsfile's teacher role to \(linked.className) on \(server.absoluteString); register your handouts with it: clsfile register --server \(server.absoluteString)"
            )
            return
        }
        try await enrol(
            in: linked.className, classID: linked.classID, accountID: linked.accountID, teacherKey: linked.teacherKey, on: server,
            with: client, saying: "joined \(linked.className) on \(server.absoluteString), tied to your LMS account")
    }

    /// Records the class in the student's store, receives its catalog assignments and sends the
    /// work recorded before.
    private func enrol(
        in className: String, classID: UUID, accountID: UUID, teacherKey: Data?, on server: URL, with client: SyncClient,
        saying joinedMessage: String
    ) async throws {
        guard let teacherKey else {
            throw SyncError(
                .invalidValue,
                "\(server.absoluteString) did not say which teacher \(className) belongs to, so this store cannot tell which assignments to send it: the server runs an older clsfile-server; ask its administrator to update it"
            )
        }
        let store = arguments.storeOptions.dataStore()
        let queued = try await store.joinClassServer(
            ClassServerMembership(
                serverURL: server, accountID: accountID, classID: classID, className: className, teacherKey: teacherKey))
        print(joinedMessage)
        do {
            try await client.receiveAssignments(into: store).report()
        } catch let error as SyncError {
            Diagnostics.warn(
                "joined, but the class's assignments from the catalog were not received yet (clsfile sync receives them): \(error.message)")
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
