import ArgumentParser
import ClassSync
import CommandSupport
import ForwardedCommands
import Foundation
import OpenClassKit

/// `clsfile leave [--class CLASS]`.
struct LeaveCommand: AsyncParsableCommand {
    static let configuration = LeaveArguments.configuration

    @OptionGroup var arguments: LeaveArguments

    func run() async throws {
        try await reportingFailures {
            let store = arguments.storeOptions.dataStore()
            let memberships = try await store.classServerMemberships()
            guard let server = memberships.first?.serverURL else {
                throw SyncError(.notJoined, "this store has joined no class server, so there is nothing to leave")
            }
            var left = memberships
            if let schoolClass = arguments.schoolClass {
                left = memberships.filter { $0.className == schoolClass || $0.classID.uuidString.lowercased() == schoolClass.lowercased() }
                guard left.count == 1 else {
                    let joined = memberships.map { "\($0.className) (\($0.classID.uuidString.lowercased()))" }.joined(separator: ", ")
                    throw SyncError(
                        .notJoined,
                        "\(left.isEmpty ? "no class joined is" : "\(left.count) classes joined are") named '\(schoolClass)': give one of \(joined), by id when names repeat"
                    )
                }
            }
            let dropped = try await store.leaveClassServer(classID: arguments.schoolClass == nil ? nil : left[0].classID)
            let names = left.map(\.className).joined(separator: ", ")
            print(
                "left \(names) on \(server.absoluteString)"
                    + (dropped > 0 ? "; \(dropped) operation\(dropped == 1 ? "" : "s") not sent were dropped" : ""))
        }
    }
}
