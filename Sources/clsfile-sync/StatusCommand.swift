import ArgumentParser
import ClassSync
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the class server this store syncs to, what waits to be sent, and the last sync.")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        try await reportingFailures {
            let store = storeOptions.dataStore()
            guard let membership = try await store.classServerMembership() else {
                print("class server: none (join one with clsfile join URL --code CODE)")
                return
            }
            let depth = try await store.syncOutboxDepth()
            let format = Date.ISO8601FormatStyle(timeZone: .current)
            print("class server: \(membership.serverURL.absoluteString)")
            print("class: \(membership.className) (\(membership.classID.uuidString.lowercased()))")
            print("waiting to be sent: \(depth) operation\(depth == 1 ? "" : "s")")
            print("last sync: \(membership.lastSyncAt.map { $0.formatted(format) } ?? "never")")
            if let error = membership.lastError { print("last error: \(error)") }
            let refused = try await store.refusedSyncOperations()
            if refused.count > 0 {
                print("refused by the server and set aside: \(refused.count) operation\(refused.count == 1 ? "" : "s") (the latest: \(refused.latestReason ?? "no reason given"))")
            }
        }
    }
}
