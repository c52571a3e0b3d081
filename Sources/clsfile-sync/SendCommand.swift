import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import ForwardedCommands
import Foundation
import OpenClassKit

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile sync [--watch]`.
struct SendCommand: AsyncParsableCommand {
    static let configuration = SyncArguments.configuration

    @OptionGroup var arguments: SyncArguments

    func run() async throws {
        try await reportingFailures {
            let store = arguments.storeOptions.dataStore()
            if arguments.background {
                try await sendInBackground(store)
                return
            }
            guard arguments.watch else {
                try await sendOnce(store)
                return
            }
            var wait = arguments.interval
            while true {
                do {
                    try await sendOnce(store)
                    wait = arguments.interval
                } catch let error as SyncError where error.code == .unreachable {
                    Diagnostics.warn("\(error.message); trying again in \(Int(wait.rounded())) s")
                    wait = min(300, wait * 2)
                }
                try await Task.sleep(for: .seconds(wait))
            }
        }
    }

    /// What a hook starts: sends while this process holds the store's sync lock, and again when
    /// operations were queued while it sent (their hook found the lock held and started none).
    /// A failure is noted in the store for `clsfile status`, never shown.
    private func sendInBackground(_ store: CLSDataStore) async throws {
        let storeURL = try arguments.storeOptions.storeURL
        while true {
            // Released at the end of each round, so that a hook meanwhile finds it held.
            guard let lock = SyncLock(of: storeURL) else { return }
            do {
                try await sendOnce(store)
            } catch {
                let reason = (error as? SyncError)?.message ?? (error as? any CommandFailure)?.message ?? "\(error)"
                try? await store.recordSyncFailure(reason)
                return
            }
            withExtendedLifetime(lock) {}
            guard let waiting = try? await store.pendingSyncOperations(limit: 1), !waiting.isEmpty else { return }
        }
    }

    /// Rewrites one line on the terminal: how many operations went of how many.
    @Sendable private static func showProgress(sent: Int, total: Int) {
        FileHandle.standardError.write(Data("\rsending \(sent)/\(total) operations".utf8))
    }

    /// Sends the whole outbox once, saying how much went.
    private func sendOnce(_ store: CLSDataStore) async throws {
        guard let membership = try await store.classServerMemberships().first else {
            throw SyncError(.notJoined, "this store has joined no class server: join one first (clsfile join URL --code CODE)")
        }
        let client = try SyncClient(serverURL: membership.serverURL, key: try RoleGate.identity(of: .student).signingKey)
        // The assignments made from the catalog first: the work already under them goes in this sync.
        do {
            let received = try await client.receiveAssignments(into: store)
            if !arguments.background { received.report() }
        } catch let error as SyncError {
            // The work is sent all the same; what failed is said, and tried again next time.
            if !arguments.background { Diagnostics.warn("the class's assignments from the catalog were not received: \(error.message)") }
        }
        let showsProgress = !arguments.background && isatty(STDERR_FILENO) != 0
        let progress: (@Sendable (Int, Int) -> Void)? = showsProgress ? Self.showProgress : nil
        let outcome = try await client.sendOutbox(of: store, batchSize: arguments.batchSize, progress: progress)
        if showsProgress, outcome.batches > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        if !arguments.background, !arguments.watch || outcome.sent > 0 {
            print(
                "sent \(outcome.sent) operation\(outcome.sent == 1 ? "" : "s") to \(membership.serverURL.absoluteString)"
                    + (outcome.repeated > 0 ? " (\(outcome.repeated) the server had already)" : ""))
        }
        if !arguments.background, outcome.refused > 0 {
            let refused = try await store.refusedSyncOperations()
            Diagnostics.warn(
                "the server refused \(outcome.refused) operation\(outcome.refused == 1 ? "" : "s"), set aside in the store (\(refused.latestReason ?? "no reason given")); the rest was sent. `clsfile status` counts them"
            )
        }
    }
}
