import Foundation
import OpenClassKit

/// Something an editor did to a file: the unit that hooks send and the spool keeps.
public struct SessionEvent: Codable, Sendable, Equatable {
    /// The kinds of event.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The file was opened: a session starts, or goes on if one runs.
        case open
        /// The person changed the text.
        case edit
        /// The file was written to disk.
        case save
        /// The person looked at lines of the file.
        case view
        /// The file was closed: measurements are taken and the session stops.
        case close
    }

    /// What happened.
    public var kind: Kind
    /// The file.
    public var file: URL
    /// When it happened.
    public var date: Date
    /// The line of the cursor, if the editor told.
    public var line: Int?
    /// The first and last visible lines, for `view`.
    public var visibleLines: ClosedRange<Int>?
    /// The number of lines in the file, for `view`.
    public var totalLines: Int?
    /// The editor's name, for reports.
    public var editor: String?
    /// When the editor last saw input in the file (a keystroke, a change, a cursor movement): the
    /// time of the pulse this event records, so that an event sent later, or a close after a
    /// break, counts the work up to the input and no further. Nil: the event's own date.
    public var inputAt: Date?
    /// For `close`: when the editor opened the file, so that the open time is the whole session's.
    public var openedAt: Date?
    /// A word count to measure progress toward, remembered for the file.
    public var targetWords: Int?
    /// True when the file is being read: its progress is then the share of its lines viewed.
    public var isReading: Bool?
    /// The editor run that sent the event (`parentEditorRun`), when a plugin's hook
    /// named it: an open from the run whose session on the file was the last goes on with it (a
    /// buffer left and entered again), one from another run starts a session of its own.
    public var editorRun: String?
    /// True for an event that waited for its file to be first written (an editor's new file):
    /// an open then begins from no text.
    public var fileWasMissing: Bool?
    /// For `edit`, `save` and `close`: what reached the text since the figures last sent for the
    /// file's open (for a close from a terminal relay: during the session), as a plugin or the relay
    /// counted it. Added to the file's figures.
    public var input: InputFigures?
    /// For `close`: what the session's pulses came from, recorded as the "Timing Source" item.
    public var timing: TimingSource?
    /// For `open` and `close`: true when the session is written by dictation or an input method
    /// (`clsfile open --dictation`), false when not; nil leaves it to the store's setting
    /// (`clsfile settings --dictation`). Such a session is marked, and its input counts as typed.
    public var isDictated: Bool?

    /// What reached the text during one session: counted by an editor plugin, which sees what
    /// the editor inserts, or by `clsfile open`'s terminal relay, which sees only keys.
    public struct InputFigures: Codable, Sendable, Equatable {
        /// Characters that reached the text by typing (input methods and dictation included); nil
        /// when no plugin counted them.
        public var typed: Int?
        /// Characters that arrived as pastes of text from outside the document (another document,
        /// another program); nil when nothing told pastes apart.
        public var pasted: Int?
        /// Characters pasted that the person took from the same document: a yank, delete, kill,
        /// cut or copy in it during the editor's run, or text the document already held. Their own
        /// text moved or copied, never counted as pasted; nil when nothing told them apart.
        public var moved: Int?
        /// The most characters pasted at once from outside the document; nil when not counted.
        public var largestPaste: Int?
        /// Keys pressed in a terminal relay that no plugin's figures replaced: editing commands
        /// included, so not characters typed; nil otherwise.
        public var keysPressed: Int?
        /// The largest growth of the file between two saved pulses, in bytes; nil when not watched.
        public var largestGrowth: Int64?

        /// Creates the figures.
        public init(
            typed: Int? = nil, pasted: Int? = nil, moved: Int? = nil, largestPaste: Int? = nil, keysPressed: Int? = nil,
            largestGrowth: Int64? = nil
        ) {
            self.typed = typed
            self.pasted = pasted
            self.moved = moved
            self.largestPaste = largestPaste
            self.keysPressed = keysPressed
            self.largestGrowth = largestGrowth
        }

        /// Checks figures a plugin sent: counts are never negative, and no paste is larger than
        /// all of them together.
        /// - Throws: ``RecorderError/Code/invalidRequest`` naming the value.
        public static func checked(typed: Int?, pasted: Int?, moved: Int? = nil, largestPaste: Int?) throws(RecorderError)
            -> InputFigures?
        {
            guard typed != nil || pasted != nil || moved != nil || largestPaste != nil else { return nil }
            for (name, value) in [("typed", typed), ("pasted", pasted), ("moved", moved), ("largest paste", largestPaste)] {
                if let value, value < 0 {
                    throw RecorderError(.invalidRequest, "the \(name) count must be 0 or more characters, not \(value).")
                }
            }
            if let largestPaste, largestPaste > (pasted ?? 0) {
                throw RecorderError(
                    .invalidRequest, "the largest paste (\(largestPaste) characters) cannot exceed the characters pasted (\(pasted ?? 0)).")
            }
            return InputFigures(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste)
        }

        /// What was counted since `earlier`, both being a session's totals: the counts' growth
        /// (nil where these have none), and the largest paste so far, which the recorder keeps
        /// as the larger of those it is given.
        func since(_ earlier: InputFigures) -> InputFigures {
            func growth(_ now: Int?, _ before: Int?) -> Int? { now.map { max(0, $0 - (before ?? 0)) } }
            return InputFigures(
                typed: growth(typed, earlier.typed), pasted: growth(pasted, earlier.pasted), moved: growth(moved, earlier.moved),
                largestPaste: largestPaste,
                keysPressed: growth(keysPressed, earlier.keysPressed), largestGrowth: largestGrowth)
        }

        /// The figures of a session written by dictation or an input method, which deliver text in
        /// bursts: what was counted as pasted is typed (or keys pressed, for a terminal relay's
        /// figures), and nothing is pasted.
        var countedAsTyped: InputFigures {
            guard typed != nil || pasted != nil || keysPressed != nil else { return self }
            var figures = self
            let pasted = self.pasted ?? 0
            if typed != nil || keysPressed == nil {
                figures.typed = (typed ?? 0) + pasted
            } else {
                figures.keysPressed = (keysPressed ?? 0) + pasted
            }
            figures.pasted = 0
            figures.largestPaste = nil
            return figures
        }
    }

    /// Creates an event.
    public init(
        kind: Kind, file: URL, date: Date = Date(), line: Int? = nil,
        visibleLines: ClosedRange<Int>? = nil, totalLines: Int? = nil, editor: String? = nil,
        inputAt: Date? = nil, openedAt: Date? = nil, targetWords: Int? = nil, isReading: Bool? = nil,
        input: InputFigures? = nil, timing: TimingSource? = nil
    ) {
        self.kind = kind
        self.file = file
        self.date = date
        self.line = line
        self.visibleLines = visibleLines
        self.totalLines = totalLines
        self.editor = editor
        self.inputAt = inputAt
        self.openedAt = openedAt
        self.targetWords = targetWords
        self.isReading = isReading
        self.input = input
        self.timing = timing
    }

    /// When the work this event reports happened: the last input, else the event's date.
    var workDate: Date { inputAt ?? date }

    /// The share of the file the visible lines cover, as a progress range; nil without both figures.
    var viewedRange: (start: Double, end: Double)? {
        guard let visibleLines, let totalLines, totalLines > 0 else { return nil }
        let first = max(1, min(visibleLines.lowerBound, totalLines))
        let last = max(first, min(visibleLines.upperBound, totalLines))
        return (Double(first - 1) / Double(totalLines), Double(last) / Double(totalLines))
    }
}
