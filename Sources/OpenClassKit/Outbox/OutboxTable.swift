import Foundation
internal import GRDB
internal import NIOConcurrencyHelpers

/// The store's side of syncing — `class_server`, `class_membership` and `outbox` — read and written inside a
/// transaction that ``SQLiteStorage`` opens.
enum OutboxTable {
    /// Writes the operation of one save of an activity, when the activity's document is assigned
    /// and the store joined a class of the teacher who handed it out; does nothing otherwise.
    /// - Parameter dictated: The sessions of the change's spans the save marks as written by dictation.
    static func enqueue(_ change: ActivityChanges, dictated: [String], at now: Double, in db: Database) throws {
        guard case (var operation, let classes)? = try emptyOperation(forActivity: change.activityID, at: now, in: db) else { return }
        operation.dictatedSessions = dictated.isEmpty ? nil : Array(Set(dictated)).sorted()
        operation.spans = change.spans.map(SyncOperation.Span.init)
        operation.discardedSpans = change.discardedSpans
        operation.progressBasisChange = change.progressBasis.map {
            SyncOperation.BasisChange(basis: $0.basis?.rawValue, restarts: $0.restarts)
        }
        operation.ranges = change.ranges.map { SyncOperation.Range(lower: $0.lowerBound, upper: $0.upperBound) }
        operation.rangesBasis = change.rangesBasis?.rawValue
        operation.removesAllItems = change.removesAllItems
        operation.clearsPrimary = change.clearsPrimary
        operation.deletedItems = change.deletions
        operation.items = change.upserts.map(SyncOperation.Item.init)
        try insert(operation, for: classes, in: db)
    }

    /// Writes an operation with everything an activity holds, which replaces the server's copy:
    /// what joining sends for work recorded before (to the class joined, `onlyClass`), and what
    /// an assignment tied to another file or a new attempt sends.
    static func enqueueSnapshot(ofActivity activityID: Int64, at now: Double, onlyClass: String? = nil, in db: Database) throws {
        guard case var (operation, classes)? = try emptyOperation(forActivity: activityID, at: now, in: db) else { return }
        if let onlyClass { classes = classes.filter { $0 == onlyClass } }
        operation.replacesWork = true
        let record = try ActivityTable.load(activityID, in: db)
        operation.spans = record.spans.map(SyncOperation.Span.init)
        operation.progressBasisChange = SyncOperation.BasisChange(basis: record.progressBasis, restarts: true)
        operation.ranges = record.ranges.map { SyncOperation.Range(lower: $0.lowerBound, upper: $0.upperBound) }
        operation.rangesBasis = record.progressBasis
        operation.removesAllItems = true
        operation.items = record.items.map(SyncOperation.Item.init)
        operation.completedAt = try Double.fetchOne(db, sql: "SELECT completed_at FROM activity WHERE id = ?", arguments: [activityID])
        operation.aiStatement = try ClassroomTables.aiStatement(ofAssignment: operation.assignmentIdentifier, in: db)
            .map(SyncOperation.AIStatementRecord.init)
        operation.evidenceWithdrawnAt = try Double.fetchOne(
            db, sql: "SELECT withdrawn_at FROM evidence_keeping WHERE assignment_id = ?", arguments: [operation.assignmentIdentifier])
        operation.notes = try EvidenceTables.notes(ofAssignment: operation.assignmentIdentifier, in: db).map(SyncOperation.NoteRecord.init)
        let dictated = try EvidenceTables.dictatedSessions(ofActivity: activityID, in: db)
        operation.dictatedSessions = dictated.isEmpty ? nil : dictated.sorted()
        try insert(operation, for: classes, in: db)
        try enqueueWholeHistory(ofActivity: activityID, after: operation, for: classes, in: db)
    }

    /// Writes a snapshot of the current attempt of a context's document, when it is assigned:
    /// after the assignment was tied to it, its document moved into it, or a new attempt began.
    static func enqueueSnapshot(ofContext contextID: Int64, at now: Double, in db: Database) throws {
        guard let activityID = try currentActivity(ofContext: contextID, in: db) else { return }
        try enqueueSnapshot(ofActivity: activityID, at: now, in: db)
    }

