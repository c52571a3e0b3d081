import Foundation

/// Where the writing history is kept: the same store as the activities.
protocol HistoryStorage: Sendable {
    /// Every history row of an activity, oldest first.
    func writingHistory(ofActivity activityID: Int64) async throws -> [WritingHistoryEntry]

    /// Up to `limit` snapshot rows of an activity after the row `id`, oldest first.
    func snapshotRows(ofActivity activityID: Int64, after id: Int64, limit: Int) async throws -> [SnapshotRow]
}

extension SQLiteStorage: HistoryStorage {
    func writingHistory(ofActivity activityID: Int64) async throws -> [WritingHistoryEntry] {
        try await reading { db in try HistoryTable.entries(ofActivity: activityID, in: db) }
    }

    func snapshotRows(ofActivity activityID: Int64, after id: Int64, limit: Int) async throws -> [SnapshotRow] {
        try await reading { db in try HistoryTable.snapshotRows(ofActivity: activityID, after: id, limit: limit, in: db) }
    }
}
