import Foundation
internal import GRDB

/// Process evidence in the outbox: the rows of an assigned document's writing history, and for
/// replay their snapshots, for an assignment that asks for them (``Assignment/processEvidence``).
/// They go as operations of their own after the work's, written in the transaction that writes
/// the rows, within the caps a class server keeps (``SyncOperation/maximumHistoryRows``).
extension OutboxTable {
    /// The most rows, and bytes of snapshot deltas, one operation carries (it carries one row at
    /// least): a request of a few operations stays well under the server's body limit.
    static let historyRowsPerOperation = 1_000
    static let historyBytesPerOperation = 1 << 20

    /// Writes the history rows a save wrote, and the ids of those it removed, when the
    /// activity's document is assigned, the store joined a class of its teacher and the
    /// assignment asks for process evidence that the student did not withdraw; does nothing
    /// otherwise.
    static func enqueueHistory(ofActivity activityID: Int64, written: [Int64], removed: [Int64], at now: Double, in db: Database) throws {
        guard !written.isEmpty || !removed.isEmpty,
            case (let operation, let classes)? = try emptyOperation(forActivity: activityID, at: now, in: db),
            let evidence = operation.assignment.processEvidence,
            try !ClassroomTables.isEvidenceWithdrawn(ofAssignment: operation.assignmentIdentifier, in: db)
        else { return }
        let first = written.min() ?? Int64.max
        // What the rows before these hold, which counts toward the caps.
        let held = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT count(*), count(content_delta), coalesce(sum(length(content_delta)), 0) FROM writing_history
                    WHERE activity_id = ? AND id < ?
                    """), arguments: [activityID, first])
        let counts: (Int, Int, Int) = held.map { ($0[0], $0[1], $0[2]) } ?? (0, 0, 0)
        var tally = EvidenceTally(rows: counts.0, snapshots: counts.1, bytes: counts.2)
        let rows = try HistoryTable.evidenceRows(ofActivity: activityID, ids: written, withSnapshots: evidence == .replay, in: db)
        try enqueue(tally.capped(rows), removing: removed, like: operation, for: classes, in: db)
    }

    /// Writes every history row of an activity, after the operation that replaces the server's
    /// copy of its work (which drops the rows the server held), when the assignment asks for
    /// process evidence and the student did not withdraw it.
    static func enqueueWholeHistory(ofActivity activityID: Int64, after operation: SyncOperation, for classes: [String], in db: Database)
        throws
    {
        guard let evidence = operation.assignment.processEvidence, !classes.isEmpty, operation.evidenceWithdrawnAt == nil else { return }
        var tally = EvidenceTally()
        let rows = try HistoryTable.evidenceRows(ofActivity: activityID, ids: nil, withSnapshots: evidence == .replay, in: db)
        try enqueue(tally.capped(rows), removing: [], like: operation, for: classes, in: db)
    }

    /// Queues rows in operations of at most ``historyRowsPerOperation`` rows and
    /// ``historyBytesPerOperation`` bytes of deltas, the removals in the first.
    private static func enqueue(
        _ rows: [SyncOperation.HistoryRow], removing removed: [Int64], like operation: SyncOperation, for classes: [String],
        in db: Database
    ) throws {
        var start = 0
        var removing = removed
        while start < rows.count || !removing.isEmpty {
            var end = start, bytes = 0
            while end < rows.count, end - start < historyRowsPerOperation {
                let size = rows[end].delta?.count ?? 0
                guard end == start || bytes + size <= historyBytesPerOperation else { break }
                bytes += size
                end += 1
            }
            var carrying = SyncOperation(
                assignmentIdentifier: operation.assignmentIdentifier, attempt: operation.attempt, madeAt: operation.madeAt,
                assignment: operation.assignment)
            carrying.historyRows = Array(rows[start..<end])
            carrying.removedHistoryRows = removing.isEmpty ? nil : removing
            try insert(carrying, for: classes, in: db)
            removing = []
            start = end
        }
    }
}

/// What the history rows queued so far hold, against the caps of a class server: past the most
/// rows no row goes, past the most snapshots or their bytes rows go without their snapshots.
struct EvidenceTally {
    var rows = 0
    var snapshots = 0
    var bytes = 0

    /// The rows that may go after those counted, counting them.
    mutating func capped(_ rows: [SyncOperation.HistoryRow]) -> [SyncOperation.HistoryRow] {
        var kept: [SyncOperation.HistoryRow] = []
        for var row in rows {
            self.rows += 1
            guard self.rows <= SyncOperation.maximumHistoryRows else { break }
            if let delta = row.delta {
                snapshots += 1
                bytes += delta.count
                if snapshots > SyncOperation.maximumSnapshots || bytes > SyncOperation.maximumSnapshotBytes {
                    (row.delta, row.digest, row.isKeyframe) = (nil, nil, nil)
                }
            }
            kept.append(row)
        }
        return kept
    }
}