    /// The activity of the current attempt of a context's document; nil before its first.
    private static func currentActivity(ofContext contextID: Int64, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM activity WHERE context_id = ? ORDER BY attempt DESC LIMIT 1", arguments: [contextID])
    }

    /// An operation for the current attempt of a context's document, as
    /// ``emptyOperation(forActivity:at:in:)`` makes one; nil as it says, and before the first attempt.
    static func emptyOperation(forContext contextID: Int64, at now: Double, in db: Database) throws -> (SyncOperation, [String])? {
        guard let activityID = try currentActivity(ofContext: contextID, in: db) else { return nil }
        return try emptyOperation(forActivity: activityID, at: now, in: db)
    }

    /// Writes the done date of an activity.
    static func enqueueCompletion(ofActivity activityID: Int64, at date: Double, in db: Database) throws {
        guard case (var operation, let classes)? = try emptyOperation(forActivity: activityID, at: date, in: db) else { return }
        operation.completedAt = date
        try insert(operation, for: classes, in: db)
    }

    /// Writes a student's statement of AI use on the assignment of a context's document.
    static func enqueueAIStatement(_ statement: AIStatement, ofContext contextID: Int64, at now: Double, in db: Database) throws {
        guard case (var operation, let classes)? = try emptyOperation(forContext: contextID, at: now, in: db) else { return }
        operation.aiStatement = SyncOperation.AIStatementRecord(statement)
        try insert(operation, for: classes, in: db)
    }

    /// Writes every note the student keeps on the work of an assignment, after one changed.
    static func enqueueNotes(ofAssignment identifier: String, at now: Double, in db: Database) throws {
        guard
            let contextID = try Int64.fetchOne(
                db, sql: "SELECT context_id FROM assignment WHERE id = ? AND accepted_at IS NOT NULL", arguments: [identifier]),
            case (var operation, let classes)? = try emptyOperation(forContext: contextID, at: now, in: db)
        else { return }
        operation.notes = try EvidenceTables.notes(ofAssignment: identifier, in: db).map(SyncOperation.NoteRecord.init)
        try insert(operation, for: classes, in: db)
    }

    /// Writes the student's withdrawal of the process evidence of the assignment of a context's
    /// document, so that the class's teacher knows why no more of it comes.
    static func enqueueWithdrawal(ofContext contextID: Int64, at now: Double, in db: Database) throws {
        guard case (var operation, let classes)? = try emptyOperation(forContext: contextID, at: now, in: db) else { return }
        operation.evidenceWithdrawnAt = now
        try insert(operation, for: classes, in: db)
    }

