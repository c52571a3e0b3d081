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
    /// Characters typed and pasted in `clsfile open`'s terminal, when it relayed them.
    public var typedCharacters: Int?
    public var pastedCharacters: Int?
    /// The most characters pasted at once in any session so far, when known.
    public var largestPaste: Int?
    /// The activity's progress, 0…1; nil in a row of a session whose end this store saw only
    /// later (its figures were not seen, only its time).
    public var progress: Double?
    /// The size in bytes of the content snapshot taken then; nil when none was (the file is not
    /// text, is larger than ``WritingHistory/largestSnapshot``, or could not be read).
    public var snapshotSize: Int?

    /// Whether the row was written at the end of its session.
    public var endsSession: Bool { sessionEnd != nil }
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
        /// Characters typed and pasted in it, when a terminal relay counted them.
        public var typedCharacters: Int?
        public var pastedCharacters: Int?
        /// The progress at its end, when seen.
        public var progress: Double?
        /// The row that closes it.
        public var entry: WritingHistoryEntry
    }

    /// The sessions, oldest first: rows of one session (written every few minutes) are one, whose
    /// figures are those of its last row, counted from the last row before it that has each.
    /// The first session of an activity that has time from before the history began counts only
    /// its own time, and no gains: what came before it is not known.
    public var sessions: [Session] {
        var result: [Session] = []
        var time: TimeInterval?, open: TimeInterval?, words: Int?, typed: Int?, pasted: Int?
        var index = 0
        while index < entries.count {
            var last = index
            while last + 1 < entries.count, entries[last + 1].sessionStart == entries[index].sessionStart { last += 1 }
            let entry = entries[last]
            let ownTime = max(0, (entry.sessionEnd ?? entry.date).timeIntervalSince(entry.sessionStart))
            let knowsBefore = time != nil || entry.activeTime <= ownTime + 1
            func gain<Value: Numeric & Comparable>(_ value: Value?, over earlier: Value?) -> Value? {
                guard let value, knowsBefore else { return nil }
                return value - min(value, earlier ?? 0)
            }
            result.append(Session(
                start: entry.sessionStart, end: entry.sessionEnd,
                activeTime: time.map { max(0, entry.activeTime - $0) } ?? min(entry.activeTime, ownTime),
                openTime: gain(entry.openTime, over: open),
                words: entry.words,
                // From the last count seen; or from nothing for the first session of new work.
                addedWords: entry.words.flatMap { now in words.map { now - $0 } ?? (time == nil && knowsBefore ? now : nil) },
                typedCharacters: gain(entry.typedCharacters, over: typed),
                pastedCharacters: gain(entry.pastedCharacters, over: pasted),
                progress: entry.progress, entry: entry))
            time = entry.activeTime
            open = entry.openTime ?? open
            words = entry.words ?? words
            typed = entry.typedCharacters ?? typed
            pasted = entry.pastedCharacters ?? pasted
            index = last + 1
        }
        return result
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
}
