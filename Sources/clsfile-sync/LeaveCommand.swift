import ArgumentParser
import ClassSync
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile leave [--class CLASS]`.
struct LeaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Stop syncing to a class, or to the class server: forget it, and drop what waits to be sent.",
        discussion: """
            Without --class, leaves every class joined and forgets the server; with it, leaves \
            that class only (leaving the last one forgets the server). What the server already \
            has stays there (your teacher can remove it); your own store keeps all your work. \
            Operations not sent yet are dropped: run `clsfile sync` first to send them. \
            `clsfile join` starts again, sending all that class's assigned work.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("class"), help: ArgumentHelp("The class to leave, by name or id, as clsfile status shows it.", valueName: "class"))
    var schoolClass: String?

    func run() async throws {
        try await reportingFailures {
            let store = storeOptions.dataStore()
            let memberships = try await store.classServerMemberships()
            guard let server = memberships.first?.serverURL else {
                throw SyncError(.notJoined, "this store has joined no class server, so there is nothing to leave")
            }
            var left = memberships
            if let schoolClass {
                left = memberships.filter { $0.className == schoolClass || $0.classID.uuidString.lowercased() == schoolClass.lowercased() }
                guard left.count == 1 else {
                    let joined = memberships.map { "\($0.className) (\($0.classID.uuidString.lowercased()))" }.joined(separator: ", ")
                    throw SyncError(.notJoined, "\(left.isEmpty ? "no class joined is" : "\(left.count) classes joined are") named '\(schoolClass)': give one of \(joined), by id when names repeat")
                }
            }
            let dropped = try await store.leaveClassServer(classID: schoolClass == nil ? nil : left[0].classID)
            let names = left.map(\.className).joined(separator: ", ")
            print("left \(names) on \(server.absoluteString)"
                  + (dropped > 0 ? "; \(dropped) operation\(dropped == 1 ? "" : "s") not sent were dropped" : ""))
        }
    }
}
