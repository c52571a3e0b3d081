import Foundation

/// One student's work on one assignment, as a teacher's store keeps it after collecting it.
///
/// The store keeps the work itself as opaque ``payload`` bytes; the tool that collected it decides
/// their format and reads them back. Every submission accepted is kept; reports read the latest of
/// each student. A student's key is pinned at the first submission the store accepts from them: one
/// signed with another key is kept aside as a conflict until the teacher trusts that key
/// (``CLSDataStore/trustStudentKey(_:forStudent:)``).
package struct Submission: Sendable, Hashable {
    /// What importing a submission did to the store.
    package enum ImportResult: String, Sendable {
        /// The store had nothing from this student for this assignment; it has now.
        case added
        /// The store held an older submission; this one replaced it.
        case updated
        /// The store already held exactly this submission; nothing changed.
        case unchanged
        /// The store holds a newer submission; this older one was kept in the history only.
        case superseded
        /// The submission is signed with another key than the one pinned for its student: it was
        /// kept aside, not imported.
        case conflict
    }

    /// How far into the future a submission's date may be, for clocks that differ: five minutes.
    /// Work dated later is not imported.
    package static let clockMargin: TimeInterval = 300

    /// The assignment's identifier.
    package var assignmentIdentifier: String
    /// The student's opaque account identifier.
    package var studentIdentifier: String
    /// The name the student gave.
    package var studentName: String
    /// When the student made the submission.
    package var submittedAt: Date
    /// A digest of the submission's content, which tells repeats apart from changes.
    package var digest: String
    /// The work, in the collecting tool's format.
    package var payload: Data
    /// The package key the student signed the submission with; nil for work collected before
    /// submissions were signed.
    package var studentKey: Data?

    /// Creates a submission to import.
    package init(
        assignmentIdentifier: String, studentIdentifier: String, studentName: String,
        submittedAt: Date, digest: String, payload: Data, studentKey: Data? = nil
    ) {
        self.assignmentIdentifier = assignmentIdentifier
        self.studentIdentifier = studentIdentifier
        self.studentName = studentName
        self.submittedAt = submittedAt
        self.digest = digest
        self.payload = payload
        self.studentKey = studentKey
    }
}
