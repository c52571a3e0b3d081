import Foundation
import GRDB
import NIOConcurrencyHelpers

/// The store's side of syncing — `class_server` and `outbox` — read and written inside a
/// transaction that ``SQLiteStorage`` opens.
enum OutboxTable {
    /// Writes the operation of one save of an activity, when the store syncs to a class server
    /// and the activity's document is assigned; does nothing otherwise.
    static func enqueue(_ change: ActivityChanges, at now: Double, in db: Database) throws {
        guard var operation = try emptyOperation(forActivity: change.activityID, at: now, in: db) else { return }
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
        try insert(operation, in: db)
    }

    /// Writes an operation with everything an activity holds, which replaces the server's copy:
    /// what joining sends for work recorded before, and what an assignment tied to another file
    /// or a new attempt sends.
    static func enqueueSnapshot(ofActivity activityID: Int64, at now: Double, in db: Database) throws {
        guard var operation = try emptyOperation(forActivity: activityID, at: now, in: db) else { return }
        operation.replacesWork = true
        let record = try SQLiteStorage.load(activityID, in: db)
        operation.spans = record.spans.map(SyncOperation.Span.init)
        operation.progressBasisChange = SyncOperation.BasisChange(basis: record.progressBasis, restarts: true)
        operation.ranges = record.ranges.map { SyncOperation.Range(lower: $0.lowerBound, upper: $0.upperBound) }
        operation.rangesBasis = record.progressBasis
        operation.removesAllItems = true
        operation.items = record.items.map(SyncOperation.Item.init)
        operation.completedAt = try Double.fetchOne(db, sql: "SELECT completed_at FROM activity WHERE id = ?", arguments: [activityID])
        try insert(operation, in: db)
    }

    /// Writes a snapshot of the current attempt of a context's document, when it is assigned:
    /// after the assignment was tied to it, its document moved into it, or a new attempt began.
    static func enqueueSnapshot(ofContext contextID: Int64, at now: Double, in db: Database) throws {
        guard let activityID = try Int64.fetchOne(db, sql: """
            SELECT id FROM activity WHERE context_id = ? ORDER BY attempt DESC LIMIT 1
            """, arguments: [contextID]) else { return }
        try enqueueSnapshot(ofActivity: activityID, at: now, in: db)
    }

    /// Writes the done date of an activity.
    static func enqueueCompletion(ofActivity activityID: Int64, at date: Double, in db: Database) throws {
        guard var operation = try emptyOperation(forActivity: activityID, at: date, in: db) else { return }
        operation.completedAt = date
        try insert(operation, in: db)
    }

