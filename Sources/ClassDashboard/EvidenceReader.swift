import Foundation
import OpenClassKit

/// Where the pages read a student's process evidence when the report does not hold it.
///
/// The class server keeps the writing history apart from the work (a report of the whole class
/// would carry every student's), and reads it for the one student page or replay asked for;
/// the pages then draw it as they draw the evidence of a collected submission.
public struct EvidenceReader: Sendable {
    /// A student's writing history on an assignment.
    public struct History: Sendable, Equatable {
        /// The rows, oldest first.
        public var entries: [WritingHistoryEntry]
        /// How many of them carry a snapshot of the text: the steps of the replay.
        public var snapshots: Int
        /// When the rows recorded before were deleted, kept past the days the handout says;
        /// nil while none were.
        public var expiredAt: Date?

        public init(entries: [WritingHistoryEntry], snapshots: Int, expiredAt: Date? = nil) {
            self.entries = entries
            self.snapshots = snapshots
            self.expiredAt = expiredAt
        }
    }

    /// The history of a student's work on an assignment (by the assignment's and the student's
    /// identifiers, as the report names them); nil when the assignment asks for none and the
    /// work holds none.
    public var history: @Sendable (_ assignment: String, _ student: String) async throws -> History?
    /// The snapshots of a student's work on an assignment, oldest first, checked as a
    /// submission's are.
    public var snapshots: @Sendable (_ assignment: String, _ student: String) async throws -> [WritingSnapshotRecord]

    public init(
        history: @escaping @Sendable (_ assignment: String, _ student: String) async throws -> History?,
        snapshots: @escaping @Sendable (_ assignment: String, _ student: String) async throws -> [WritingSnapshotRecord]
    ) {
        self.history = history
        self.snapshots = snapshots
    }
}
