import Foundation

/// A student's own account of how they used AI tools on an assignment's work: one of a few
/// plain kinds and, if they like, their own words. Not part of ClassKit.
///
/// A handout may ask for one (``Assignment/aiStatementRequirement``); the student gives it when
/// submitting or marking the work done, their store keeps it with the assignment
/// (``Assignment/aiStatement``), and it travels with the work, sealed and signed in a submission
/// or over a class server's sync. Nothing here detects, scores or judges anything: the teacher
/// sees the kind and the words the student chose.
///
/// ```swift
/// let statement = try AIStatement(use: .feedback, note: "A chatbot checked my grammar.")
/// ```
public struct AIStatement: Sendable, Hashable, Codable {
    /// How the student says they used AI tools, from least to most.
    public enum Use: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
        /// They did not use any.
        case notUsed = "none"
        /// For ideas: brainstorming, an outline, questions to think about.
        case ideas
        /// For feedback on what they wrote.
        case feedback
        /// To edit their text: grammar, wording, style.
        case editing
        /// To draft some of the text.
        case drafting

        /// The kind in a few words, for reports and pages.
        public var description: String {
            switch self {
            case .notUsed: "no AI use"
            case .ideas: "AI for ideas"
            case .feedback: "AI for feedback"
            case .editing: "AI for editing"
            case .drafting: "AI for drafting"
            }
        }
    }

    /// Whether a handout asks for a statement.
    public enum Requirement: String, Sendable, Codable, CaseIterable {
        /// Submitting without one is refused.
        case required
        /// The student may give one or not.
        case optional

        /// What a student is told on accepting an assignment, in words; nil when it asks for none.
        public static func statement(for requirement: Requirement?) -> String? {
            let kinds = Use.allCases.map(\.rawValue).joined(separator: ", ")
            switch requirement {
            case nil: return nil
            case .required?:
                return
                    "this assignment asks you to say how you used AI tools (\(kinds)), in your own words if you like; give it with `clsfile submit --ai-use KIND [--ai-note TEXT]` or `clsfile done FILE --ai-use KIND`: work without it is not submitted"
            case .optional?:
                return
                    "this assignment invites you to say how you used AI tools (\(kinds)), in your own words if you like, with `clsfile submit --ai-use KIND [--ai-note TEXT]` or `clsfile done FILE --ai-use KIND`; it is up to you"
            }
        }
    }

    /// The most characters a note may have.
    public static let maximumNoteLength = 2_000
    /// The most bytes (UTF-8) a note may have: a character may be made of many code points.
    public static let maximumNoteBytes = 8_000

    /// How the student used AI tools.
    public var use: Use
    /// The student's own words, if they gave any: never empty, at most ``maximumNoteLength``
    /// characters, no control characters.
    public var note: String?
    /// When the student gave it: of two statements, the later one stands.
    public var statedAt: Date

    /// Creates a statement; an empty note is no note.
    /// - Throws: ``CLSError`` `.invalidArgument` for a note that is too long or holds control
    ///   characters (``problem(withNote:)`` says which).
    public init(use: Use, note: String? = nil, statedAt: Date = Date()) throws {
        let note = note.flatMap { $0.isEmpty ? nil : $0 }
        if let note, let problem = Self.problem(withNote: note) {
            throw CLSError(.invalidArgument, "the note on AI use \(problem)")
        }
        self.use = use
        self.note = note
        self.statedAt = statedAt
    }

    /// Why a note cannot be part of a statement, in words that follow "the note": it is longer
    /// than ``maximumNoteLength`` characters (or ``maximumNoteBytes`` bytes), or holds a control
    /// character (a line break or a tab included: a note is one paragraph); nil when it can.
    public static func problem(withNote note: String) -> String? {
        if note.utf8.count > maximumNoteBytes || note.count > maximumNoteLength {
            return
                "has \(note.count) characters (\(note.utf8.count) bytes), more than \(maximumNoteLength) (or \(maximumNoteBytes) bytes): shorten it"
        }
        if note.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a control character (a line break, a tab or another): write it as one paragraph of plain text"
        }
        return nil
    }

    /// The statement in one line for people: `AI for feedback: "…"`.
    public var summary: String {
        note.map { "\(use): \"\($0)\"" } ?? use.description
    }
}
