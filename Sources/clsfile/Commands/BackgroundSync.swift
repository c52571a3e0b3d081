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

    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later), which Swift does not import: the sync
    /// runs in a session of its own, without the editor's terminal or its Ctrl-C.
    private static let startsSession: Int16 = 0x80

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
        let program = (ServeCommand.ownExecutable() as NSString).deletingLastPathComponent + "/clsfile-sync"
        let arguments = [program, "sync", "--background", "--store", store.storeURL.path]
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        posix_spawnattr_setflags(&attributes, Self.startsSession)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        if posix_spawn(&pid, program, &actions, &attributes, argv, environ) == 0 {
            state.withLockedValue {
                $0.started.append(pid)
                $0.queuedBefore = queued
            }
        }
    }
}
