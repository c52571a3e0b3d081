import Foundation

/// One moment of a document's writing history: the figures of its activity at the end of a
/// session, or every few minutes while one runs. Not part of ClassKit.
///
/// The figures are the activity's whole so far, as its items hold them (the time of every
/// session, the characters typed in all of them); ``WritingHistory`` gives each session's share.
public struct WritingHistoryEntry: Sendable, Equatable, Codable {
    /// When the row was written.
    public var date: Date
    /// When the session the row belongs to started.
    public var sessionStart: Date
    /// When that session ended; nil for a row written while it ran.
    public var sessionEnd: Date?
    /// The activity's time, every session up to this moment.
    public var activeTime: TimeInterval
    /// The time the file was open in editors, idle time included, when recorded.
    public var openTime: TimeInterval?
    /// The document's word count, when measured.
    public var words: Int?
    /// Its characters, when measured.
    public var characters: Int?
    /// Characters typed, and pasted from outside the document, in every session so far, when an
    /// editor plugin or `clsfile open`'s terminal counted them.
    public var typedCharacters: Int?
    public var pastedCharacters: Int?
    /// Characters pasted from the document itself (the person's own text moved or copied) in
    /// every session so far, when counted.
    public var movedCharacters: Int?
    /// The most characters pasted at once in any session so far, when known.
    public var largestPaste: Int?
    /// The activity's progress, 0…1; nil in a row of a session whose end this store saw only
    /// later (its figures were not seen, only its time).
    public var progress: Double?
    /// The size in bytes of the content snapshot taken then; nil when none was (the file is not
    /// text, is larger than ``WritingHistory/largestSnapshot``, or could not be read).
    public var snapshotSize: Int?
    /// The session the row belongs to (its time span's identifier); rows of one session share it.
    public var sessionIdentifier: String?
    /// True for the row of the history's first session's start: the text and figures it began
    /// from, which that session's gains are counted from.
    public var isSessionStart: Bool

    /// Whether the row was written at the end of its session.
    public var endsSession: Bool { sessionEnd != nil }

    /// Creates a row from its figures.
    public init(
        date: Date, sessionStart: Date, sessionEnd: Date? = nil, activeTime: TimeInterval, openTime: TimeInterval? = nil,
        words: Int? = nil, characters: Int? = nil, typedCharacters: Int? = nil, pastedCharacters: Int? = nil,
        largestPaste: Int? = nil, progress: Double? = nil, snapshotSize: Int? = nil, sessionIdentifier: String? = nil,
        isSessionStart: Bool = false, movedCharacters: Int? = nil
    ) {
        self.date = date
        self.sessionStart = sessionStart
        self.sessionEnd = sessionEnd
        self.activeTime = activeTime
        self.openTime = openTime
        self.words = words
        self.characters = characters
        self.typedCharacters = typedCharacters
        self.pastedCharacters = pastedCharacters
        self.largestPaste = largestPaste
        self.progress = progress
        self.snapshotSize = snapshotSize
        self.sessionIdentifier = sessionIdentifier
        self.isSessionStart = isSessionStart
        self.movedCharacters = movedCharacters
    }

    /// How much a figure grew since the row before (by this row, for the first); nil when it did
    /// not: what a replay step says it brought.
    package func gain(of figure: KeyPath<WritingHistoryEntry, Int?>, since previous: WritingHistoryEntry?) -> Int? {
        guard let now = self[keyPath: figure], now > (previous?[keyPath: figure] ?? 0) else { return nil }
        return now - (previous?[keyPath: figure] ?? 0)
    }
}

/// The writing history of one document: its rows, oldest first, and each session's share of
/// the figures. Not part of ClassKit.
///
/// ```swift
/// let history = try await CLSDataStore.shared.writingHistory(for: essayURL)
/// for session in history.sessions {
///     print(session.start, session.activeTime, session.addedWords ?? 0, session.pastedCharacters ?? 0)
/// }
/// ```
public struct WritingHistory: Sendable, Equatable {
    /// Content larger than this (2 MiB) is not snapshotted; its figures are still recorded.
    public static let largestSnapshot = 2 << 20
    /// How long a running session goes between rows, at most: 5 minutes.
    public static let interval: TimeInterval = 300

