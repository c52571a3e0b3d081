import ArgumentParser
import ClassSync
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile leave`.
struct LeaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Stop syncing to the class server: forget it, and drop what waits to be sent.",
        discussion: """
            What the server already has stays there (your teacher can remove it); your own store \
            keeps all your work. Operations not sent yet are dropped: run `clsfile sync` first to \
            send them. `clsfile join` starts again, sending all your assigned work.
            """)

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        try await reportingFailures {
            let store = storeOptions.dataStore()
            guard let membership = try await store.classServerMembership() else {
                throw SyncError(.notJoined, "this store has joined no class server, so there is nothing to leave")
            }
            let dropped = try await store.leaveClassServer()
            print("left \(membership.className) on \(membership.serverURL.absoluteString)"
                  + (dropped > 0 ? "; \(dropped) operation\(dropped == 1 ? "" : "s") not sent were dropped" : ""))
        }
    }
}
