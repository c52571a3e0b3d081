import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile sync [--watch]`.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the queued work on assigned documents to the class server (student role).",
        discussion: """
            Receives first the assignments the teachers of the classes joined made from the \
            server's catalog (the work under each assigned context reports to it from then on); \
            then sends the outbox in batches of up to 500 operations, oldest first; each batch leaves \
            the outbox once the server acknowledged it. When the server cannot be reached the rest \
            waits for the next sync. With --watch it keeps sending every --interval seconds until \
            Ctrl-C, retrying with a growing wait (up to 5 minutes) while the server is away. \
            --background is what hooks run: quiet, and nothing when another sync of the same store \
            is running.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Keep sending as work is recorded, until interrupted.")
    var watch = false

    @Option(name: .long, help: ArgumentHelp("Seconds between sends with --watch.", valueName: "seconds"))
    var interval: Double = 10

    @Flag(name: .long, help: "Quiet, and only when no other sync of this store runs (what hooks start).")
    var background = false

    @Option(name: .long, help: ArgumentHelp("Operations a request, 1 to 500; smaller suits a slow link.", valueName: "count"))
    var batchSize = SyncWire.maximumOperations

    func validate() throws {
        guard (1...SyncWire.maximumOperations).contains(batchSize) else {
            throw ValidationError("--batch-size must be between 1 and \(SyncWire.maximumOperations), not \(batchSize)")
        }
        guard interval.isFinite, interval >= 0.1, interval <= 86_400 else {
            throw ValidationError("--interval must be between 0.1 and 86400 seconds, not \(interval)")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let store = storeOptions.dataStore()
            if background {
                try await sendInBackground(store)
                return
            }
            guard watch else {
                try await sendOnce(store)
                return
            }
            var wait = interval
            while true {
                do {
                    try await sendOnce(store)
                    wait = interval
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
        let storeURL = try storeOptions.storeURL
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
            if !background { received.report() }
        } catch let error as SyncError {
            // The work is sent all the same; what failed is said, and tried again next time.
            if !background { Diagnostics.warn("the class's assignments from the catalog were not received: \(error.message)") }
        }
        let showsProgress = !background && isatty(STDERR_FILENO) != 0
        let progress: (@Sendable (Int, Int) -> Void)? = showsProgress ? Self.showProgress : nil
        let outcome = try await client.sendOutbox(of: store, batchSize: batchSize, progress: progress)
        if showsProgress, outcome.batches > 0 { FileHandle.standardError.write(Data("\n".utf8)) }
        if !background, !watch || outcome.sent > 0 {
            print("sent \(outcome.sent) operation\(outcome.sent == 1 ? "" : "s") to \(membership.serverURL.absoluteString)"
                  + (outcome.repeated > 0 ? " (\(outcome.repeated) the server had already)" : ""))
        }
        if !background, outcome.refused > 0 {
            let refused = try await store.refusedSyncOperations()
            Diagnostics.warn("the server refused \(outcome.refused) operation\(outcome.refused == 1 ? "" : "s"), set aside in the store (\(refused.latestReason ?? "no reason given")); the rest was sent. `clsfile status` counts them")
        }
    }
}
