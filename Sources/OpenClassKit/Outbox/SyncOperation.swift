import Foundation

/// One change to a student's assigned work, as a class server receives it. Not part of ClassKit.
///
/// The store writes one into its outbox in the same transaction as each save of an assigned
/// document's activity, once a class server is set (``CLSDataStore/joinClassServer(_:)``); a
/// sync sends them in order and removes those the server acknowledged. Each has an id, so a
/// server that receives one twice applies it once, and ``WorkState/apply(_:)`` merges them with
/// the store's own rules, so that applying one again would change nothing either.
package struct SyncOperation: Sendable, Equatable, Codable {
    /// A time span, without the process that runs it. Times are seconds since 1970.
    package struct Span: Sendable, Equatable, Codable {
        package var id: String
        package var start: Double
        package var end: Double?
        package var lastPulse: Double
        /// The id of the first span of the session this one goes on with (after a pause, or a
        /// buffer left and entered again in one editor run); absent for a span that begins a
        /// session, and from clients older than sessions, whose spans are joined where they touch.
        package var session: String?

        package init(id: String, start: Double, end: Double?, lastPulse: Double, session: String? = nil) {
            self.id = id
            self.start = start
            self.end = end
            self.lastPulse = lastPulse
            self.session = session
        }
    }

    /// An activity item's value at a moment.
    package struct Item: Sendable, Equatable, Codable {
        package var identifier: String
        package var title: String
        package var isPrimary: Bool
        /// `quantity`, `score` or `binary`.
        package var kind: String
        /// The quantity, the score, or 1/0 for a binary item.
        package var value: Double
        package var maxScore: Double?
        package var createdAt: Double
        /// What last-writer-wins compares.
        package var modifiedAt: Double

        package init(
            identifier: String, title: String, isPrimary: Bool, kind: String, value: Double,
            maxScore: Double? = nil, createdAt: Double, modifiedAt: Double
        ) {
            self.identifier = identifier
            self.title = title
            self.isPrimary = isPrimary
            self.kind = kind
            self.value = value
            self.maxScore = maxScore
            self.createdAt = createdAt
            self.modifiedAt = modifiedAt
        }
    }

    /// A progress range, 0…1.
    package struct Range: Sendable, Equatable, Codable {
        package var lower: Double
        package var upper: Double

        package init(lower: Double, upper: Double) {
            self.lower = lower
            self.upper = upper
        }
    }

    /// What the teacher's handout said, for the server's report.
    package struct AssignmentInfo: Sendable, Equatable, Codable {
        package var title: String
        package var className: String?
        package var documentName: String
        package var dueDate: Double?
        package var targetWords: Int?
        package var contextPath: [String]?
        /// What of the writing history the handout asks for: its rows then go with the work
        /// (``SyncOperation/historyRows``). Nil for none, and from clients older than it.
        package var processEvidence: ProcessEvidence?
        /// Whether the handout asks for a statement of AI use: an ``AIStatement/Requirement``
        /// raw value; absent when it asks for none, and from clients older than statements.
        package var aiStatement: String?
        /// How many days the teacher keeps the process evidence after the work last changed;
        /// absent when the handout does not say (``ProcessEvidence/defaultKeptDays``), and from
        /// clients older than it.
        package var keptEvidenceDays: Int?

        package init(
            title: String, className: String? = nil, documentName: String, dueDate: Double? = nil,
            targetWords: Int? = nil, contextPath: [String]? = nil, processEvidence: ProcessEvidence? = nil,
            aiStatement: String? = nil, keptEvidenceDays: Int? = nil
        ) {
            self.title = title
            self.className = className
            self.documentName = documentName
            self.dueDate = dueDate
            self.targetWords = targetWords
            self.contextPath = contextPath
            self.processEvidence = processEvidence
            self.aiStatement = aiStatement
            self.keptEvidenceDays = keptEvidenceDays
        }

        /// What an assignment says of itself, its document named as the handout names it.
        package init(describing assignment: Assignment) {
            self.init(
                title: assignment.title, className: assignment.className, documentName: assignment.documentName,
                dueDate: assignment.dueDate?.timeIntervalSince1970, targetWords: assignment.targetWordCount,
                contextPath: assignment.contextPath, processEvidence: assignment.processEvidence,
                aiStatement: assignment.aiStatementRequirement?.rawValue, keptEvidenceDays: assignment.keptEvidenceDays)
        }
    }

    /// A student's statement of AI use, in the wire's plain values: the kind as text (checked
    /// by the server) and the date in seconds since 1970.
    package struct AIStatementRecord: Sendable, Equatable, Codable {
        /// An ``AIStatement/Use`` raw value: `none`, `ideas`, `feedback`, `editing`, `drafting`.
        package var use: String
        package var note: String?
        /// What last-writer-wins compares.
        package var statedAt: Double

        package init(use: String, note: String? = nil, statedAt: Double) {
            self.use = use
            self.note = note
            self.statedAt = statedAt
        }

        /// The record of a statement.
        package init(_ statement: AIStatement) {
            self.init(use: statement.use.rawValue, note: statement.note, statedAt: statement.statedAt.timeIntervalSince1970)
        }

        /// The statement it records; nil when its values are not a valid statement.
        package var statement: AIStatement? {
            guard let use = AIStatement.Use(rawValue: use), statedAt.isFinite else { return nil }
            return try? AIStatement(use: use, note: note, statedAt: Date(timeIntervalSince1970: statedAt))
        }
    }

    /// The operation's id: applying an id a second time changes nothing.
    package var id: UUID
    package var assignmentIdentifier: String
    /// Which attempt of the document the change is to; a later attempt starts the work again.
    package var attempt: Int
    /// When it was made, seconds since 1970.
    package var madeAt: Double
    package var assignment: AssignmentInfo
    /// Spans started, pulsed or stopped: merged by id.
    package var spans: [Span] = []
    /// Ids of spans removed (``CLSActivity/discardStart()``).
    package var discardedSpans: [String] = []
    /// Set when the progress basis changes or the progress starts again.
    package var progressBasisChange: BasisChange?
    /// Ranges added, united with those held when they measure the same basis.
    package var ranges: [Range] = []
    /// The basis `ranges` measure.
    package var rangesBasis: String?
    package var removesAllItems = false
    package var clearsPrimary = false
    /// Identifiers of items removed.
    package var deletedItems: [String] = []
    /// Items added or changed.
    package var items: [Item] = []
    /// When the student marked the work done; the first date stays.
    package var completedAt: Double?
    /// True for a snapshot of everything the activity holds (made when a server is joined, an
    /// assignment is tied to another file, or a new attempt starts): it replaces what the server
    /// held, whatever that was.
    package var replacesWork = false
    /// Rows of the assigned document's writing history written, oldest first, when the
    /// assignment asks for process evidence (``AssignmentInfo/processEvidence``): each replaces a
    /// row of its id held. Nil otherwise, and from clients older than process evidence over sync.
    package var historyRows: [HistoryRow]?
    /// Ids of history rows removed (a row replaced by a later save in the same minute of its
    /// session); applied before ``historyRows``.
    package var removedHistoryRows: [Int64]?
    /// The student's statement of AI use, when they gave or changed it (and in a snapshot): the
    /// later `statedAt` wins, whichever attempt the operation is of.
    package var aiStatement: AIStatementRecord?
    /// When the student withdrew the process evidence not yet sent (and in a snapshot of work so
    /// withdrawn): no more history rows come; the first date stays. Nil otherwise, and from
    /// clients older than withdrawal.
    package var evidenceWithdrawnAt: Double?
    /// Every note the student keeps on the work, when they changed one (and in a snapshot): they
    /// replace the notes held. Nil otherwise, and from clients older than notes over sync.
    package var notes: [NoteRecord]?
    /// The sessions of this operation's spans (or, in a snapshot, of the work) written by
    /// dictation or an input method, as the student's store names them: marks are added, never
    /// taken back. Nil for none.
    package var dictatedSessions: [String]?

    /// A change of what the progress measures.
    package struct BasisChange: Sendable, Equatable, Codable {
        /// The new basis; nil when unnamed.
        package var basis: String?
        /// True when the ranges go even if the basis is the same.
        package var restarts: Bool

        package init(basis: String?, restarts: Bool) {
            self.basis = basis
            self.restarts = restarts
        }
    }

    /// Creates an operation with nothing in it yet.
    package init(id: UUID = UUID(), assignmentIdentifier: String, attempt: Int, madeAt: Double, assignment: AssignmentInfo) {
        self.id = id
        self.assignmentIdentifier = assignmentIdentifier
        self.attempt = attempt
        self.madeAt = madeAt
        self.assignment = assignment
    }
}
