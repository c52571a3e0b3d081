import Foundation

/// A document a teacher handed out, as the teacher's store or an accepting student's store records it.
/// Not part of ClassKit, so without its `CLS` prefix.
///
/// The teacher records it with `recordAssignment(_:)` (package API) when making the handout; a
/// student accepts it for one file with `acceptAssignment(_:for:)`. From then on
/// ``CLSDataStore/isAssignedDocument(_:)`` is true for that file, and only such files ever leave the
/// student's machine.
public struct Assignment: Sendable, Hashable {
    /// The handout's identifier, the same on every machine.
    public var identifier: String
    /// What the teacher called it.
    public var title: String
    /// The class it was given to, if the teacher named one.
    public var className: String?
    /// When it is due, if the teacher set a date.
    public var dueDate: Date?
    /// The word count the teacher asked for, if any.
    public var targetWordCount: Int?
    /// Whether the assignment is reading: progress is then the share of the document viewed.
    public var isReading: Bool
    /// What the teacher asked the students to do, if anything.
    public var instructions: String?
    /// The file name of the document the teacher handed out; for an assignment of an app's
    /// context (``coversContextTree``), the context's identifiers below the assigned one, joined
    /// by `/` (the assigned context's own identifier for itself).
    public var documentName: String
    /// The SHA-256 of the document as handed out, in lowercase hexadecimal; empty for an
    /// assignment of an app's context, which hands out no document.
    public var documentDigest: String
    /// The teacher's public key (P-256, X9.63 form) that students' work on this handout is encrypted
    /// to; nil for an assignment from a version-1 handout, whose work can no longer be submitted.
    public var teacherKey: Data?
    /// When the teacher made the handout.
    public var createdAt: Date
    /// When this student accepted it; nil in the teacher's store.
    public internal(set) var acceptedAt: Date?
    /// The student's file that the assignment is for; nil in the teacher's store.
    public internal(set) var documentURL: URL?
    /// When the student marked the work done; nil while it is not done. Independent of progress.
    public internal(set) var completedAt: Date?
    /// The identifier path (below the main app context) of the course context the teacher
    /// assigned, when this assignment is one document of it; nil for a document assigned alone.
    public var contextPath: [String]?
    /// True for an assignment of a context a teacher chose in a class server's catalog: an app's
    /// content, not a handed-out document. The work of every activity at or below
    /// ``contextPath`` (below any app's main context: the app's own contexts, or a course's
    /// documents) reports to it, each context's as an assignment of its own that the store derives
    /// from this one (with an identifier made from this one's and the context's path). Such an
    /// assignment is tied to no file.
    public var coversContextTree: Bool
    /// The class of a class server the assignment was made for (an assignment from the catalog
    /// and those derived from it): its work goes to that class only, not to the teacher's other
    /// classes. Nil for a handout, whose work goes to every class joined of its teacher.
    public var classIdentifier: UUID?
    /// What of the writing history the teacher asks to be handed in with the work; nil for
    /// nothing (the history stays on the student's machine).
    public var processEvidence: ProcessEvidence?
    /// Whether the teacher asks for a statement of the student's AI use; nil for none asked
    /// (the student may still give one).
    public var aiStatementRequirement: AIStatement.Requirement?
    /// The student's statement of how they used AI tools, as their store keeps it; nil while they
    /// gave none, and in the teacher's store.
    public internal(set) var aiStatement: AIStatement?
    /// How many days the teacher keeps the process evidence of submitted work after it last
    /// changed; nil when the handout does not say, which keeps it
    /// ``ProcessEvidence/defaultKeptDays``.
    public var keptEvidenceDays: Int?
    /// When the student withdrew the process evidence not yet sent: from then on none of it leaves
    /// their machine (a submission carries the figures only, and says it was withdrawn). Nil
    /// while they have not, and in the teacher's store.
    public internal(set) var evidenceWithdrawnAt: Date?
    /// When the student last wrote a submission of the work (`clsfile submit`); nil while they
    /// have not, and in the teacher's store.
    public internal(set) var submittedAt: Date?

    /// Creates an assignment as a teacher's handout describes it.
    public init(
        identifier: String, title: String, className: String? = nil, dueDate: Date? = nil,
        targetWordCount: Int? = nil, isReading: Bool = false, instructions: String? = nil,
        documentName: String, documentDigest: String, teacherKey: Data?, createdAt: Date = Date(),
        contextPath: [String]? = nil, coversContextTree: Bool = false, classIdentifier: UUID? = nil,
        processEvidence: ProcessEvidence? = nil, aiStatementRequirement: AIStatement.Requirement? = nil,
        keptEvidenceDays: Int? = nil
    ) {
        self.identifier = identifier
        self.title = title
        self.className = className
        self.dueDate = dueDate
        self.targetWordCount = targetWordCount
        self.isReading = isReading
        self.instructions = instructions
        self.documentName = documentName
        self.documentDigest = documentDigest
        self.teacherKey = teacherKey
        self.createdAt = createdAt
        self.contextPath = contextPath
        self.coversContextTree = coversContextTree
        self.classIdentifier = classIdentifier
        self.processEvidence = processEvidence
        self.aiStatementRequirement = aiStatementRequirement
        self.keptEvidenceDays = keptEvidenceDays
    }

    /// How many days the teacher keeps the process evidence of submitted work: the handout's
    /// word, else ``ProcessEvidence/defaultKeptDays``.
    public var evidenceKeptDays: Int { keptEvidenceDays ?? ProcessEvidence.defaultKeptDays }

    /// Whether the student marked the work done.
    public var isCompleted: Bool { completedAt != nil }
}
