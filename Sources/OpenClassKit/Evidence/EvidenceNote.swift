import Foundation

/// A student's own words on their process evidence: on the work as a whole, on one session, or on
/// the paste of one session ("pasted from my outline in notes.md", "dictated"). Kept in the
/// student's store, sent sealed and signed with the submission, and shown to the teacher beside
/// the figures it explains. Not part of ClassKit.
public struct EvidenceNote: Sendable, Equatable, Codable {
    /// What a note is about.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The work as a whole.
        case work
        /// One session.
        case session
        /// What was pasted in one session.
        case paste
    }

    /// What the note is about.
    public var kind: Kind
    /// The session it is about (``WritingHistoryEntry/sessionIdentifier``); nil for ``Kind/work``.
    public var sessionIdentifier: String?
    /// The student's words: one line of at most ``longestText`` characters.
    public var text: String
    /// When the student wrote it.
    public var writtenAt: Date

    /// Creates a note.
    public init(kind: Kind, sessionIdentifier: String? = nil, text: String, writtenAt: Date = Date()) {
        self.kind = kind
        self.sessionIdentifier = sessionIdentifier
        self.text = text
        self.writtenAt = writtenAt
    }

    /// The most characters a note holds.
    public static let longestText = 2_000

    /// Why a note's text cannot be kept, in words that follow "the note"; nil when it can: it must
    /// hold something besides spaces, at most ``longestText`` characters, and no control
    /// character (a note is one line, shown as it is in terminals and pages).
    public static func problem(with text: String) -> String? {
        if text.allSatisfy(\.isWhitespace) { return "is empty: give its text, or use --clear-note to remove a note" }
        if text.count > longestText { return "has \(text.count) characters, more than the \(longestText) a note may hold: shorten it" }
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            return
                "holds a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)): a note is one line of plain text, without line breaks or tabs"
        }
        return nil
    }
}
