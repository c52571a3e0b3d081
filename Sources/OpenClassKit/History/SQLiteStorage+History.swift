import Foundation
internal import GRDB

/// The writing history's side of the store: each call is one transaction around ``HistoryTable``.
extension SQLiteStorage {
    /// Every history row of an activity, oldest first.
    func writingHistory(ofActivity activityID: Int64) async throws -> [WritingHistoryEntry] {
        try await reading { db in try HistoryTable.entries(ofActivity: activityID, in: db) }
    }

    /// Up to `limit` snapshot rows of an activity after the row `id`, oldest first.
    func snapshotRows(ofActivity activityID: Int64, after id: Int64, limit: Int) async throws -> [SnapshotRow] {
        try await reading { db in try HistoryTable.snapshotRows(ofActivity: activityID, after: id, limit: limit, in: db) }
    }

    /// Deletes the history of every attempt of an activity's context, or only its snapshots; returns how many rows changed.
    func forgetHistory(ofActivity activityID: Int64, keepingFigures: Bool) async throws -> Int {
        try await writing { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM activity WHERE context_id = (SELECT context_id FROM activity WHERE id = ?)
                    """, arguments: [activityID]
            ).reduce(0) { changed, attempt in
                changed + (try HistoryTable.forget(ofActivity: attempt, keepingFigures: keepingFigures, in: db))
            }
        }
    }
}