    /// Writes spans ended outside a save (their process died).
    static func enqueueEndedSpan(_ spanID: String, at now: Double, in db: Database) throws {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT activity_id, started_at, ended_at, last_pulse_at FROM time_span WHERE id = ?
            """, arguments: [spanID]),
              var operation = try emptyOperation(forActivity: row[0], at: now, in: db) else { return }
        operation.spans = [SyncOperation.Span(id: spanID, start: row[1], end: row[2], lastPulse: row[3])]
        try insert(operation, in: db)
    }

    /// An operation for an activity, with its assignment filled in; nil unless the store syncs
    /// and the activity's document is assigned. One indexed look-up when it does not.
    private static func emptyOperation(forActivity activityID: Int64, at now: Double, in db: Database) throws -> SyncOperation? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT a.context_id, a.attempt FROM activity a
            WHERE a.id = ? AND EXISTS (SELECT 1 FROM class_server)
              AND EXISTS (SELECT 1 FROM assignment s WHERE s.context_id = a.context_id AND s.accepted_at IS NOT NULL)
            """), arguments: [activityID]),
              let assignment = try ClassroomTables.assignment(contextID: row[0], in: db) else { return nil }
        let info = SyncOperation.AssignmentInfo(
            title: assignment.title, className: assignment.className,
            documentName: assignment.documentURL?.lastPathComponent ?? assignment.documentName,
            dueDate: assignment.dueDate?.timeIntervalSince1970, targetWords: assignment.targetWordCount,
            contextPath: assignment.contextPath)
        return SyncOperation(assignmentIdentifier: assignment.identifier, attempt: row[1], madeAt: now, assignment: info)
    }

    /// Queues an operation for the class joined now.
    private static func insert(_ operation: SyncOperation, in db: Database) throws {
        let json = try encoder.encode(operation)
        try db.cachedStatement(sql: "INSERT INTO outbox (class_id, operation) SELECT class_id, ? FROM class_server")
            .execute(arguments: [String(decoding: json, as: UTF8.self)])
        queuedInThisProcess.withLockedValue { $0 += 1 }
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
    /// oldest (a sync sends them there, even when another class was joined since).
    static func pending(limit: Int, in db: Database) throws -> [OutboxEntry] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT seq, class_id, operation FROM outbox
            WHERE class_id = (SELECT class_id FROM outbox ORDER BY seq LIMIT 1) ORDER BY seq LIMIT ?
            """, arguments: [limit])
        let decoder = JSONDecoder()
        return try rows.map { row in
            let text: String = row[2]
            guard let classID = UUID(uuidString: row[1]),
                  let operation = try? decoder.decode(SyncOperation.self, from: Data(text.utf8)) else {
                throw CLSError(.databaseInaccessible, "operation \(row[0] as Int64) in the store's outbox is damaged; join the class again (clsfile join URL --code CODE), which sends all your assigned work again")
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
        try db.execute(sql: """
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

    // MARK: The server

    static func membership(in db: Database) throws -> ClassServerMembership? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT url, account_id, class_id, class_name, joined_at, last_sync_at, last_error FROM class_server
            """) else { return nil }
        guard let url = URL(string: row[0]), let account = UUID(uuidString: row[1]), let classID = UUID(uuidString: row[2]) else {
            throw CLSError(.databaseInaccessible, "the class server recorded in the store is damaged; join again (clsfile join URL --code CODE)")
        }
        return ClassServerMembership(serverURL: url, accountID: account, classID: classID, className: row[3],
                                     joinedAt: Date(timeIntervalSince1970: row[4]),
                                     lastSyncAt: (row[5] as Double?).map(Date.init(timeIntervalSince1970:)), lastError: row[6])
    }

    /// Records the server and queues all assigned work recorded so far; returns how many
    /// operations that queued. What waits for another class of the same server still goes there;
    /// joining another server drops what waited for the previous one.
    static func join(_ membership: ClassServerMembership, in db: Database) throws -> Int {
        if let previous = try Self.membership(in: db), previous.serverURL != membership.serverURL {
            try db.execute(sql: "DELETE FROM outbox")
        }
        try db.execute(sql: "DELETE FROM class_server")
        try db.execute(sql: """
            INSERT INTO class_server (slot, url, account_id, class_id, class_name, joined_at) VALUES (1, ?, ?, ?, ?, ?)
            """, arguments: [membership.serverURL.absoluteString, membership.accountID.uuidString,
                             membership.classID.uuidString, membership.className, membership.joinedAt.timeIntervalSince1970])
        let before = try depth(in: db)
        let activities = try Int64.fetchAll(db, sql: """
            SELECT (SELECT id FROM activity a WHERE a.context_id = s.context_id ORDER BY attempt DESC LIMIT 1)
            FROM assignment s WHERE s.context_id IS NOT NULL AND s.accepted_at IS NOT NULL ORDER BY s.created_at, s.id
            """).compactMap { $0 }
        let now = Date().timeIntervalSince1970
        for activity in activities { try enqueueSnapshot(ofActivity: activity, at: now, in: db) }
        return try depth(in: db) - before
    }

    /// Forgets the server and what was waiting for it; returns how many operations went.
    static func leave(in db: Database) throws -> Int {
        let dropped = try depth(in: db)
        try db.execute(sql: "DELETE FROM outbox")
        try db.execute(sql: "DELETE FROM outbox_refused")
        try db.execute(sql: "DELETE FROM class_server")
        return dropped
    }
}

extension SyncOperation.Span {
    init(_ record: SpanRecord) {
        self.init(id: record.id, start: record.start, end: record.end, lastPulse: record.lastPulse)
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
        self.init(identifier: record.identifier, title: record.title, isPrimary: record.role == .primary,
                  kind: record.value.kind, value: value, maxScore: maxScore, createdAt: record.createdAt,
                  modifiedAt: record.modifiedAt)
    }
}
