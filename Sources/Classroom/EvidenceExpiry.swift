import Foundation
import OpenClassKit

/// Deletes the process evidence a teacher's store keeps past the days each handout says.
///
/// A submission's writing history (its rows, and for replay the snapshots of the text) is kept
/// `Assignment/evidenceKeptDays` after the student submitted it; then it is deleted and the work
/// marked with the date (``StudentWork/evidenceExpiredAt``). The figures stay: time, sessions,
/// words, progress, items, the student's notes and statement of AI use. The submission keeps its
/// digest, so collecting the same file again brings nothing back. Submissions kept aside as
/// conflicts are left as they are until their key is trusted.
public struct EvidenceExpiry: Sendable {
    /// The process evidence of one submission that is, or would be, deleted.
    public struct Expired: Sendable, Equatable {
        public var assignmentTitle: String
        public var studentName: String
        public var studentIdentifier: String
        public var submittedAt: Date
        /// How many days the handout keeps process evidence.
        public var keptDays: Int
        /// How many history rows, and snapshots of the text, are deleted.
        public var rows: Int
        public var snapshots: Int
    }

    public let store: CLSDataStore

    public init(store: CLSDataStore) {
        self.store = store
    }

    /// Deletes the process evidence of every submission submitted longer ago than its handout
    /// keeps it, or with `dryRun` only says what it would delete.
    /// - Returns: What was deleted (or would be), by assignment and student.
    /// - Throws: `CLSError` when the store cannot be used; ``ClassroomError`` `.malformedFile`
    ///   when a stored submission cannot be read back (nothing of it is changed).
    public func expire(at now: Date = Date(), dryRun: Bool = false) async throws -> [Expired] {
        var expired: [Expired] = []
        for assignment in try await store.assignments() where assignment.processEvidence != nil {
            let days = assignment.evidenceKeptDays
            let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
            for submission in try await store.submissionHistory(forAssignment: assignment.identifier, submittedUpTo: cutoff) {
                var work = try StudentWork.stored(in: submission, of: assignment.title, store: store.storeURL.path)
                guard work.history != nil || work.snapshots != nil else { continue }
                expired.append(
                    Expired(
                        assignmentTitle: assignment.title, studentName: submission.studentName,
                        studentIdentifier: submission.studentIdentifier, submittedAt: submission.submittedAt, keptDays: days,
                        rows: work.history?.count ?? 0, snapshots: work.snapshots?.count ?? 0))
                guard !dryRun else { continue }
                work.history = nil
                work.snapshots = nil
                work.evidenceExpiredAt = now
                _ = try await store.replacePayload(of: submission, with: try JSONCoding.encoder.encode(work))
            }
        }
        return expired
    }
}