    /// Every row, oldest first.
    public var entries: [WritingHistoryEntry]

    /// Creates a history from its rows.
    public init(entries: [WritingHistoryEntry]) {
        self.entries = entries
    }

    /// One session as the history saw it: its last row, and what changed since the session before.
    public struct Session: Sendable, Equatable {
        /// When it started, and when it ended (nil while it runs).
        public var start: Date
        public var end: Date?
        /// Its time: the activity's time gained since the row before it.
        public var activeTime: TimeInterval
        /// The open time gained, when recorded.
        public var openTime: TimeInterval?
        /// The word count at its end, and the words added (negative when removed); nil when not
        /// measured, or for the first session of work recorded before the history began.
        public var words: Int?
        public var addedWords: Int?
        /// Characters typed, and pasted from outside the document, in it, when counted.
        public var typedCharacters: Int?
        public var pastedCharacters: Int?
        /// Characters of the document's own text moved or copied in it, when counted.
        public var movedCharacters: Int?
        /// The progress at its end, when seen.
        public var progress: Double?
        /// The row that closes it.
        public var entry: WritingHistoryEntry
    }

    /// The sessions, in the order they began: the rows of one session (its start, every few
    /// minutes, its end) are one, whose figures are those of its last row. Its gains are counted
    /// from its start row when it has one, else from the rows before its first: the last that has
    /// each figure. The first session of work with no start row counts only its own time, and
    /// adds no words: what it began from is not known.
    public var sessions: [Session] {
        // One pass: each session keeps its first and last row, and the figures last seen before
        // its first row, so that no session searches back through the rows before it.
        var groups: [SessionRows] = []
        var place: [String: Int] = [:]
        var seen = FiguresSeen()
        for (index, entry) in entries.enumerated() {
            let key = entry.sessionIdentifier ?? "start \(entry.sessionStart.timeIntervalSince1970)"
            if let at = place[key] {
                groups[at].last = index
            } else {
                place[key] = groups.count
                groups.append(SessionRows(first: index, last: index, before: seen))
            }
            seen.note(entry)
        }
        return groups.map { group in
            let entry = entries[group.last]
            // Its start row, when it has one, stands for the rows before it.
            var known = group.before
            if entries[group.first].isSessionStart && group.last != group.first { known.note(entries[group.first]) }
            let ownTime = max(0, (entry.sessionEnd ?? entry.date).timeIntervalSince(entry.sessionStart))
            // Whether anything was recorded before the session: when not, its gains are all it did.
            let knowsBefore = known.activeTime != nil || entry.activeTime <= ownTime + 1
            func gain(_ value: Int?, over earlier: Int?) -> Int? {
                guard let value, knowsBefore else { return nil }
                return value - min(value, earlier ?? 0)
            }
            return Session(
                start: entry.sessionStart, end: entry.sessionEnd,
                activeTime: known.activeTime.map { max(0, entry.activeTime - $0) } ?? min(entry.activeTime, ownTime),
                // A session's open time is added when it ends: a running session's row still holds
                // the open time of those before, so its own is not known yet (never "7s of 0s open").
                openTime: entry.sessionEnd == nil
                    ? nil
                    : entry.openTime.flatMap { open in knowsBefore ? open - min(open, known.openTime ?? 0) : nil },
                words: entry.words,
                addedWords: entry.words.flatMap { now in known.words.map { now - $0 } },
                typedCharacters: gain(entry.typedCharacters, over: known.typedCharacters),
                pastedCharacters: gain(entry.pastedCharacters, over: known.pastedCharacters),
                movedCharacters: gain(entry.movedCharacters, over: known.movedCharacters),
                progress: entry.progress, entry: entry)
        }
    }

