import Foundation

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

    /// Creates an event.
    public init(kind: Kind, file: URL, date: Date = Date(), line: Int? = nil,
                visibleLines: ClosedRange<Int>? = nil, totalLines: Int? = nil, editor: String? = nil) {
        self.kind = kind
        self.file = file
        self.date = date
        self.line = line
        self.visibleLines = visibleLines
        self.totalLines = totalLines
        self.editor = editor
    }

    /// The share of the file the visible lines cover, as a progress range; nil without both figures.
    var viewedRange: (start: Double, end: Double)? {
        guard let visibleLines, let totalLines, totalLines > 0 else { return nil }
        let first = max(1, min(visibleLines.lowerBound, totalLines))
        let last = max(first, min(visibleLines.upperBound, totalLines))
        return (Double(first - 1) / Double(totalLines), Double(last) / Double(totalLines))
    }
}
