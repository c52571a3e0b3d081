import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hands this process's running spans over when it exits normally.
///
/// A span is owned by the process that started it. If that process dies (SIGKILL, a crash), the next
/// process to open the store ends the span at its last pulse. A process that exits normally while an
/// activity runs — `clsfile hook open`, say — means the activity to keep running: at exit its spans
/// lose their owner, so that a later process can stop them.
enum SpanHandover {
    private struct State {
        var pools: [String: DatabasePool] = [:]
        var isInstalled = false
    }

    private static let state = Mutex(State())

    /// Remembers a store in which this process owns running spans.
    static func register(_ pool: DatabasePool, storePath: String) {
        let install = state.withLock { state -> Bool in
            state.pools[storePath] = pool
            defer { state.isInstalled = true }
            return !state.isInstalled
        }
        if install {
            atexit { SpanHandover.handOverAll() }
        }
    }

    /// Clears this process's ownership of its running spans in every registered store.
    static func handOverAll() {
        let pools = state.withLock { $0.pools }
        let me = ProcessIdentity.current
        for (path, pool) in pools {
            do {
                try pool.write { db in
                    try db.execute(sql: """
                        UPDATE time_span SET owner_host = NULL, owner_boot = NULL, owner_pid = NULL, owner_start = NULL
                        WHERE ended_at IS NULL AND owner_pid = ? AND owner_start = ? AND owner_boot = ?
                        """, arguments: [me.pid, me.startTicks, me.bootID])
                }
            } catch {
                let message = "clsfile: could not hand over running time spans in \(path) at exit: \(error); they will end at their last pulse\n"
                FileHandle.standardError.write(Data(message.utf8))
            }
        }
    }
}
