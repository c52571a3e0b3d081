import Foundation

extension SyncOperation {
    /// One row of an assigned document's writing history as a class server keeps it, when the
    /// assignment asks for process evidence: the row's figures, and for replay the snapshot of
    /// the text taken at it, as the store keeps it (a compressed delta from the snapshot before).
    ///
    /// A row is known by its id in the student's store: one sent again replaces the row of that
    /// id, and the server keeps the rows, and replays the snapshots, in the order of their ids.
    package struct HistoryRow: Sendable, Equatable, Codable {
        /// The row's id in the student's store, 1 or more.
        package var id: Int64
        package var entry: WritingHistoryEntry
        /// The snapshot's delta and digest, when the assignment asks for replay and a snapshot
        /// was taken at the row; nil otherwise.
        package var delta: Data?
        package var digest: Data?
        /// True when the snapshot starts from nothing; nil without a snapshot.
        package var isKeyframe: Bool?

        /// Creates a row from its figures, and its snapshot when it carries one.
        package init(id: Int64, entry: WritingHistoryEntry, snapshot: WritingSnapshotRecord? = nil) {
            self.id = id
            self.entry = entry
            delta = snapshot?.delta
            digest = snapshot?.digest
            isKeyframe = snapshot?.isKeyframe
        }

        /// The snapshot the row carries, as a submission carries it; nil without one.
        package var snapshot: WritingSnapshotRecord? {
            guard let delta, let digest else { return nil }
            return WritingSnapshotRecord(entry: entry, delta: delta, digest: digest, isKeyframe: isKeyframe ?? false)
        }
    }

    /// The most history rows one assignment's work may carry to a class server: a row a minute of
    /// a session at most, so more than 300 hours of writing on one assignment.
    package static let maximumHistoryRows = 20_000
    /// The most of them with a snapshot of the text, and the most bytes their deltas take: what a
    /// submission may hold, so that the teacher replays either at the same cost. Past them a
    /// student's store sends the rows without their snapshots.
    package static let maximumSnapshots = 2_000
    package static let maximumSnapshotBytes = 8 << 20
}
