import CommandSupport
import Foundation
import NIOConcurrencyHelpers
import OpenClassKit

#if canImport(Glibc)
import Glibc
#endif

/// Starts a sync of the outbox in the background after a hook or `clsfile open` recorded work:
/// `clsfile-sync sync --background`, in a session of its own with no terminal, not waited for.
///
/// A hook whose save queued nothing (no class server joined, or no assigned document changed)
/// pays for reading a counter; one that queued pays for a look at a lock and, when no sync of
/// the store runs, for starting a process. The network is the background process's alone.
enum BackgroundSync {
    /// The syncs this process started, reaped on the next call (a long-lived `hook --stdio`), and
    /// the count of operations queued when the last one started.
    private static let state = NIOLockedValueBox<(started: [pid_t], queuedBefore: Int)>(([], 0))

    /// Starts a background sync when this process queued operations since the last one and no
    /// sync of this store runs.
    static func startIfWaiting(store: CLSDataStore) {
        let queued = CLSDataStore.syncOperationsQueuedByThisProcess
        let isDue = state.withLockedValue { state in
            state.started.removeAll { waitpid($0, nil, WNOHANG) != 0 }
            return queued > state.queuedBefore
        }
        guard isDue else { return }
        guard SyncLock.isFree(of: store.storeURL) else { return }
        let arguments = ["sync", "--background", "--store", store.storeURL.path]
        if let pid = HelperProgram.sync.spawnInBackground(arguments) {
            state.withLockedValue {
                $0.started.append(pid)
                $0.queuedBefore = queued
            }
        }
    }
}
