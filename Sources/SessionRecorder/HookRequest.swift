import Foundation

/// One JSON line of `clsfile hook --stdio`, as an editor plugin that keeps one process running
/// writes it:
///
/// ```json
/// {"event": "view", "file": "/path/essay.txt", "view": [1, 40], "totalLines": 200}
/// ```
///
/// The keys are those of `clsfile hook`'s options, and ``sessionEvent(file:)`` checks their values
/// with the same checks, so that a line and a command line are refused for the same reasons.
public struct HookRequest: Decodable, Sendable, Equatable {
    /// What happened.
    public var event: SessionEvent.Kind
    /// The file, as the editor names it.
    public var file: String
    /// The cursor's line.
    public var line: Int?
    /// The visible lines, `[FIRST, LAST]`.
    public var view: [Int]?
    /// The file's number of lines, with `view`.
    public var totalLines: Int?
    /// The editor's name.
    public var editor: String?
    /// When the editor last saw input, in seconds since 1970.
    public var inputAt: Double?
    /// With `close`: when the editor opened the file, in seconds since 1970.
    public var openedAt: Double?
    /// A word count to measure progress toward.
    public var targetWords: Int?
    /// True when the file is being read.
    public var reading: Bool?
    /// With `edit`, `save` or `close`: characters typed and pasted, and the largest paste, as the
    /// plugin counted them since the figures it last sent for the file (since its open, for the
    /// first), so that an editor that dies loses only what came after them.
    public var typed: Int?
    public var pasted: Int?
    /// With `edit`, `save` or `close`: characters pasted from the same document (see
    /// ``SessionEvent/InputFigures/moved``) since the figures last sent.
    public var moved: Int?
    public var largestPaste: Int?

    /// Reads one line.
    /// - Parameters:
    ///   - line: The line's bytes, without its newline.
    ///   - decoder: The decoder, which a reader of many lines makes once.
    /// - Throws: ``RecorderError/Code/invalidRequest`` when the line is not a JSON object of an event.
    public init(line: Data, decoder: JSONDecoder = JSONDecoder()) throws(RecorderError) {
        do {
            self = try decoder.decode(Self.self, from: line)
        } catch {
            throw RecorderError(.invalidRequest, "not an event line: \(error)", underlyingError: error)
        }
    }

    /// The event this line asks to record, its values checked.
    /// - Parameter url: The file's URL; the default is `file` as a path.
    /// - Throws: ``RecorderError/Code/invalidRequest`` for a value the command line refuses too.
    public func sessionEvent(file url: URL? = nil) throws(RecorderError) -> SessionEvent {
        let isReading = reading == true
        var visibleLines: ClosedRange<Int>?
        if let view { visibleLines = try Self.visibleLines(view, as: "\(view)", totalLines: totalLines) }
        return SessionEvent(
            kind: event, file: url ?? URL(fileURLWithPath: file), line: line,
            visibleLines: visibleLines,
            totalLines: totalLines, editor: editor,
            inputAt: try Self.date(inputAt, option: "inputAt"),
            openedAt: try Self.date(openedAt, option: "openedAt"),
            targetWords: try Self.targetWords(targetWords, reading: isReading),
            isReading: isReading ? true : nil,
            input: try Self.input(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste, event: event))
    }

    /// Checks the input figures a plugin sends with an edit, a save or a close (see
    /// ``SessionEvent/InputFigures``).
    /// - Throws: ``RecorderError/Code/invalidRequest`` for a negative count, a paste larger than
    ///   the pasted characters, or figures sent with an open or a view.
    public static func input(
        typed: Int?, pasted: Int?, moved: Int? = nil, largestPaste: Int?,
        event: SessionEvent.Kind
    ) throws(RecorderError) -> SessionEvent.InputFigures? {
        guard let figures = try SessionEvent.InputFigures.checked(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste)
        else {
            return nil
        }
        guard [.edit, .save, .close].contains(event) else {
            throw RecorderError(
                .invalidRequest,
                "typed, pasted, moved and largest-paste figures count input since the figures last sent: send them with edit, save or close, not \(event.rawValue)."
            )
        }
        return figures
    }

    /// Checks a time given in seconds since 1970, named `option` in messages; a time in the future
    /// (another clock) counts as now.
    public static func date(_ seconds: Double?, option: String) throws(RecorderError) -> Date? {
        guard let seconds else { return nil }
        guard seconds.isFinite, seconds > 0 else {
            throw RecorderError(.invalidRequest, "\(option) takes a time in seconds since 1970, such as 1763900000.25, not \(seconds).")
        }
        return min(Date(timeIntervalSince1970: seconds), Date())
    }

    /// Checks the visible lines `[FIRST, LAST]`, given as `text` in messages, with the file's
    /// number of lines.
    public static func visibleLines(_ parts: [Int], as text: String, totalLines: Int?) throws(RecorderError) -> ClosedRange<Int> {
        guard parts.count == 2, parts[0] >= 1, parts[0] <= parts[1] else {
            throw RecorderError(.invalidRequest, "--view takes FIRST-LAST with 1 ≤ FIRST ≤ LAST, not \(text).")
        }
        guard let totalLines, totalLines >= 1 else {
            throw RecorderError(.invalidRequest, "--view needs --total-lines, the file's number of lines.")
        }
        return parts[0]...parts[1]
    }

    /// Checks a target word count: positive, and not given for a file being read.
    public static func targetWords(_ count: Int?, reading: Bool) throws(RecorderError) -> Int? {
        if let count, count <= 0 {
            throw RecorderError(.invalidRequest, "--target-words must be a positive number of words, not \(count).")
        }
        if count != nil, reading {
            throw RecorderError(.invalidRequest, "--target-words and --reading measure progress in two ways: give one of them.")
        }
        return count
    }
}
