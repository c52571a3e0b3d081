internal import Crypto
import Foundation
internal import GRDB

#if canImport(Glibc)
internal import Glibc
#endif

/// The rows of `writing_history`: written in the transaction of the save that makes them due, so
/// that the wrapper, every plugin and every program using the library write them alike.
enum HistoryTable {
    /// The rows of saves within one such stretch of a running session (counted from its start)
    /// replace each other: the history keeps the last saved text of each minute of a session, and
    /// each session's end.
    static let savesApart: Double = 60

    /// When the next snapshot is a keyframe again, so that the save that takes it (a session's
    /// end, which an editor's hook may wait for) rebuilds the content before it in a few
    /// milliseconds: once that would apply this many deltas …
    static let longestChain = 256
    /// … or make more than this many bytes of content in all (16 MiB: 8 snapshots of a 2 MiB
    /// file, 500 of an essay of 30 KB; the dashboard refuses a submitted chain that makes more) …
    static let longestRebuild = 16 << 20
    /// … or once the deltas since it take this many times its own size (and 4 KiB at least):
    /// keyframes then grow geometrically, and all of them together take about a third of the
    /// deltas' bytes more.
    static let chainToKeyframe = 4

    /// A time span a save ended, and the session it belongs to.
    struct EndedSpan: Sendable {
        var id: String
        /// The identifier of the span's session: its first span's.
        var session: String
        var start: Double
        var end: Double
    }

    /// Writes a row when one is due: the save ended a session (`endedSpans` whose sessions run no
    /// more: a span ended by a pause past the idle timeout, with its session going on, ends
    /// none); or a session runs and the activity has no row yet (its start: the text and figures
    /// it began from), or its last row is ``WritingHistory/interval`` old or more. Of sessions
    /// ended together, the last gets the figures and the snapshot; the others, whose figures were
    /// not seen, their time. A start row `beginsFromNothing` holds an empty text, whatever the
    /// file holds by now. `isDue` writes a row of the running session in any case (the file was saved).
    /// The rows written go to the outbox too, when the document's assignment asks for process
    /// evidence (``OutboxTable/enqueueHistory(ofActivity:written:removed:at:in:)``).
    static func recordIfDue(
        activityID: Int64, endedSpans: [EndedSpan], at now: Double, beginsFromNothing: Bool = false,
        isDue: Bool = false, in db: Database
    ) throws {
        var written: [Int64] = [], removed: [Int64] = []
        try writeRowIfDue(
            activityID: activityID, endedSpans: endedSpans, at: now, beginsFromNothing: beginsFromNothing, isDue: isDue,
            written: &written, removed: &removed, in: db)
        try OutboxTable.enqueueHistory(ofActivity: activityID, written: written, removed: removed, at: now, in: db)
    }

