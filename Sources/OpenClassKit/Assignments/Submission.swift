import Foundation

/// One student's work on one assignment, as a teacher's store keeps it after collecting it.
///
/// The store keeps the work itself as opaque ``payload`` bytes; the tool that collected it decides
/// their format and reads them back. One submission per student and assignment is kept: the latest.
public struct Submission: Sendable, Hashable {
    /// What importing a submission did to the store.
    public enum ImportResult: String, Sendable {
        /// The store had nothing from this student for this assignment; it has now.
        case added
        /// The store held an older submission; this one replaced it.
        case updated
        /// The store already held exactly this submission; nothing changed.
        case unchanged
        /// The store holds a newer submission; this older one was not imported.
        case superseded
    }

    /// The assignment's identifier.
    public var assignmentIdentifier: String
    /// The student's opaque account identifier.
    public var studentIdentifier: String
    /// The name the student gave.
    public var studentName: String
    /// When the student made the submission.
    public var submittedAt: Date
    /// A digest of the submission's content, which tells repeats apart from changes.
    public var digest: String
    /// The work, in the collecting tool's format.
    public var payload: Data

    /// Creates a submission to import.
    public init(assignmentIdentifier: String, studentIdentifier: String, studentName: String,
                submittedAt: Date, digest: String, payload: Data) {
        self.assignmentIdentifier = assignmentIdentifier
        self.studentIdentifier = studentIdentifier
        self.studentName = studentName
        self.submittedAt = submittedAt
        self.digest = digest
        self.payload = payload
    }
}
