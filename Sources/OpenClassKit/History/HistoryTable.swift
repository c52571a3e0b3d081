import Crypto
import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// The rows of `writing_history`: written in the transaction of the save that makes them due, so
/// that the wrapper, every plugin and every program using the library write them alike.
enum HistoryTable {
    /// When the next snapshot is a keyframe again: once rebuilding the content from the last one
    /// would copy more than this many bytes (deltas × content size: 64 MiB, some 20 ms, which a
    /// 2 MiB file reaches after 32 deltas and an essay of 30 KB after 2,000) …
    static let longestRebuild = 64 << 20
    /// … or once the deltas since it take this many times its own size (and 4 KiB at least):
    /// keyframes then grow geometrically, and all of them together take about a third of the
    /// deltas' bytes more.
    static let chainToKeyframe = 4

    /// Writes a row when one is due: the save ended a session (`endedSpans`), or a session runs
    /// and the last row is ``WritingHistory/interval`` old or more. Of sessions ended together,
    /// the last gets the figures and the snapshot; the others, whose figures were not seen, their time.
    static func recordIfDue(activityID: Int64, endedSpans: [(start: Double, end: Double)], at now: Double, in db: Database) throws {
        var sessions = endedSpans.sorted { $0.end < $1.end }.map { (start: $0.start, end: Optional($0.end)) }
        if sessions.isEmpty {
            guard let start = try Double.fetchOne(db.cachedStatement(sql: """
                SELECT min(started_at) FROM time_span WHERE activity_id = ? AND ended_at IS NULL
                """), arguments: [activityID]) else { return }
            let last = try Double.fetchOne(db.cachedStatement(sql: """
                SELECT max(recorded_at) FROM writing_history WHERE activity_id = ?
                """), arguments: [activityID]) ?? start
            guard now - max(last, start) >= WritingHistory.interval else { return }
            sessions = [(start, nil)]
        }
        let spans = try Array(Row.fetchCursor(db.cachedStatement(sql: """
            SELECT started_at, ended_at, last_pulse_at FROM time_span WHERE activity_id = ?
            """), arguments: [activityID]).map { row in
            SpanRecord(id: "", start: row[0], end: row[1], lastPulse: row[2], owner: nil)
        })
        for session in sessions.dropLast() {
            // The time up to that session's end: later spans, and later parts of spans, left out.
            let until = session.end ?? now
            let earlier = spans.filter { $0.start < until }.map { span in
                var clipped = span
                clipped.end = min(span.end ?? span.lastPulse, until)
                return clipped
            }
            try db.cachedStatement(sql: """
                INSERT INTO writing_history (activity_id, recorded_at, session_start, session_end, active_seconds)
                VALUES (?, ?, ?, ?, ?)
                """).execute(arguments: [activityID, until, session.start, session.end, SpanRecord.measure(of: earlier)])
        }
        let session = sessions[sessions.count - 1]
        let ranges = try Array(Row.fetchCursor(db.cachedStatement(sql: """
            SELECT lower_bound, upper_bound FROM progress_range WHERE activity_id = ?
            """), arguments: [activityID]).map { row -> ClosedRange<Double> in
            let lower: Double = row[0], upper: Double = row[1]
            return lower...max(lower, upper)
        })
        var quantities: [String: Double] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT identifier, quantity FROM activity_item WHERE activity_id = ? AND kind = 'quantity'
            """), arguments: [activityID]) {
            if let quantity = row[1] as Double? { quantities[row[0]] = quantity }
        }
        let snapshot = try takeSnapshot(ofActivity: activityID, in: db)
        try db.cachedStatement(sql: """
            INSERT INTO writing_history (activity_id, recorded_at, session_start, session_end, active_seconds, open_seconds,
                words, characters, typed, pasted, largest_paste, progress, content_size, content_digest, content_delta, is_keyframe)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                activityID, now, session.start, session.end, SpanRecord.measure(of: spans),
                quantities[ItemIdentifier.openTime], quantities[ItemIdentifier.wordCount], quantities[ItemIdentifier.characters],
                quantities[ItemIdentifier.typedCharacters], quantities[ItemIdentifier.pastedCharacters],
                quantities[ItemIdentifier.largestPaste], min(1, max(0, IntervalSet(ranges).measure)),
                snapshot?.size, snapshot?.digest, snapshot?.delta, snapshot?.isKeyframe ?? false,
            ])
    }

    // MARK: Snapshots

    /// The file's content as a delta from the last snapshot, or a keyframe; nil when the activity
    /// has no file, or its file is gone, unreadable, too large or not text.
    private static func takeSnapshot(ofActivity activityID: Int64, in db: Database)
        throws -> (size: Int, digest: Data, delta: Data, isKeyframe: Bool)? {
        guard let path = try Data.fetchOne(db.cachedStatement(sql: """
            SELECT c.path FROM activity a JOIN context c ON c.id = a.context_id WHERE a.id = ?
            """), arguments: [activityID]),
              let content = readText(at: [UInt8](path)) else { return nil }
        let digest = Self.digest(of: content)
        var base: [UInt8] = [], isKeyframe = true
        if let earlier = try lastContent(ofActivity: activityID, in: db),
           earlier.deltas * max(1, earlier.content.count) < longestRebuild,
           earlier.deltaBytes < chainToKeyframe * max(earlier.keyframeBytes, 4096) {
            (base, isKeyframe) = (earlier.content, false)
        }
        return (content.count, digest, ContentDelta(from: base, to: content).encoded(), isKeyframe)
    }

    /// The content of the last snapshot, and how many deltas of how many bytes follow the
    /// keyframe of how many; nil when there is none, or the snapshots cannot rebuild it (the next
    /// one is then a keyframe).
    private static func lastContent(ofActivity activityID: Int64, in db: Database)
        throws -> (content: [UInt8], deltas: Int, deltaBytes: Int, keyframeBytes: Int)? {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT content_delta, content_digest, is_keyframe FROM writing_history
            WHERE activity_id = ? AND content_delta IS NOT NULL
              AND id >= coalesce((SELECT max(id) FROM writing_history WHERE activity_id = ? AND is_keyframe = 1), 0)
            ORDER BY id
            """), arguments: [activityID, activityID])
        var content: [UInt8]?, digest = Data(), deltas = 0, deltaBytes = 0, keyframeBytes = 0
        while let row = try rows.next() {
            let isKeyframe: Bool = row[2], encoded: Data = row[0]
            if isKeyframe { keyframeBytes = encoded.count } else { (deltas, deltaBytes) = (deltas + 1, deltaBytes + encoded.count) }
            guard let delta = try? ContentDelta(decoding: encoded),
                  let applied = try? delta.applied(to: isKeyframe ? [] : content ?? []) else { return nil }
            content = applied.content
            digest = row[1]
        }
        guard let content, Self.digest(of: content) == digest else { return nil }
        return (content, deltas, deltaBytes, keyframeBytes)
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
              info.st_size <= WritingHistory.largestSnapshot else { return nil }
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
        largest_paste, progress, content_size
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
            progress: row[offset + 10], snapshotSize: row[offset + 11])
    }

    /// Every row of an activity, oldest first.
    static func entries(ofActivity activityID: Int64, in db: Database) throws -> [WritingHistoryEntry] {
        try Row.fetchAll(db, sql: """
            SELECT \(entryColumns) FROM writing_history WHERE activity_id = ? ORDER BY id
            """, arguments: [activityID]).map { entry(from: $0) }
    }

    /// Up to `limit` snapshot rows of an activity after the row `id`, oldest first.
    static func snapshotRows(ofActivity activityID: Int64, after id: Int64, limit: Int, in db: Database) throws -> [SnapshotRow] {
        try Row.fetchAll(db, sql: """
            SELECT id, content_delta, content_digest, is_keyframe, \(entryColumns) FROM writing_history
            WHERE activity_id = ? AND id > ? AND content_delta IS NOT NULL ORDER BY id LIMIT ?
            """, arguments: [activityID, id, limit]).map { row in
            SnapshotRow(id: row[0], delta: row[1], digest: row[2], isKeyframe: row[3],
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