    /// Where one session's rows are among the entries, and what was seen before its first.
    private struct SessionRows {
        var first: Int
        var last: Int
        var before: FiguresSeen
    }

    /// The figures of the rows read so far: the last row's time, and each figure as the last
    /// row that has it gave it.
    private struct FiguresSeen {
        var activeTime: TimeInterval?
        var openTime: TimeInterval?
        var words: Int?
        var typedCharacters: Int?
        var pastedCharacters: Int?
        var movedCharacters: Int?

        mutating func note(_ entry: WritingHistoryEntry) {
            activeTime = entry.activeTime
            openTime = entry.openTime ?? openTime
            words = entry.words ?? words
            typedCharacters = entry.typedCharacters ?? typedCharacters
            pastedCharacters = entry.pastedCharacters ?? pastedCharacters
            movedCharacters = entry.movedCharacters ?? movedCharacters
        }
    }
}

/// The content of a document at one row of its history, rebuilt from the snapshots. Not part of ClassKit.
public struct WritingSnapshot: Sendable {
    /// The row the snapshot was taken at.
    public var entry: WritingHistoryEntry
    /// The file's bytes then, exactly.
    public var content: [UInt8]
    /// The ranges of ``content`` that were not in the snapshot before.
    public var inserted: [Range<Int>]
    /// How many bytes of the snapshot before are gone.
    public var removedBytes: Int
    /// True when it starts from nothing (``inserted`` is then all of it).
    public var isKeyframe: Bool
    /// How many damaged snapshots were skipped just before this one (see ``CLSDataStore/snapshots(of:)``).
    public var skippedBefore = 0
}

extension WritingSnapshot {
    /// A stretch of a snapshot's text: added by its step, or there before.
    public struct Piece: Sendable, Equatable {
        public var text: String
        public var isInserted: Bool
    }

    /// The byte ranges of the text's lines, each with its line feed.
    public var lines: [Range<Int>] { ContentDelta.lines(of: content) }

    /// The text of a byte range (all of it by default) in pieces, what the step added apart from
    /// the rest. An addition that begins or ends inside a character (`é` made `è` shares a byte)
    /// is widened to whole characters. The start row's text was there before the history began:
    /// nothing of it is marked added.
    public func pieces(of range: Range<Int>? = nil) -> [Piece] {
        let range = range ?? 0..<content.count
        func isContinuation(_ offset: Int) -> Bool { offset < content.count && content[offset] & 0xC0 == 0x80 }
        func text(_ bytes: Range<Int>) -> String { String(decoding: content[bytes], as: UTF8.self) }
        var result: [Piece] = []
        var position = range.lowerBound
        // The additions are in order: those before the range are passed over, not read.
        let additions = entry.isSessionStart ? [] : inserted[insertionIndex(after: range.lowerBound)...]
        for added in additions where added.upperBound > position {
            guard added.lowerBound < range.upperBound else { break }
            var start = max(position, added.lowerBound), stop = min(range.upperBound, added.upperBound)
            while start > position, isContinuation(start) { start -= 1 }
            while stop < range.upperBound, isContinuation(stop) { stop += 1 }
            guard start < stop else { continue }
            if position < start { result.append(Piece(text: text(position..<start), isInserted: false)) }
            result.append(Piece(text: text(start..<stop), isInserted: true))
            position = stop
        }
        if position < range.upperBound { result.append(Piece(text: text(position..<range.upperBound), isInserted: false)) }
        return result
    }

    /// The index in ``inserted`` of the first addition that ends after a byte offset: all those
    /// before it end at or before the offset. ``inserted`` is in order, as rebuilding makes it.
    package func insertionIndex(after offset: Int) -> Int {
        var low = 0, high = inserted.count
        while low < high {
            let middle = (low + high) / 2
            if inserted[middle].upperBound > offset { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