    /// What ``recordIfDue(activityID:endedSpans:at:beginsFromNothing:isDue:in:)`` writes, noting
    /// the ids of the rows written and removed.
    private static func writeRowIfDue(
        activityID: Int64, endedSpans: [EndedSpan], at now: Double, beginsFromNothing: Bool,
        isDue: Bool, written: inout [Int64], removed: inout [Int64], in db: Database
    ) throws {
        var ends: [String: Double] = [:]
        for span in endedSpans { ends[span.session] = max(ends[span.session] ?? span.end, span.end) }
        if !ends.isEmpty {
            for running in try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT coalesce(session_id, id) FROM time_span INDEXED BY time_span_running
                        WHERE activity_id = ? AND ended_at IS NULL
                        """), arguments: [activityID])
            {
                ends[running] = nil
            }
        }
        var sessions = try ends.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map { session, end in
            (id: session, start: try sessionStart(session, ofActivity: activityID, in: db) ?? end, end: Optional(end))
        }
        // A new file's history begins from nothing even when the save that first records it also
        // ends its session (an editor's open, save and close that waited for the file together).
        let hasRows =
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT 1 FROM writing_history WHERE activity_id = ? LIMIT 1
                        """), arguments: [activityID]) != nil
        let beginsHere = beginsFromNothing && !sessions.isEmpty && !hasRows
        var isStart = false
        if sessions.isEmpty {
            // The running spans of the whole store are few: read through their index, not through
            // the activity's, which holds every span of a long history.
            guard
                let running = try String.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT coalesce(session_id, id) FROM time_span INDEXED BY time_span_running
                            WHERE activity_id = ? AND ended_at IS NULL ORDER BY started_at LIMIT 1
                            """), arguments: [activityID])
            else { return }
            let last = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT id, recorded_at, session_id, session_end IS NULL AND NOT is_start FROM writing_history
                        WHERE activity_id = ? ORDER BY id DESC LIMIT 1
                        """), arguments: [activityID])
            // Most saves write no row: they are told so before the session's start is looked up.
            if let last, !isDue, now - (last[1] as Double) < WritingHistory.interval { return }
            let start = try sessionStart(running, ofActivity: activityID, in: db) ?? now
            if let last {
                let recordedAt: Double = last[1]
                guard isDue || now - max(recordedAt, start) >= WritingHistory.interval else { return }
                // Saves come as often as an editor autosaves: the row of a save in the same minute
                // of the running session (counted from its start) as its last row replaces that
                // row (the last of the chain of snapshots, so the new one is taken from the one
                // before); a save in the next minute keeps it.
                if isDue, last[3] as Bool, last[2] as String? == running,
                    ((now - start) / savesApart).rounded(.down) == ((recordedAt - start) / savesApart).rounded(.down)
                {
                    try db.cachedStatement(sql: "DELETE FROM writing_history WHERE id = ?").execute(arguments: [last[0] as Int64])
                    removed.append(last[0])
                }
            } else {
                isStart = true
            }
            sessions = [(running, start, nil)]
        }
        // The activity's time up to the rows' moments, from the spans since its last measure.
        var activeTime = try SettledTime(ofActivity: activityID, in: db)
        let ranges = try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT lower_bound, upper_bound FROM progress_range WHERE activity_id = ?
                        """), arguments: [activityID]
            ).map { row -> ClosedRange<Double> in
                let lower: Double = row[0], upper: Double = row[1]
                return lower...max(lower, upper)
            })
        var quantities: [String: Double] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT identifier, quantity FROM activity_item WHERE activity_id = ? AND kind = 'quantity'
                    """), arguments: [activityID])
        {
            if let quantity = row[1] as Double? { quantities[row[0]] = quantity }
        }
        /// Writes the session's row: its start (the time and text before it), or how far it came.
        func insertRow(isStart: Bool, of session: (id: String, start: Double, end: Double?)) throws {
            // A start from nothing holds no text and no figures, whatever the file holds by now.
            let fromNothing = isStart && beginsFromNothing
            let snapshot = try takeSnapshot(ofActivity: activityID, content: fromNothing ? [] : nil, in: db)
            func figure(_ identifier: String) -> Double? { fromNothing ? nil : quantities[identifier] }
            // An empty file has no words, whether or not anything counted them yet.
            let words = figure(ItemIdentifier.wordCount) ?? (snapshot?.size == 0 ? 0 : nil)
            let characters = figure(ItemIdentifier.characters) ?? (snapshot?.size == 0 ? 0 : nil)
            try db.cachedStatement(
                sql: """
                    INSERT INTO writing_history (activity_id, recorded_at, session_id, session_start, session_end, is_start, active_seconds,
                        open_seconds, words, characters, typed, pasted, largest_paste, progress, content_size, content_digest, content_delta,
                        is_keyframe, moved)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                activityID, now, session.id, session.start, session.end, isStart,
                try activeTime.time(until: isStart ? session.start : session.end ?? now, in: db),
                figure(ItemIdentifier.openTime), words, characters,
                figure(ItemIdentifier.typedCharacters), figure(ItemIdentifier.pastedCharacters),
                figure(ItemIdentifier.largestPaste), fromNothing ? 0 : min(1, max(0, IntervalSet(ranges).measure)),
                snapshot?.size, snapshot?.digest, snapshot?.delta, snapshot?.isKeyframe ?? false,
                figure(ItemIdentifier.movedCharacters)
            ])
            written.append(db.lastInsertedRowID)
        }
        if beginsHere, let first = sessions.first {
            try insertRow(isStart: true, of: first)
        }
        for session in sessions.dropLast() {
            let until = session.end ?? now
            try db.cachedStatement(
                sql: """
                    INSERT INTO writing_history (activity_id, recorded_at, session_id, session_start, session_end, active_seconds)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [activityID, until, session.id, session.start, session.end, try activeTime.time(until: until, in: db)])
            written.append(db.lastInsertedRowID)
        }
        let session = sessions[sessions.count - 1]
        try insertRow(isStart: isStart, of: session)
        // A new file first recorded at its save (an editor's open waited for it): after its start
        // from nothing, the row of the text saved.
        if isStart && beginsFromNothing && isDue { try insertRow(isStart: false, of: session) }
        try activeTime.settle(at: now, in: db)
    }

    /// When a session began: its first span's start (found by the span's key and the index of
    /// `session_id`, not by reading every span of the activity: without `INDEXED BY`, SQLite
    /// takes the index by activity, and a save ending a session of a file with 10,000 took 1 ms).
    static func sessionStart(_ session: String, ofActivity activityID: Int64, in db: Database) throws -> Double? {
        try Double.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT min(started_at) FROM (
                        SELECT started_at FROM time_span WHERE id = ?1 AND activity_id = ?2
                        UNION ALL SELECT started_at FROM time_span INDEXED BY time_span_by_session
                        WHERE session_id = ?1 AND activity_id = ?2)
                    """), arguments: [session, activityID])
    }

    // MARK: Snapshots

    /// The file's content as a delta from the last snapshot, or a keyframe; nil when the activity
    /// has no file, or its file is gone, unreadable, too large or not text.
    /// - Parameter content: The text to keep instead of the file's.
    private static func takeSnapshot(ofActivity activityID: Int64, content given: [UInt8]? = nil, in db: Database)
        throws -> (size: Int, digest: Data, delta: Data, isKeyframe: Bool)?
    {
        guard keepsSnapshots,
            let path = try Data.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT c.path FROM activity a JOIN context c ON c.id = a.context_id WHERE a.id = ?
                        """), arguments: [activityID]),
            let content = given ?? readText(at: [UInt8](path))
        else { return nil }
        let digest = Self.digest(of: content)
        // The file as the last snapshot holds it (most session ends change nothing: a buffer left
        // and entered again): a delta that copies it all, without rebuilding anything.
        let last = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT content_digest, content_size FROM writing_history
                    WHERE activity_id = ? AND content_delta IS NOT NULL ORDER BY id DESC LIMIT 1
                    """), arguments: [activityID])
        if let last, last[0] as Data == digest, last[1] as Int == content.count {
            return (
                content.count, digest, ContentDelta(operations: content.isEmpty ? [] : [.copy(offset: 0, count: content.count)]).encoded(),
                false
            )
        }
        var base: [UInt8] = [], isKeyframe = true
        if let earlier = try lastContent(ofActivity: activityID, in: db), earlier.deltas < longestChain,
            earlier.rebuiltBytes + content.count <= longestRebuild,
            earlier.deltaBytes < chainToKeyframe * max(earlier.keyframeBytes, 4096)
        {
            (base, isKeyframe) = (earlier.content, false)
        }
        return (content.count, digest, ContentDelta(from: base, to: content).encoded(), isKeyframe)
    }

    /// The content of the last snapshot; how many deltas of how many bytes follow the keyframe of
    /// how many, and the bytes of content the chain makes; nil when there is none, or the
    /// snapshots cannot rebuild it (the next one is then a keyframe).
    private static func lastContent(ofActivity activityID: Int64, in db: Database)
        throws -> (content: [UInt8], deltas: Int, deltaBytes: Int, keyframeBytes: Int, rebuiltBytes: Int)?
    {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT content_delta, content_digest, is_keyframe FROM writing_history
                    WHERE activity_id = ? AND content_delta IS NOT NULL
                      AND id >= coalesce((SELECT max(id) FROM writing_history WHERE activity_id = ? AND is_keyframe = 1), 0)
                    ORDER BY id
                    """), arguments: [activityID, activityID])
        var content: [UInt8]?, digest = Data(), deltas = 0, deltaBytes = 0, keyframeBytes = 0, rebuiltBytes = 0
        while let row = try rows.next() {
            let isKeyframe: Bool = row[2], encoded: Data = row[0]
            if isKeyframe { keyframeBytes = encoded.count } else { (deltas, deltaBytes) = (deltas + 1, deltaBytes + encoded.count) }
            guard let delta = try? ContentDelta(decoding: encoded),
                let applied = try? delta.applied(to: isKeyframe ? [] : content ?? [])
            else { return nil }
            content = applied.content
            rebuiltBytes += applied.content.count
            digest = row[1]
        }
        guard let content, Self.digest(of: content) == digest else { return nil }
        return (content, deltas, deltaBytes, keyframeBytes, rebuiltBytes)
    }

    /// False when `CLSFILE_SNAPSHOTS` is `off` (or `0`, `no`, `false`): the history keeps its
    /// figures, and no text.
    static var keepsSnapshots: Bool {
        guard let value = getenv("CLSFILE_SNAPSHOTS") else { return true }
        return !["off", "0", "no", "false"].contains(String(cString: value).lowercased())
    }

    /// Deletes an activity's history, or only the snapshots of its text; returns how many rows it changed.
    static func forget(ofActivity activityID: Int64, keepingFigures: Bool, in db: Database) throws -> Int {
        if keepingFigures {
            try db.execute(
                sql: """
                    UPDATE writing_history SET content_size = NULL, content_digest = NULL, content_delta = NULL, is_keyframe = 0
                    WHERE activity_id = ? AND content_delta IS NOT NULL
                    """, arguments: [activityID])
        } else {
            try db.execute(sql: "DELETE FROM writing_history WHERE activity_id = ?", arguments: [activityID])
        }
        return db.changesCount
    }

    /// The first 16 bytes of the content's SHA-256: enough to tell a rebuilt snapshot from a wrong one.
    static func digest(of content: [UInt8]) -> Data {
        Data(SHA256.hash(data: content).prefix(16))
    }

    /// The bytes of a regular file of at most ``WritingHistory/largestSnapshot`` bytes whose first
    /// 8 KiB hold no NUL byte (text, as `diff` and `git` tell it); nil otherwise.
    static func readText(at path: [UInt8]) -> [UInt8]? {
        let descriptor = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            info.st_size <= WritingHistory.largestSnapshot
        else { return nil }
        var content = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var filled = 0
        while filled < content.count {
            let count = content.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            filled += count
        }
        // Grown past its size while read: too large, or being written; the next row tries again.
        guard filled <= Int(info.st_size) else { return nil }
        content.removeLast(content.count - filled)
        guard !content.prefix(8192).contains(0) else { return nil }
        return content
    }

    // MARK: Reading

    /// The columns ``entry(from:)`` reads.
    static let entryColumns = """
        recorded_at, session_start, session_end, active_seconds, open_seconds, words, characters, typed, pasted,
        largest_paste, progress, content_size, session_id, is_start, moved
        """

    /// Reads ``entryColumns``, the first at `offset`.
    static func entry(from row: Row, at offset: Int = 0) -> WritingHistoryEntry {
        func count(_ index: Int) -> Int? {
            (row[offset + index] as Double?).flatMap { $0.isFinite && abs($0) < 1e15 ? Int($0.rounded()) : nil }
        }
        return WritingHistoryEntry(
            date: Date(timeIntervalSince1970: row[offset]), sessionStart: Date(timeIntervalSince1970: row[offset + 1]),
            sessionEnd: (row[offset + 2] as Double?).map(Date.init(timeIntervalSince1970:)),
            activeTime: row[offset + 3], openTime: row[offset + 4], words: count(5), characters: count(6),
            typedCharacters: count(7), pastedCharacters: count(8), largestPaste: count(9),
            progress: row[offset + 10], snapshotSize: row[offset + 11], sessionIdentifier: row[offset + 12],
            isSessionStart: row[offset + 13], movedCharacters: count(14))
    }

    /// Every row of an activity, oldest first.
    static func entries(ofActivity activityID: Int64, in db: Database) throws -> [WritingHistoryEntry] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(entryColumns) FROM writing_history WHERE activity_id = ? ORDER BY id
                """, arguments: [activityID]
        ).map { entry(from: $0) }
    }

    /// Rows of an activity as process evidence carries them, oldest first: those of `ids`, or
    /// every row (nil); with their snapshots when `withSnapshots`.
    static func evidenceRows(ofActivity activityID: Int64, ids: [Int64]?, withSnapshots: Bool, in db: Database) throws
        -> [SyncOperation.HistoryRow]
    {
        let chosen = try ids.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, CASE WHEN ?3 THEN content_delta END, CASE WHEN ?3 THEN content_digest END, is_keyframe,
                    \(entryColumns)
                FROM writing_history
                WHERE activity_id = ?1 AND (?2 IS NULL OR id IN (SELECT value FROM json_each(?2))) ORDER BY id
                """, arguments: [activityID, chosen, withSnapshots]
        ).map { row in
            let figures = HistoryTable.entry(from: row, at: 4)
            guard let delta = row[1] as Data?, let digest = row[2] as Data? else {
                return SyncOperation.HistoryRow(id: row[0], entry: figures)
            }
            return SyncOperation.HistoryRow(
                id: row[0], entry: figures,
                snapshot: WritingSnapshotRecord(entry: figures, delta: delta, digest: digest, isKeyframe: row[3]))
        }
    }

    /// Up to `limit` snapshot rows of an activity after the row `id`, oldest first.
    static func snapshotRows(ofActivity activityID: Int64, after id: Int64, limit: Int, in db: Database) throws -> [SnapshotRow] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, content_delta, content_digest, is_keyframe, \(entryColumns) FROM writing_history
                WHERE activity_id = ? AND id > ? AND content_delta IS NOT NULL ORDER BY id LIMIT ?
                """, arguments: [activityID, id, limit]
        ).map { row in
            SnapshotRow(
                id: row[0], delta: row[1], digest: row[2], isKeyframe: row[3],
                entry: entry(from: row, at: 4))
        }
    }
}

/// One stored snapshot, before it is applied.
struct SnapshotRow: Sendable {
    var id: Int64
    var delta: Data
    var digest: Data
    var isKeyframe: Bool
    var entry: WritingHistoryEntry
}
