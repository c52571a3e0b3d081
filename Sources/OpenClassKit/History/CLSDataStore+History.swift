import Foundation

/// The writing history of documents: how each grew, session by session. Not part of ClassKit.
extension CLSDataStore {
    /// The writing history of a file: a row at the end of each session and every few minutes while
    /// one runs, written by every save of the file's activity, whichever program saves it.
    /// - Parameter url: A file URL naming an existing regular file.
    /// - Returns: The rows of the file's current activity, oldest first; none when nothing was recorded.
    /// - Throws: ``CLSError`` as ``existingActivity(for:)`` does.
    public func writingHistory(for url: URL) async throws -> WritingHistory {
        guard let activityID = try await activityID(of: url) else { return WritingHistory(entries: []) }
        return WritingHistory(entries: try await storage.writingHistory(ofActivity: activityID))
    }

    /// The file's content at each snapshot of its history, oldest first, rebuilt one at a time:
    /// memory holds one snapshot's content, however long the history.
    ///
    /// ```swift
    /// for try await snapshot in try await store.snapshots(of: essayURL) {
    ///     print(snapshot.entry.date, snapshot.content.count)
    /// }
    /// ```
    /// - Parameter url: A file URL naming an existing regular file.
    /// - Throws: ``CLSError`` as ``existingActivity(for:)`` does; iterating throws `.invalidArgument`
    ///   when a stored snapshot is damaged.
    public func snapshots(of url: URL) async throws -> WritingSnapshots {
        WritingSnapshots(storage: storage, activityID: try await activityID(of: url))
    }

    /// The file's content as the last snapshot taken at or before a date holds it.
    /// - Returns: That snapshot; nil when none was taken by then.
    /// - Throws: As ``snapshots(of:)``.
    public func snapshot(of url: URL, at date: Date) async throws -> WritingSnapshot? {
        var found: WritingSnapshot?
        for try await snapshot in try await snapshots(of: url) {
            guard snapshot.entry.date <= date else { break }
            found = snapshot
        }
        return found
    }

    private func activityID(of url: URL) async throws -> Int64? {
        let file = try FileIdentity(resolving: url)
        return try await storage.existingActivity(atPath: file.path)?.activityID
    }
}

/// The snapshots of a file's history, oldest first; see ``CLSDataStore/snapshots(of:)``.
public struct WritingSnapshots: AsyncSequence, Sendable {
    public typealias Element = WritingSnapshot

    let storage: any ActivityStorage
    let activityID: Int64?

    public func makeAsyncIterator() -> Iterator {
        Iterator(storage: storage, activityID: activityID)
    }

    /// Reads the rows a few at a time, each batch in a transaction of its own, so that a replay
    /// that waits for a key holds no transaction open.
    public struct Iterator: AsyncIteratorProtocol {
        let storage: any ActivityStorage
        let activityID: Int64?
        private var lastRow: Int64 = 0
        private var batch: [SnapshotRow] = []
        private var content: [UInt8] = []
        private var isDone = false
        private static let batchSize = 8

        init(storage: any ActivityStorage, activityID: Int64?) {
            self.storage = storage
            self.activityID = activityID
            isDone = activityID == nil
        }

        public mutating func next() async throws -> WritingSnapshot? {
            guard !isDone, let activityID else { return nil }
            if batch.isEmpty {
                batch = try await storage.snapshotRows(ofActivity: activityID, after: lastRow, limit: Self.batchSize)
                guard !batch.isEmpty else {
                    isDone = true
                    return nil
                }
            }
            let row = batch.removeFirst()
            lastRow = row.id
            let base = row.isKeyframe ? [] : content
            let applied = try ContentDelta(decoding: row.delta).applied(to: base)
            guard HistoryTable.digest(of: applied.content) == row.digest else {
                isDone = true
                throw CLSError(.invalidArgument, "the snapshot of \(row.entry.date) does not rebuild the content it was taken of (its digest differs); the snapshots after it cannot be replayed until the next keyframe")
            }
            content = applied.content
            let kept = applied.content.count - applied.inserted.reduce(0) { $0 + $1.count }
            return WritingSnapshot(entry: row.entry, content: applied.content, inserted: applied.inserted,
                                   removedBytes: Swift.max(0, base.count - kept))
        }
    }
}
