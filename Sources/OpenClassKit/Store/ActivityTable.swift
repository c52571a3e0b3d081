import Foundation
import ProgramBasics
internal import GRDB

/// The `activity` table and the tables that hang off it (`time_span`, `progress_range`,
/// `activity_item`): reading a file's activity whole, making one, and writing a save's changes.
/// Each call runs inside a transaction its caller holds.
enum ActivityTable {
    /// The current activity recorded at a canonical path, whatever file is there now.
    static func lookUp(_ path: [UInt8], in db: Database) throws -> ActivityRecord? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT a.id FROM context c JOIN activity a ON a.context_id = c.id
                    WHERE c.path = ? ORDER BY a.attempt DESC LIMIT 1
                    """), arguments: [Data(path)])
        guard let activityID: Int64 = row?[0] else { return nil }
        return try load(activityID, in: db)
    }

    /// The file's activity; a moved file keeps its history; a new file gets a context and an activity.
    static func findOrCreate(_ file: FileIdentity, appIdentifier: String, in db: Database) throws -> ActivityRecord {
        let now = Date().timeIntervalSince1970
        let pathData = Data(file.path)
        let display = PathBytes.display(file.path)
        if let found = try lookUp(file.path, in: db) {
            if found.file != file {
                try db.execute(
                    sql: "UPDATE context SET device = ?, inode = ?, modified_at = ? WHERE id = ?",
                    arguments: [Int64(bitPattern: file.device), Int64(bitPattern: file.inode), now, found.contextID])
            }
            return try load(found.activityID, in: db)
        }
        let candidates = try Row.fetchAll(
            db,
            sql: """
                SELECT id, path FROM context WHERE device = ? AND inode = ? AND path IS NOT NULL
                """, arguments: [Int64(bitPattern: file.device), Int64(bitPattern: file.inode)])
        for candidate in candidates {
            let oldPath = [UInt8](candidate["path"] as Data)
            guard !FileIdentity.fileExists(at: oldPath, device: file.device, inode: file.inode) else { continue }
            let contextID: Int64 = candidate["id"]
            // A plain file context is named after its path; a course's document keeps its identifier and title.
            try db.execute(
                sql: """
                    UPDATE context SET path = ?,
                        title = CASE WHEN course_document = 0 THEN ? ELSE title END,
                        identifier = CASE WHEN course_document = 0 THEN ? ELSE identifier END, modified_at = ?
                    WHERE id = ?
                    """, arguments: [pathData, PathBytes.fileName(of: file.path), display, now, contextID])
            if let moved = try lookUp(file.path, in: db) { return moved }
        }
        let rootID = try ContextTable.rootID(appIdentifier: appIdentifier, in: db)
        try db.execute(
            sql: """
                INSERT INTO context (parent_id, identifier, type, title, path, device, inode, created_at, modified_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                rootID, display, CLSContextType.document.rawValue, PathBytes.fileName(of: file.path), pathData,
                Int64(bitPattern: file.device), Int64(bitPattern: file.inode), now, now
            ])
        let contextID = db.lastInsertedRowID
        try db.execute(
            sql: "INSERT INTO activity (context_id, attempt, created_at, modified_at) VALUES (?, 1, ?, ?)",
            arguments: [contextID, now, now])
        return try load(db.lastInsertedRowID, in: db)
    }

    /// Reads one activity with its spans, ranges and items.
    static func load(_ activityID: Int64, in db: Database) throws -> ActivityRecord {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT \(activityColumns), c.title FROM activity a JOIN context c ON c.id = a.context_id WHERE a.id = ?
                        """), arguments: [activityID])
        else {
            throw CLSError(.invalidUpdate, "activity \(activityID) vanished from the store while being read; try again")
        }
        var record = activityRecord(from: row)
        record.contextTitle = row.text(9)
        try placeContext(of: &record, in: db)
        record.spans = try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(spanColumns) FROM time_span WHERE activity_id = ?
                        """), arguments: [activityID]
            ).map(spanRecord(from:)))
        record.ranges = try ranges(of: activityID, in: db)
        record.items = try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(itemColumns) FROM activity_item WHERE activity_id = ? ORDER BY created_at, identifier
                        """), arguments: [activityID]
            ).map(itemRecord(from:)))
        return record
    }

    /// The current activity of a file and its `modified_at`, or nil when it has none or another
    /// file (another device or inode) is at its path now; reads one row.
    static func version(of file: FileIdentity, in db: Database) throws -> (activityID: Int64, modifiedAt: Double)? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT a.id, a.modified_at, c.device, c.inode FROM context c JOIN activity a ON a.context_id = c.id
                    WHERE c.path = ? ORDER BY a.attempt DESC LIMIT 1
                    """), arguments: [Data(file.path)]
        ).flatMap { row -> (activityID: Int64, modifiedAt: Double)? in
            // A file replaced under the same path is read in full, which notes its new identity.
            let device: Int64? = row[2], inode: Int64? = row[3]
            guard device == Int64(bitPattern: file.device), inode == Int64(bitPattern: file.inode) else { return nil }
            return (row[0], row[1])
        }
    }

    /// The activity whose running span started last, by any process.
    static func runningLatest(in db: Database) throws -> ActivityRecord? {
        try Int64.fetchOne(
            db,
            sql: """
                SELECT activity_id FROM time_span WHERE ended_at IS NULL ORDER BY started_at DESC LIMIT 1
                """
        ).map { try load($0, in: db) }
    }

    /// The newest attempt of a context; nil when it has none.
    static func newestAttempt(ofContext contextID: Int64, in db: Database) throws -> ActivityRecord? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM activity WHERE context_id = ? ORDER BY attempt DESC LIMIT 1"),
            arguments: [contextID]
        ).map { try load($0, in: db) }
    }

    /// Adds an attempt after a context's newest; the running spans of the earlier attempts end at
    /// their last pulse, so the earlier attempts stop for good.
    static func addAttempt(ofContext contextID: Int64, at now: Double, in db: Database) throws -> ActivityRecord {
        guard try Int64.fetchOne(db, sql: "SELECT 1 FROM context WHERE id = ?", arguments: [contextID]) != nil else {
            throw CLSError(
                .invalidCreate,
                "the context of a new activity was removed from the store before the activity was saved; make the activity again under a context that is in the tree"
            )
        }
        try db.execute(
            sql: """
                UPDATE time_span SET ended_at = last_pulse_at, owner_host = NULL, owner_boot = NULL, owner_pid = NULL, owner_start = NULL
                WHERE ended_at IS NULL AND activity_id IN (SELECT id FROM activity WHERE context_id = ?)
                """, arguments: [contextID])
        try db.execute(sql: "UPDATE activity SET modified_at = ? WHERE context_id = ?", arguments: [now, contextID])
        try db.execute(
            sql: """
                INSERT INTO activity (context_id, attempt, created_at, modified_at)
                VALUES (?, (SELECT coalesce(max(attempt), 0) + 1 FROM activity WHERE context_id = ?), ?, ?)
                """, arguments: [contextID, contextID, now, now])
        let activityID = db.lastInsertedRowID
        // The work starts again: so does a class server's copy of it.
        try OutboxTable.enqueueSnapshot(ofActivity: activityID, at: now, in: db)
        return try load(activityID, in: db)
    }

    /// Ends, at its last pulse, a running span whose process is gone; the session it left gets
    /// its figures and its history row, with the file as it was left.
    static func endAbandonedSpan(_ id: String, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE time_span SET ended_at = last_pulse_at,
                    owner_host = NULL, owner_boot = NULL, owner_pid = NULL, owner_start = NULL
                WHERE id = ? AND ended_at IS NULL
                """, arguments: [id])
        let ended = db.changesCount > 0
        if ended { try OutboxTable.enqueueEndedSpan(id, at: Date().timeIntervalSince1970, in: db) }
        // Every change of an activity moves its modified_at: other views know to read it again.
        try db.execute(
            sql: """
                UPDATE activity SET modified_at = ? WHERE id = (SELECT activity_id FROM time_span WHERE id = ?)
                """, arguments: [Date().timeIntervalSince1970, id])
        // The session a dead process left ended: its figures and its history row, with the
        // file as it was left.
        if ended { try recordAbandonedSession(ofSpan: id, in: db) }
        if ended,
            let span = try Row.fetchOne(
                db,
                sql: """
                    SELECT activity_id, started_at, ended_at, coalesce(session_id, id) FROM time_span WHERE id = ?
                    """, arguments: [id])
        {
            try HistoryTable.recordIfDue(
                activityID: span[0],
                endedSpans: [HistoryTable.EndedSpan(id: id, session: span[3], start: span[1], end: span[2])],
                at: Date().timeIntervalSince1970, in: db)
        }
    }

    /// Records what the session of a span a dead process left had not, in a program that records
    /// editor sessions (one that set ``CLSDataStore/measureFilesOfAbandonedSessions(with:)``): the
    /// open time from the session's start to the span's end, and the word and character counts
    /// of its file as the measurer gives them.
    private static func recordAbandonedSession(ofSpan id: String, in db: Database) throws {
        guard AbandonedSessions.isRecorded,
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT a.id, c.path, (SELECT identifier FROM activity_item WHERE activity_id = a.id AND role = 'primary'),
                        EXISTS (SELECT 1 FROM activity_item WHERE activity_id = a.id AND identifier = ? AND binary_value = 1),
                        coalesce(s.session_id, s.id), s.ended_at,
                        (SELECT quantity FROM activity_item WHERE activity_id = a.id AND identifier = ?)
                    FROM time_span s JOIN activity a ON a.id = s.activity_id JOIN context c ON c.id = a.context_id WHERE s.id = ?
                    """, arguments: [ItemIdentifier.reading, ItemIdentifier.openTime, id])
        else { return }
        let activityID: Int64 = row[0], primary: String? = row[2], isReading: Bool = row[3], openTime: Double? = row[6]
        let ended: Double? = row[5]
        let opened = try HistoryTable.sessionStart(row[4], ofActivity: activityID, in: db).flatMap { start in ended.map { $0 - start } }
        let now = Date().timeIntervalSince1970
        var change = ActivityChanges(activityID: activityID)
        func item(_ identifier: String, _ title: String, _ value: Double, role: ItemRole) -> ItemRecord {
            ItemRecord(identifier: identifier, title: title, role: role, value: .quantity(value), createdAt: now, modifiedAt: now)
        }
        // Its editor was open at least until the session's last sign of work.
        if let opened, opened > 0 {
            change.upserts.append(item(ItemIdentifier.openTime, "Open Time", (openTime ?? 0) + opened, role: .additional))
        }
        if let path = row[1] as Data?, let figures = AbandonedSessions.figures(of: URL(fileSystemPathBytes: [UInt8](path))) {
            // A primary item of another identifier is the program's own: only clsfile's word count
            // is set, and a file being read is not counted.
            if !isReading, primary == nil || primary == ItemIdentifier.wordCount {
                change.upserts.append(item(ItemIdentifier.wordCount, "Word Count", Double(figures.words), role: .primary))
            }
            change.upserts.append(item(ItemIdentifier.characters, "Characters", Double(figures.characters), role: .additional))
        }
        guard !change.upserts.isEmpty else { return }
        for record in change.upserts {
            if record.role == .primary { try replacePrimary(with: record, of: activityID, in: db) }
            try upsert(record, into: activityID, in: db)
        }
        // The class server, when the work is assigned, gets the figures as from any save.
        try OutboxTable.enqueue(change, dictated: [], at: now, in: db)
    }

    /// Reads the context chain of an activity whose context is not a plain file context under the
    /// main app context: an app's context, or a document of an imported course.
    /// - Parameter roots: The rows of the main app contexts, when the caller read them already.
    private static func placeContext(of record: inout ActivityRecord, roots: Set<Int64>? = nil, in db: Database) throws {
        if record.file != nil, let parentID = record.contextParentID {
            let isRoot =
                try roots.map { $0.contains(parentID) }
                ?? (Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT 1 FROM context WHERE id = ? AND parent_id IS NULL
                            """), arguments: [parentID]) != nil)
            if isRoot { return }
        }
        record.contextChain = try ContextTable.chain(to: record.contextID, in: db)
    }

    /// Reads every file activity, oldest first, one at a time: four queries read in step by activity,
    /// so memory holds one activity, however large the store. Spans read `forViewing` have no
    /// identifier and no owner: a million of them cost no million strings.
    static func forEachRecord(in db: Database, forViewing: Bool, _ body: (ActivityRecord) throws -> Void) throws {
        let roots = try Set(Int64.fetchAll(db, sql: "SELECT id FROM context WHERE parent_id IS NULL"))
        let activities = try StatementRows(
            db,
            sql: """
                SELECT \(activityColumns) FROM activity a JOIN context c ON c.id = a.context_id
                WHERE c.path IS NOT NULL AND a.attempt = (SELECT max(attempt) FROM activity WHERE context_id = c.id)
                ORDER BY a.id
                """)
        // The owning activity comes after the columns that the record is made of.
        var spans =
            forViewing
            ? try Following(db, columns: viewedSpanColumns, of: "time_span", read: viewedSpanRecord(from:))
            : try Following(db, columns: spanColumns, of: "time_span", read: spanRecord(from:))
        var ranges = try Following(db, columns: "lower_bound, upper_bound", of: "progress_range", read: range(from:))
        var items = try Following(db, columns: itemColumns, of: "activity_item", read: itemRecord(from:))
        while try activities.next() {
            var record = activityRecord(from: activities)
            try placeContext(of: &record, roots: roots, in: db)
            record.spans = try spans.take(record.activityID)
            record.ranges = try ranges.take(record.activityID).sorted { $0.lowerBound < $1.lowerBound }
            record.items = try items.take(record.activityID).sorted {
                ($0.createdAt, $0.identifier) < ($1.createdAt, $1.identifier)
            }
            try body(record)
        }
    }

    /// The rows of one table in activity order, taken an activity at a time.
    private struct Following<Value> {
        private let rows: StatementRows
        /// The position of `activity_id`, after the columns read.
        private let owner: Int
        private let read: (StatementRows) -> Value
        /// The first row not taken yet: its owner and value.
        private var next: (owner: Int64, value: Value)?
        private var started = false

        init(_ db: Database, columns: String, of table: String, read: @escaping (StatementRows) -> Value) throws {
            rows = try StatementRows(db, sql: "SELECT \(columns), activity_id FROM \(table) ORDER BY activity_id")
            owner = columns.split(separator: ",").count
            self.read = read
        }

        /// The values of `activityID`, skipping those of activities before it (older attempts).
        mutating func take(_ activityID: Int64) throws -> [Value] {
            if !started {
                started = true
                try advance()
            }
            var values: [Value] = []
            while let current = next, current.owner <= activityID {
                if current.owner == activityID { values.append(current.value) }
                try advance()
            }
            return values
        }

        private mutating func advance() throws {
            // The statement's row is replaced by the next step: read it now.
            next = try rows.next() ? (owner: rows.int64(owner), value: read(rows)) : nil
        }
    }

    static func write(_ change: ActivityChanges, at now: Double, in db: Database) throws {
        let activityID = change.activityID
        for id in change.discardedSpans {
            try db.execute(sql: "DELETE FROM time_span WHERE id = ? AND activity_id = ?", arguments: [id, activityID])
        }
        // The sessions this save ends: their history rows are due.
        var endedSpans: [HistoryTable.EndedSpan] = []
        var sessions: [String] = []
        for span in change.spans {
            let stored = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(spanColumns) FROM time_span WHERE id = ?"),
                arguments: [span.id]
            ).map(spanRecord(from:))
            let merged = stored?.merged(with: span) ?? span
            sessions.append(merged.session ?? merged.id)
            if stored?.end == nil, let end = merged.end {
                endedSpans.append(
                    HistoryTable.EndedSpan(id: merged.id, session: merged.session ?? merged.id, start: merged.start, end: end))
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO time_span (id, activity_id, started_at, ended_at, last_pulse_at,
                                           owner_host, owner_boot, owner_pid, owner_start, session_id, editor_run, awaits_input)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET ended_at = excluded.ended_at, last_pulse_at = excluded.last_pulse_at,
                        owner_host = excluded.owner_host, owner_boot = excluded.owner_boot,
                        owner_pid = excluded.owner_pid, owner_start = excluded.owner_start,
                        session_id = coalesce(time_span.session_id, excluded.session_id),
                        editor_run = coalesce(time_span.editor_run, excluded.editor_run),
                        awaits_input = time_span.awaits_input AND excluded.awaits_input
                    """
            ).execute(arguments: [
                merged.id, activityID, merged.start, merged.end, merged.lastPulse,
                merged.owner?.host, merged.owner?.bootID, merged.owner?.pid,
                merged.owner?.startTicks, merged.session, merged.editorRun, merged.awaitsInput
            ])
        }
        try writeProgress(of: change, in: db)
        if change.removesAllItems {
            try db.execute(sql: "DELETE FROM activity_item WHERE activity_id = ?", arguments: [activityID])
        }
        if change.clearsPrimary {
            try db.execute(sql: "DELETE FROM activity_item WHERE activity_id = ? AND role = 'primary'", arguments: [activityID])
        }
        for identifier in change.deletions {
            try db.execute(
                sql: "DELETE FROM activity_item WHERE activity_id = ? AND identifier = ?",
                arguments: [activityID, identifier])
        }
        for item in change.upserts {
            if item.role == .primary {
                try replacePrimary(with: item, of: activityID, in: db)
            }
            try upsert(item, into: activityID, in: db)
        }
        try db.cachedStatement(sql: "UPDATE activity SET modified_at = ? WHERE id = ?")
            .execute(arguments: [now, activityID])
        if change.marksDictation { try EvidenceTables.markDictated(sessions: sessions, ofActivity: activityID, at: now, in: db) }
        try OutboxTable.enqueue(change, dictated: change.marksDictation ? sessions : [], at: now, in: db)
        try HistoryTable.recordIfDue(
            activityID: activityID, endedSpans: endedSpans, at: now,
            beginsFromNothing: change.beginsHistoryFromNothing, isDue: change.recordsHistory, in: db)
    }

    /// Writes a new progress basis and ranges: a new basis (or a restart) clears the stored ranges.
    private static func writeProgress(of change: ActivityChanges, in db: Database) throws {
        guard change.progressBasis != nil || !change.ranges.isEmpty else { return }
        var storedBasis =
            try String?.fetchOne(
                db.cachedStatement(sql: "SELECT progress_basis FROM activity WHERE id = ?"),
                arguments: [change.activityID]) ?? nil
        if let basisChange = change.progressBasis, basisChange.clearsRanges(measuredUnder: storedBasis) {
            try db.execute(sql: "DELETE FROM progress_range WHERE activity_id = ?", arguments: [change.activityID])
            try db.execute(
                sql: "UPDATE activity SET progress_basis = ? WHERE id = ?",
                arguments: [basisChange.basis?.rawValue, change.activityID])
            storedBasis = basisChange.basis?.rawValue
        }
        // Ranges measured under a basis another process has since replaced measure nothing now.
        if !change.ranges.isEmpty, storedBasis == change.rangesBasis?.rawValue {
            for range in change.ranges {
                try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO progress_range (activity_id, lower_bound, upper_bound) VALUES (?, ?, ?)
                        """
                ).execute(arguments: [change.activityID, range.lowerBound, range.upperBound])
            }
            try compactRanges(of: change.activityID, in: db)
        }
    }

    /// Removes the old primary item; its subclass may not change, even after the item was
    /// cleared: the first primary item saved fixes it (`activity.primary_kind`).
    private static func replacePrimary(with item: ItemRecord, of activityID: Int64, in db: Database) throws {
        let held = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT primary_kind, (SELECT identifier FROM activity_item WHERE activity_id = a.id AND role = 'primary')
                    FROM activity a WHERE a.id = ?
                    """), arguments: [activityID])
        let fixed = held?[0] as String?
        if let kind = fixed, kind != item.value.kind {
            let path =
                try Data.fetchOne(
                    db,
                    sql: """
                        SELECT c.path FROM activity a JOIN context c ON c.id = a.context_id WHERE a.id = ?
                        """, arguments: [activityID]
                ).map { PathBytes.display([UInt8]($0)) } ?? "activity \(activityID)"
            throw CLSError(
                .invalidModification,
                "the primary item of \(path) is a \(kind) item; it cannot become a \(item.value.kind) item ('\(item.identifier)'): keep the \(kind) subclass, or add the new item as an additional item"
            )
        }
        if fixed == nil {
            try db.cachedStatement(sql: "UPDATE activity SET primary_kind = ? WHERE id = ?").execute(arguments: [
                item.value.kind, activityID
            ])
        }
        if let identifier = held?[1] as String?, identifier != item.identifier {
            try db.execute(
                sql: "DELETE FROM activity_item WHERE activity_id = ? AND identifier = ?",
                arguments: [activityID, identifier])
        }
    }

    private static func upsert(_ item: ItemRecord, into activityID: Int64, in db: Database) throws {
        var quantity: Double?, score: Double?, maxScore: Double?, binaryValue: Bool?, binaryType: Int?
        switch item.value {
        case .quantity(let value): quantity = value
        case .score(let value, let maximum): (score, maxScore) = (value, maximum)
        case .binary(let value, let type): (binaryValue, binaryType) = (value, type.rawValue)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO activity_item (activity_id, identifier, role, kind, title, quantity, score, max_score,
                                           binary_value, binary_type, created_at, modified_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(activity_id, identifier) DO UPDATE SET role = excluded.role, kind = excluded.kind,
                    title = excluded.title, quantity = excluded.quantity, score = excluded.score,
                    max_score = excluded.max_score, binary_value = excluded.binary_value,
                    binary_type = excluded.binary_type, modified_at = excluded.modified_at
                """
        ).execute(arguments: [
            activityID, item.identifier, item.role.rawValue, item.value.kind, item.title,
            quantity, score, maxScore, binaryValue, binaryType, item.createdAt, item.modifiedAt
        ])
    }

    /// Keeps the range table small: past a few dozen rows, an activity's ranges are replaced by their union.
    private static func compactRanges(of activityID: Int64, in db: Database) throws {
        let ranges = try ranges(of: activityID, in: db)
        let union = IntervalSet(ranges)
        guard ranges.count > 32, union.intervals.count < ranges.count else { return }
        try db.execute(sql: "DELETE FROM progress_range WHERE activity_id = ?", arguments: [activityID])
        for range in union.intervals {
            try db.execute(
                sql: "INSERT INTO progress_range (activity_id, lower_bound, upper_bound) VALUES (?, ?, ?)",
                arguments: [activityID, range.lowerBound, range.upperBound])
        }
    }

    // MARK: Rows

    // Rows are read by column position, in the order of the column lists below: looking a column up
    // by name compares lowercased names, once per column of every row, and an activity with a
    // long history has thousands of spans, all read on every save.

    /// The columns ``activityRecord(from:)`` reads, of `activity a` joined with `context c`.
    private static let activityColumns =
        "a.id, a.context_id, a.created_at, a.modified_at, c.path, c.device, c.inode, a.progress_basis, c.parent_id"

    private static func activityRecord(from row: some ColumnReader) -> ActivityRecord {
        ActivityRecord(
            activityID: row.int64(0), contextID: row.int64(1), contextParentID: row.optionalInt64(8),
            file: row.bytes(4).map { path in
                FileIdentity(
                    path: path, device: UInt64(bitPattern: row.optionalInt64(5) ?? 0),
                    inode: UInt64(bitPattern: row.optionalInt64(6) ?? 0))
            },
            createdAt: row.double(2), modifiedAt: row.double(3), progressBasis: row.text(7),
            spans: [], ranges: [], items: [])
    }

    /// The columns of `time_span` that ``spanRecord(from:)`` reads.
    private static let spanColumns =
        "id, started_at, ended_at, last_pulse_at, owner_host, owner_boot, owner_pid, owner_start, session_id, editor_run, awaits_input"

    private static func spanRecord(from row: some ColumnReader) -> SpanRecord {
        let owner: ProcessIdentity? = row.optionalInt64(6).map { pid in
            ProcessIdentity(host: row.text(4) ?? "", bootID: row.text(5) ?? "", pid: pid, startTicks: row.optionalInt64(7) ?? 0)
        }
        return SpanRecord(
            id: row.text(0) ?? "", start: row.double(1), end: row.optionalDouble(2), lastPulse: row.double(3),
            owner: owner, session: row.text(8), editorRun: row.text(9), awaitsInput: row.int64(10) != 0)
    }

    /// The columns of `time_span` that ``viewedSpanRecord(from:)`` reads.
    private static let viewedSpanColumns = "started_at, ended_at, last_pulse_at, session_id, awaits_input"

    /// A span to look at, never to save: without its identifier and owner.
    private static func viewedSpanRecord(from row: some ColumnReader) -> SpanRecord {
        SpanRecord(
            id: "", start: row.double(0), end: row.optionalDouble(1), lastPulse: row.double(2), owner: nil,
            session: row.text(3), awaitsInput: row.int64(4) != 0)
    }

    private static func ranges(of activityID: Int64, in db: Database) throws -> [ClosedRange<Double>] {
        try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT lower_bound, upper_bound FROM progress_range WHERE activity_id = ?
                        """), arguments: [activityID]
            ).map(range(from:)))
    }

    /// Reads the columns `lower_bound, upper_bound`.
    private static func range(from row: some ColumnReader) -> ClosedRange<Double> {
        let lower = row.double(0), upper = row.double(1)
        return lower...max(lower, upper)
    }

    /// The columns of `activity_item` that ``itemRecord(from:)`` reads.
    private static let itemColumns = """
        identifier, title, role, kind, quantity, score, max_score, binary_value, binary_type, created_at, modified_at
        """

    private static func itemRecord(from row: some ColumnReader) -> ItemRecord {
        let value: ItemValue
        switch ItemKind(rawValue: row.text(3) ?? "") {
        case .score: value = .score(row.optionalDouble(5) ?? 0, maxScore: row.optionalDouble(6) ?? 0)
        case .binary:
            value = .binary(
                (row.optionalInt64(7) ?? 0) != 0,
                CLSBinaryValueType(rawValue: Int(truncatingIfNeeded: row.optionalInt64(8) ?? 0)) ?? .trueFalse)
        case .quantity, nil: value = .quantity(row.optionalDouble(4) ?? 0)
        }
        return ItemRecord(
            identifier: row.text(0) ?? "", title: row.text(1) ?? "",
            role: ItemRole(rawValue: row.text(2) ?? "") ?? .additional, value: value,
            createdAt: row.double(9), modifiedAt: row.double(10))
    }
}
