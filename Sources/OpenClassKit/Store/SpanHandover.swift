import Foundation
import ProgramBasics
internal import GRDB
internal import NIOConcurrencyHelpers

#if canImport(Glibc)
internal import Glibc
#endif

/// Hands this process's running spans over when it exits normally.
///
/// A span is owned by the process that started it. If that process dies (SIGKILL, a crash), the next
/// process to open the store ends the span at its last pulse. A process that exits normally while an
/// activity runs — `clsfile hook open`, say — means the activity to keep running: at exit its spans
/// lose their owner, so that a later process can stop them.
enum SpanHandover {
    private struct State {
        var queues: [String: DatabaseQueue] = [:]
        var isInstalled = false
        var reportFailure: (@Sendable (CLSError) -> Void)?
    }

    /// Sets where a failed handover is reported; the library prints nothing itself.
    static func reportFailures(to handler: @escaping @Sendable (CLSError) -> Void) {
        state.withLockedValue { $0.reportFailure = handler }
    }

    private static let state = NIOLockedValueBox(State())

    /// Reports a failure that no call can return to the handler set, if any.
    static func report(_ error: CLSError) {
        state.withLockedValue { $0.reportFailure }?(error)
    }

    /// Remembers a store in which this process owns running spans.
    static func register(_ queue: DatabaseQueue, storePath: String) {
        let install = state.withLockedValue { state -> Bool in
            state.queues[storePath] = queue
            defer { state.isInstalled = true }
            return !state.isInstalled
        }
        if install {
            atexit { SpanHandover.handOverAll() }
        }
    }

    /// Clears this process's ownership of its running spans in every registered store.
    static func handOverAll() {
        let (queues, reportFailure) = state.withLockedValue { ($0.queues, $0.reportFailure) }
        _ = handOver(in: queues, failure: "at exit", reportingTo: reportFailure)
    }

    /// Hands the running spans over now, as at exit, and forgets the stores: a later save whose
    /// spans this process owns registers its store again. A store where it failed stays
    /// registered, to be tried again at exit.
    static func handOverNow() {
        let (queues, reportFailure) = state.withLockedValue { state in
            defer { state.queues = [:] }
            return (state.queues, state.reportFailure)
        }
        let failed = handOver(in: queues, failure: "now (tried again at exit)", reportingTo: reportFailure)
        state.withLockedValue { state in
            for (path, queue) in failed where state.queues[path] == nil { state.queues[path] = queue }
        }
    }

    /// Hands the running spans over in each store.
    /// - Returns: The stores where it failed, each reported as failing `failure`.
    private static func handOver(
        in queues: [String: DatabaseQueue], failure: String, reportingTo reportFailure: (@Sendable (CLSError) -> Void)?
    ) -> [String: DatabaseQueue] {
        let me = ProcessIdentity.current
        var failed: [String: DatabaseQueue] = [:]
        for (path, queue) in queues {
            do {
                try queue.write { db in
                    // Every change of an activity moves its modified_at: other views know to read it again.
                    try db.execute(
                        sql: """
                            UPDATE activity SET modified_at = ? WHERE id IN (
                                SELECT activity_id FROM time_span
                                WHERE ended_at IS NULL AND owner_pid = ? AND owner_start = ? AND owner_boot = ?)
                            """, arguments: [Date().timeIntervalSince1970, me.pid, me.startTicks, me.bootID])
                    try db.execute(
                        sql: """
                            UPDATE time_span SET owner_host = NULL, owner_boot = NULL, owner_pid = NULL, owner_start = NULL
                            WHERE ended_at IS NULL AND owner_pid = ? AND owner_start = ? AND owner_boot = ?
                            """, arguments: [me.pid, me.startTicks, me.bootID])
                }
            } catch {
                failed[path] = queue
                reportFailure?(
                    CLSError(
                        .databaseInaccessible,
                        "could not hand over the running time spans in \(path) \(failure): \(error); they will end at their last pulse",
                        underlyingError: error))
            }
        }
        return failed
    }
}
