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

    /// The writing history of an activity this store read, such as the one a deleted file left
    /// (``activityRecorded(at:)``).
    /// - Returns: Its rows, oldest first; none for an activity never saved.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read.
    public func writingHistory(for activity: CLSActivity) async throws -> WritingHistory {
        let activityID = activity.activityID
        guard activityID != 0 else { return WritingHistory(entries: []) }
        return WritingHistory(entries: try await storage.writingHistory(ofActivity: activityID))
    }

    /// The file's content at each snapshot of its history, oldest first, rebuilt one at a time:
    /// memory holds one snapshot's content, however long the history. A damaged snapshot, and the
    /// deltas after it up to the next keyframe, are skipped (``WritingSnapshot/skippedBefore``
    /// counts them); damage after the last keyframe ends the iteration with the error.
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

    /// The stored snapshots of a file, as they are kept (compressed deltas), oldest first: what an
    /// assignment that asks for replay hands in (see ``WritingSnapshotRecord/rebuild(_:_:)``).
    /// - Throws: As ``snapshots(of:)``.
    public func snapshotRecords(of url: URL) async throws -> [WritingSnapshotRecord] {
        guard let activityID = try await activityID(of: url) else { return [] }
        var records: [WritingSnapshotRecord] = []
        var after: Int64 = 0
        while true {
            let rows = try await storage.snapshotRows(ofActivity: activityID, after: after, limit: 256)
            guard let last = rows.last else { return records }
            records += rows.map { WritingSnapshotRecord(entry: $0.entry, delta: $0.delta, digest: $0.digest, isKeyframe: $0.isKeyframe) }
            after = last.id
        }
    }

    /// Deletes a file's writing history, or only the snapshots of its text (the figures stay); its
    /// activity (time, progress, items) is untouched, and the history starts again at the next
    /// session. Snapshots already sent with a submission are not recalled.
    /// - Parameters:
    ///   - url: A file URL naming an existing regular file.
    ///   - keepingFigures: True to delete only the snapshots.
    /// - Returns: How many rows were deleted or emptied.
    /// - Throws: ``CLSError`` as ``existingActivity(for:)`` does.
    @discardableResult
    public func forgetWritingHistory(for url: URL, keepingFigures: Bool = false) async throws -> Int {
        guard let activityID = try await activityID(of: url) else { return 0 }
        return try await storage.forgetHistory(ofActivity: activityID, keepingFigures: keepingFigures)
    }

    private func activityID(of url: URL) async throws -> Int64? {
        let file = try FileIdentity(resolving: url)
        return try await storage.existingActivity(atPath: file.path)?.activityID
    }
}

/// The snapshots of a file's history, oldest first; see ``CLSDataStore/snapshots(of:)``.
public struct WritingSnapshots: AsyncSequence, Sendable {
    public typealias Element = WritingSnapshot

    let storage: SQLiteStorage
    let activityID: Int64?

    public func makeAsyncIterator() -> Iterator {
        Iterator(storage: storage, activityID: activityID)
    }

    /// Reads the rows a few at a time, each batch in a transaction of its own, so that a replay
    /// that waits for a key holds no transaction open.
    public struct Iterator: AsyncIteratorProtocol {
        let storage: SQLiteStorage
        let activityID: Int64?
        private var lastRow: Int64 = 0
        private var batch: [SnapshotRow] = []
        private var rebuilder = SnapshotRebuilder()
        private var isDone = false
        /// The failure of the last snapshot tried, until a keyframe starts the text again.
        private var damage: CLSError?
        private static let batchSize = 8

        init(storage: SQLiteStorage, activityID: Int64?) {
            self.storage = storage
            self.activityID = activityID
            isDone = activityID == nil
        }

        public mutating func next() async throws -> WritingSnapshot? {
            guard !isDone, let activityID else { return nil }
            var skipped = 0
            while true {
                if batch.isEmpty {
                    batch = try await storage.snapshotRows(ofActivity: activityID, after: lastRow, limit: Self.batchSize)
                    guard !batch.isEmpty else {
                        isDone = true
                        if let damage, skipped > 0 {
                            throw CLSError(
                                .invalidArgument,
                                "the last \(skipped) snapshots of the history cannot be replayed: \(damage.message) (the history's figures are unaffected)"
                            )
                        }
                        return nil
                    }
                }
                let row = batch.removeFirst()
                lastRow = row.id
                // After damage, only a keyframe starts the text again.
                if damage != nil, !row.isKeyframe {
                    skipped += 1
                    continue
                }
                do {
                    var snapshot = try rebuilder.apply(
                        WritingSnapshotRecord(
                            entry: row.entry, delta: row.delta, digest: row.digest,
                            isKeyframe: row.isKeyframe))
                    snapshot.skippedBefore = skipped
                    damage = nil
                    return snapshot
                } catch let error as CLSError {
                    damage = error
                    skipped += 1
                }
            }
        }
    }
}

/// One stored snapshot as it is kept: the row's figures, and the compressed delta from the
/// snapshot before (from nothing for a keyframe) with the digest of the content it makes. Not
/// part of ClassKit.
public struct WritingSnapshotRecord: Sendable, Equatable, Codable {
    /// The row the snapshot was taken at.
    public var entry: WritingHistoryEntry
    /// The delta, as `ContentDelta` encodes it.
    public var delta: Data
    /// The first 16 bytes of the SHA-256 of the content it makes.
    public var digest: Data
    /// True when it starts from nothing.
    public var isKeyframe: Bool

    /// Creates a record from its parts.
    public init(entry: WritingHistoryEntry, delta: Data, digest: Data, isKeyframe: Bool) {
        self.entry = entry
        self.delta = delta
        self.digest = digest
        self.isKeyframe = isKeyframe
    }

    /// A keyframe of some content: the record that starts a history from nothing.
    public init(keyframeOf content: [UInt8], entry: WritingHistoryEntry) {
        self.init(
            entry: entry, delta: ContentDelta(from: [], to: content).encoded(), digest: HistoryTable.digest(of: content),
            isKeyframe: true)
    }

    /// Rebuilds the content at each record, oldest first, one at a time.
    /// - Throws: ``CLSError`` `.invalidArgument` when a record is damaged or does not make the
    ///   content its digest names (the first record must be a keyframe); what `body` throws.
    public static func rebuild(_ records: [WritingSnapshotRecord], _ body: (WritingSnapshot) throws -> Void) throws {
        var rebuilder = SnapshotRebuilder()
        for record in records { try body(try rebuilder.apply(record)) }
    }
}

/// Applies snapshot records one after another, holding the content of the last.
struct SnapshotRebuilder {
    private var content: [UInt8]?

    mutating func apply(_ record: WritingSnapshotRecord) throws -> WritingSnapshot {
        guard record.isKeyframe || content != nil else {
            throw CLSError(
                .invalidArgument,
                "the snapshots of the history start without a keyframe (at \(record.entry.date)): the text cannot be rebuilt")
        }
        let base = record.isKeyframe ? [] : content ?? []
        let applied = try ContentDelta(decoding: record.delta).applied(to: base)
        guard HistoryTable.digest(of: applied.content) == record.digest else {
            content = nil
            throw CLSError(
                .invalidArgument, "the snapshot of \(record.entry.date) does not rebuild the content it was taken of (its digest differs)")
        }
        content = applied.content
        let kept = applied.content.count - applied.inserted.reduce(0) { $0 + $1.count }
        return WritingSnapshot(
            entry: record.entry, content: applied.content, inserted: applied.inserted,
            removedBytes: max(0, base.count - kept), isKeyframe: record.isKeyframe)
    }
}