    /// Writes spans ended outside a save (their process died).
    static func enqueueEndedSpan(_ spanID: String, at now: Double, in db: Database) throws {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT activity_id, started_at, ended_at, last_pulse_at, session_id FROM time_span WHERE id = ?
                    """, arguments: [spanID]),
            case (var operation, let classes)? = try emptyOperation(forActivity: row[0], at: now, in: db)
        else { return }
        operation.spans = [SyncOperation.Span(id: spanID, start: row[1], end: row[2], lastPulse: row[3], session: row[4])]
        try insert(operation, for: classes, in: db)
    }

    /// An operation for an activity, with its assignment filled in, and the classes it goes to:
    /// those of the teacher whose handout it is (their recipient key is the handout's), and
    /// those joined before classes were tied to a teacher. Nil unless the store joined a class
    /// and the activity's document is assigned (or its context is under an assigned context
    /// tree, whose assignment for it is derived now); one indexed look-up when it did not.
    static func emptyOperation(forActivity activityID: Int64, at now: Double, in db: Database) throws -> (SyncOperation, [String])? {
        guard let (contextID, attempt) = try assignedActivity(activityID, in: db),
            let assignment = try ClassroomTables.assignment(contextID: contextID, in: db)
        else { return nil }
        let classes =
            try assignment.classIdentifier.map { classID in
                // An assignment made for one class (from the catalog) goes to that class alone.
                try String.fetchAll(
                    db.cachedStatement(sql: "SELECT class_id FROM class_membership WHERE class_id = ?"),
                    arguments: [classID.uuidString])
            }
            ?? String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT class_id FROM class_membership WHERE teacher_key IS NULL OR teacher_key = ? ORDER BY joined_at, class_id
                        """), arguments: [assignment.teacherKey])
        guard !classes.isEmpty else { return nil }
        var info = SyncOperation.AssignmentInfo(describing: assignment)
        info.documentName = assignment.documentURL?.lastPathComponent ?? assignment.documentName
        let operation = SyncOperation(assignmentIdentifier: assignment.identifier, attempt: attempt, madeAt: now, assignment: info)
        return (operation, classes)
    }

    /// The context and attempt of an activity whose work a joined class may get: its context is
    /// assigned, or becomes so now under an accepted context-tree assignment.
    private static func assignedActivity(_ activityID: Int64, in db: Database) throws -> (contextID: Int64, attempt: Int)? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT a.context_id, a.attempt,
                           EXISTS (SELECT 1 FROM assignment s WHERE s.context_id = a.context_id AND s.accepted_at IS NOT NULL)
                    FROM activity a WHERE a.id = ? AND EXISTS (SELECT 1 FROM class_membership)
                    """), arguments: [activityID])
        guard let row else { return nil }
        let (contextID, attempt, assigned): (Int64, Int, Bool) = (row[0], row[1], row[2])
        if assigned { return (contextID, attempt) }
        guard try ClassroomTables.hasContextTreeAssignments(in: db),
            try ClassroomTables.assignment(contextID: contextID, in: db) == nil,
            try ClassroomTables.derive(forContext: contextID, in: db) != nil
        else { return nil }
        return (contextID, attempt)
    }

    /// Queues an operation for each class, each copy with an id of its own (the server applies
    /// an id once per student).
    static func insert(_ operation: SyncOperation, for classes: [String], in db: Database) throws {
        var copy = operation
        for (index, classID) in classes.enumerated() {
            if index > 0 { copy.id = UUID() }
            let json = try encoder.encode(copy)
            try db.cachedStatement(sql: "INSERT INTO outbox (class_id, operation) VALUES (?, ?)")
                .execute(arguments: [classID, String(decoding: json, as: UTF8.self)])
            queuedInThisProcess.withLockedValue { $0 += 1 }
        }
    }

    /// How many operations this process wrote to any store's outbox (some may have been rolled
    /// back with their transaction): what tells a hook, at no cost, that a sync may be due.
    static let queuedInThisProcess = NIOLockedValueBox(0)

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    // MARK: Reading and acknowledging

    /// The oldest operations waiting, at most `limit`, all for one class: the class of the
    /// oldest, leaving out the classes in `excluded` (which refused a sync just now).
    static func pending(
        limit: Int, excluding excluded: Set<UUID> = [], excludingAssignments excludedAssignments: [UUID: Set<String>] = [:],
        in db: Database
    ) throws -> [OutboxEntry] {
        let skipped = try String(decoding: JSONEncoder().encode(excluded.map(\.uuidString)), as: UTF8.self)
        // A class and an assignment, as one text: the class's id, a unit separator, the assignment's.
        let waiting = try String(
            decoding: JSONEncoder().encode(
                excludedAssignments.flatMap { classID, assignments in
                    assignments.map { "\(classID.uuidString)\u{1F}\($0)" }
                }), as: UTF8.self)
        let rows = try Row.fetchAll(
            db,
            sql: """
                WITH waiting AS (SELECT value FROM json_each(?2)),
                sendable AS NOT MATERIALIZED (
                    SELECT seq, class_id, operation FROM outbox
                    WHERE class_id NOT IN (SELECT value FROM json_each(?1))
                      AND (NOT EXISTS (SELECT 1 FROM waiting)
                           OR class_id || char(31) || json_extract(operation, '$.assignmentIdentifier') NOT IN (SELECT value FROM waiting)))
                SELECT seq, class_id, operation FROM sendable
                WHERE class_id = (SELECT class_id FROM sendable ORDER BY seq LIMIT 1)
                ORDER BY seq LIMIT ?3
                """, arguments: [skipped, waiting, limit])
        let decoder = JSONDecoder()
        return try rows.map { row in
            let text: String = row[2]
            guard let classID = UUID(uuidString: row[1]),
                let operation = try? decoder.decode(SyncOperation.self, from: Data(text.utf8))
            else {
                throw CLSError(
                    .databaseInaccessible,
                    "operation \(row[0] as Int64) in the store's outbox is damaged; join the class again (clsfile join URL --code CODE), which sends all your assigned work again"
                )
            }
            return OutboxEntry(sequence: row[0], classID: classID, operation: operation)
        }
    }

    /// How many operations wait.
    static func depth(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") ?? 0
    }

    /// Removes the operations the server acknowledged and notes the sync.
    static func acknowledge(_ sequences: [Int64], at date: Double, in db: Database) throws {
        for sequence in sequences {
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE seq = ?").execute(arguments: [sequence])
        }
        try db.execute(sql: "UPDATE class_server SET last_sync_at = ?, last_error = NULL", arguments: [date])
    }

    /// Notes a sync that failed, with why.
    static func recordFailure(_ reason: String, in db: Database) throws {
        try db.execute(sql: "UPDATE class_server SET last_error = ?", arguments: [reason])
    }

    /// Moves an operation the server refused out of the way, with the server's reason, so that
    /// the operations after it can go; `clsfile status` counts and names them.
    static func setAside(_ sequence: Int64, reason: String, at date: Double, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO outbox_refused (seq, class_id, operation, reason, refused_at)
                SELECT seq, class_id, operation, ?, ? FROM outbox WHERE seq = ?
                """, arguments: [reason, date, sequence])
        try db.execute(sql: "DELETE FROM outbox WHERE seq = ?", arguments: [sequence])
        try db.execute(sql: "UPDATE class_server SET last_error = ?", arguments: ["the server refused an operation: \(reason)"])
    }

    /// How many operations the server refused, and the latest reason.
    static func refused(in db: Database) throws -> (count: Int, latestReason: String?) {
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox_refused") ?? 0
        let reason = try String.fetchOne(db, sql: "SELECT reason FROM outbox_refused ORDER BY refused_at DESC, seq DESC LIMIT 1")
        return (count, reason)
    }

    // MARK: The server and its classes

    /// The accepted assignments whose work goes to no class joined (their teacher's class was not
    /// joined, or they came from a version-1 handout), when the store joined any; oldest first.
    static func assignmentsSyncedNowhere(in db: Database) throws -> [Assignment] {
        try String.fetchAll(
            db,
            sql: """
                SELECT s.id FROM assignment s
                WHERE s.accepted_at IS NOT NULL AND s.context_id IS NOT NULL AND EXISTS (SELECT 1 FROM class_membership)
                  AND NOT EXISTS (SELECT 1 FROM class_membership m WHERE m.teacher_key IS NULL OR m.teacher_key = s.teacher_key)
                ORDER BY s.created_at, s.id
                """
        ).compactMap { try ClassroomTables.assignment(identifier: $0, in: db) }
    }

    /// The classes joined, oldest first, each with the server's address and last sync.
    static func memberships(in db: Database) throws -> [ClassServerMembership] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT s.url, s.account_id, m.class_id, m.class_name, m.teacher_key, m.joined_at, s.last_sync_at, s.last_error
                FROM class_membership m, class_server s ORDER BY m.joined_at, m.class_id
                """
        ).map { row in
            guard let url = URL(string: row[0]), let account = UUID(uuidString: row[1]), let classID = UUID(uuidString: row[2]) else {
                throw CLSError(
                    .databaseInaccessible,
                    "the class server recorded in the store is damaged; leave it and join again (clsfile leave, then clsfile join URL --code CODE)"
                )
            }
            return ClassServerMembership(
                serverURL: url, accountID: account, classID: classID, className: row[3], teacherKey: row[4],
                joinedAt: Date(timeIntervalSince1970: row[5]),
                lastSyncAt: (row[6] as Double?).map(Date.init(timeIntervalSince1970:)), lastError: row[7])
        }
    }

    /// Records a class joined and queues the work of its teacher's assignments recorded so far;
    /// returns how many operations that queued. Joining a class again replaces the server's copy
    /// of that work; the other classes joined stay. Joining a class of another server forgets the
    /// previous server, its classes and what waited for them.
    static func join(_ membership: ClassServerMembership, in db: Database) throws -> Int {
        let classID = membership.classID.uuidString
        if let server = try String.fetchOne(db, sql: "SELECT url FROM class_server"), server != membership.serverURL.absoluteString {
            _ = try leave(classID: nil, in: db)
        }
        // A class joined before classes were tied to their teacher gets every assignment's work:
        // beside another class, it would get that class's teacher's work too.
        if let untied = try String.fetchOne(
            db,
            sql: """
                SELECT class_name FROM class_membership WHERE teacher_key IS NULL AND class_id <> ? LIMIT 1
                """, arguments: [classID])
        {
            throw CLSError(
                .invalidModification,
                "the class \(untied) was joined before classes were tied to their teacher, so it would get every assignment's work, this class's too: join it again first with its code (clsfile join URL --code CODE), or leave it (clsfile leave --class \"\(untied)\")"
            )
        }
        try db.execute(
            sql: """
                INSERT INTO class_server (slot, url, account_id, joined_at) VALUES (1, ?, ?, ?)
                ON CONFLICT (slot) DO UPDATE SET account_id = excluded.account_id
                """,
            arguments: [membership.serverURL.absoluteString, membership.accountID.uuidString, membership.joinedAt.timeIntervalSince1970])
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO class_membership (class_id, class_name, teacher_key, joined_at) VALUES (?, ?, ?, ?)
                """, arguments: [classID, membership.className, membership.teacherKey, membership.joinedAt.timeIntervalSince1970])
        let before = try depth(in: db)
        let activities = try Int64.fetchAll(
            db,
            sql: """
                SELECT (SELECT id FROM activity a WHERE a.context_id = s.context_id ORDER BY attempt DESC LIMIT 1)
                FROM assignment s WHERE s.context_id IS NOT NULL AND s.accepted_at IS NOT NULL ORDER BY s.created_at, s.id
                """
        ).compactMap { $0 }
        let now = Date().timeIntervalSince1970
        for activity in activities { try enqueueSnapshot(ofActivity: activity, at: now, onlyClass: classID, in: db) }
        return try depth(in: db) - before
    }

    /// Leaves one class joined, or every class and the server when `classID` is nil, dropping
    /// what waited for them; returns how many operations went. Leaving the last class forgets
    /// the server.
    static func leave(classID: UUID?, in db: Database) throws -> Int {
        let before = try depth(in: db)
        if let classID {
            let id = classID.uuidString
            try db.execute(sql: "DELETE FROM outbox WHERE class_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM outbox_refused WHERE class_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM class_membership WHERE class_id = ?", arguments: [id])
        }
        let classesLeft = try Int.fetchOne(db, sql: "SELECT count(*) FROM class_membership") ?? 0
        if classID == nil || classesLeft == 0 {
            try db.execute(sql: "DELETE FROM outbox")
            try db.execute(sql: "DELETE FROM outbox_refused")
            try db.execute(sql: "DELETE FROM class_membership")
            try db.execute(sql: "DELETE FROM class_server")
        }
        return before - (try depth(in: db))
    }
}

extension SyncOperation.Span {
    init(_ record: SpanRecord) {
        self.init(id: record.id, start: record.start, end: record.end, lastPulse: record.lastPulse, session: record.session)
    }
}

extension SyncOperation.Item {
    init(_ record: ItemRecord) {
        let value: Double, maxScore: Double?
        switch record.value {
        case .quantity(let quantity): (value, maxScore) = (quantity, nil)
        case .score(let score, let maximum): (value, maxScore) = (score, maximum)
        case .binary(let flag, _): (value, maxScore) = (flag ? 1 : 0, nil)
        }
        self.init(
            identifier: record.identifier, title: record.title, isPrimary: record.role == .primary,
            kind: record.value.kind, value: value, maxScore: maxScore, createdAt: record.createdAt,
            modifiedAt: record.modifiedAt)
    }
}
