import Foundation
internal import GRDB

/// The classroom's tables — `assignment`, `submission`, `student_key` and `submission_conflict` —
/// read and written inside a
/// transaction that ``SQLiteStorage`` opens: the SQL of assignments and collected work lives
/// here, apart from the ClassKit persistence of activities.
enum ClassroomTables {
    /// Records a teacher's assignment; recording the same one again changes nothing.
    static func record(_ assignment: Assignment, in db: Database) throws {
        if let existing = try Self.assignment(identifier: assignment.identifier, in: db) {
            guard existing.teacherKey == assignment.teacherKey else {
                throw CLSError(
                    .invalidModification,
                    "assignment \(assignment.identifier) is already recorded with another teacher key; a handout's identifier cannot be reused"
                )
            }
            return
        }
        try Self.insert(assignment, contextID: nil, acceptedAt: nil, in: db)
    }

    /// Ties an assignment to the context of a student's file.
    static func accept(_ assignment: Assignment, forContext contextID: Int64, path: [UInt8], in db: Database) throws {
        if let other = try Self.assignment(contextID: contextID, in: db),
            other.identifier != assignment.identifier
        {
            throw CLSError(
                .invalidModification,
                "\(PathBytes.display(path)) is already assigned as '\(other.title)' (\(other.identifier)); remove assignment \(other.identifier) first"
            )
        }
        let now = Date().timeIntervalSince1970
        if let existing = try Self.assignment(identifier: assignment.identifier, in: db) {
            guard existing.teacherKey == assignment.teacherKey else {
                throw CLSError(
                    .invalidModification,
                    "assignment \(assignment.identifier) is already accepted with another teacher key; this handout is not the one you accepted"
                )
            }
            try db.execute(
                sql: "UPDATE assignment SET context_id = ?, accepted_at = coalesce(accepted_at, ?) WHERE id = ?",
                arguments: [contextID, now, assignment.identifier])
        } else {
            try Self.insert(assignment, contextID: contextID, acceptedAt: now, in: db)
        }
        // The file's work so far is the assignment's now: a class server gets all of it.
        try OutboxTable.enqueueSnapshot(ofContext: contextID, at: now, in: db)
    }

    /// Every assignment, oldest first.
    static func assignments(in db: Database) throws -> [Assignment] {
        try Row.fetchAll(db, sql: "\(Self.selectAssignments) ORDER BY s.created_at, s.id").map(Self.assignment(from:))
    }

    /// The assignment tied to the file at a canonical path, if any.
    static func assignment(atPath path: [UInt8], in db: Database) throws -> Assignment? {
        try Row.fetchOne(db, sql: "\(Self.selectAssignments) WHERE c.path = ?", arguments: [Data(path)])
            .map(Self.assignment(from:))
    }

    /// Removes an assignment and what was collected for it; false when there was none.
    static func removeAssignment(identifier: String, in db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM assignment WHERE id = ?", arguments: [identifier])
        return db.changesCount > 0
    }

    /// Sets the done date of assigned files' activities that have none; returns how many files
    /// are assigned among those given (every assigned file when nil).
    static func complete(assignmentsOf contextIDs: [Int64]?, at date: Date, in db: Database) throws -> Int {
        let ids = try contextIDs ?? Int64.fetchAll(db, sql: "SELECT context_id FROM assignment WHERE context_id IS NOT NULL")
        var count = 0
        for contextID in ids {
            guard try Self.assignment(contextID: contextID, in: db) != nil else { continue }
            count += 1
            try db.execute(
                sql: """
                    UPDATE activity SET completed_at = ?, modified_at = ?
                    WHERE completed_at IS NULL AND id = (SELECT id FROM activity WHERE context_id = ? ORDER BY attempt DESC LIMIT 1)
                    """, arguments: [date.timeIntervalSince1970, date.timeIntervalSince1970, contextID])
            if db.changesCount > 0,
                let activityID = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM activity WHERE context_id = ? ORDER BY attempt DESC LIMIT 1
                        """, arguments: [contextID])
            {
                try OutboxTable.enqueueCompletion(ofActivity: activityID, at: date.timeIntervalSince1970, in: db)
            }
        }
        return count
    }

    /// The identifier paths (from the main app context) of every assigned context, with its row.
    static func assignedContexts(in db: Database) throws -> [(contextID: Int64, identifierPath: [String])] {
        try Int64.fetchAll(db, sql: "SELECT context_id FROM assignment WHERE context_id IS NOT NULL").map { id in
            (contextID: id, identifierPath: try ContextTable.chain(to: id, in: db).map(\.identifier))
        }
    }

    /// Imports a collected submission into the history, pinning its student's key at the first
    /// one; one signed with another key than the pinned one is kept aside as a conflict.
    static func importSubmission(_ submission: Submission, in db: Database) throws -> Submission.ImportResult {
        guard try Self.assignment(identifier: submission.assignmentIdentifier, in: db) != nil else {
            throw CLSError(
                .invalidArgument,
                "no assignment \(submission.assignmentIdentifier) in this store; only work on your own handouts can be collected")
        }
        if let key = submission.studentKey {
            if let pinned = try Data.fetchOne(
                db, sql: "SELECT public_key FROM student_key WHERE student_id = ?",
                arguments: [submission.studentIdentifier])
            {
                guard pinned == key else {
                    try keepAside(submission, in: db)
                    return .conflict
                }
            } else {
                try pin(key, forStudent: submission.studentIdentifier, in: db)
            }
        }
        let held = try Row.fetchOne(
            db,
            sql: """
                SELECT max(submitted_at) AS latest, max(digest = ?) AS repeated FROM submission
                WHERE assignment_id = ? AND student_id = ?
                """, arguments: [submission.digest, submission.assignmentIdentifier, submission.studentIdentifier])
        if (held?["repeated"] as Bool?) == true { return .unchanged }
        let latest = held?["latest"] as Double?
        try db.execute(
            sql: """
                INSERT INTO submission
                    (assignment_id, student_id, student_name, submitted_at, digest, payload, imported_at, student_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                submission.assignmentIdentifier, submission.studentIdentifier, submission.studentName,
                submission.submittedAt.timeIntervalSince1970, submission.digest, submission.payload,
                Date().timeIntervalSince1970, submission.studentKey
            ])
        guard let latest else { return .added }
        return latest > submission.submittedAt.timeIntervalSince1970 ? .superseded : .updated
    }

    /// Keeps a submission aside, out of the history and the reports, until the teacher trusts its key.
    static func keepAside(_ submission: Submission, in db: Database) throws {
        guard let key = submission.studentKey else {
            throw CLSError(.invalidArgument, "a submission kept aside needs the key it was signed with")
        }
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO submission_conflict
                    (assignment_id, student_id, student_name, submitted_at, digest, payload, student_key, found_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                submission.assignmentIdentifier, submission.studentIdentifier, submission.studentName,
                submission.submittedAt.timeIntervalSince1970, submission.digest, submission.payload, key,
                Date().timeIntervalSince1970
            ])
    }

    /// Every submission kept aside, by student name and date.
    static func keptAside(in db: Database) throws -> [Submission] {
        try Row.fetchAll(db, sql: "SELECT * FROM submission_conflict ORDER BY student_name, student_id, submitted_at")
            .map(submission(from:))
    }

    /// Pins a new key for a student and imports what was kept aside under it, but work dated
    /// after `latestDate`; returns what each import did.
    static func trust(
        _ key: Data, forStudent student: String, datedUpTo latestDate: Date,
        in db: Database
    ) throws -> [Submission.ImportResult] {
        try pin(key, forStudent: student, in: db)
        let waiting = try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM submission_conflict WHERE student_id = ? AND student_key = ? AND submitted_at <= ?
                ORDER BY submitted_at
                """, arguments: [student, key, latestDate.timeIntervalSince1970]
        ).map(submission(from:))
        try db.execute(
            sql: "DELETE FROM submission_conflict WHERE student_id = ? AND student_key = ? AND submitted_at <= ?",
            arguments: [student, key, latestDate.timeIntervalSince1970])
        return try waiting.map { try importSubmission($0, in: db) }
    }

    /// The key pinned for a student, if any.
    static func pinnedKey(forStudent student: String, in db: Database) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT public_key FROM student_key WHERE student_id = ?", arguments: [student])
    }

    private static func pin(_ key: Data, forStudent student: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO student_key (student_id, public_key, pinned_at) VALUES (?, ?, ?)",
            arguments: [student, key, Date().timeIntervalSince1970])
    }

    /// The latest submission of each student for an assignment, by student name.
    static func submissions(forAssignment identifier: String, in db: Database) throws -> [Submission] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM (
                    SELECT *, row_number() OVER (PARTITION BY student_id ORDER BY submitted_at DESC, imported_at DESC, digest DESC) AS n
                    FROM submission WHERE assignment_id = ?)
                WHERE n = 1 ORDER BY student_name, student_id
                """, arguments: [identifier]
        ).map(submission(from:))
    }

    /// Replaces the work kept for a submission, keeping its digest; false when there is no such one.
    static func replacePayload(of submission: Submission, with payload: Data, in db: Database) throws -> Bool {
        try db.execute(
            sql: "UPDATE submission SET payload = ? WHERE assignment_id = ? AND student_id = ? AND digest = ?",
            arguments: [payload, submission.assignmentIdentifier, submission.studentIdentifier, submission.digest])
        return db.changesCount > 0
    }

    /// Every submission accepted for an assignment, by student name and date; with
    /// `latestDate`, those submitted then or before only.
    static func submissionHistory(forAssignment identifier: String, submittedUpTo latestDate: Date? = nil, in db: Database) throws
        -> [Submission]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM submission WHERE assignment_id = ? AND submitted_at <= ?
                ORDER BY student_name, student_id, submitted_at, imported_at
                """, arguments: [identifier, latestDate?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude]
        ).map(submission(from:))
    }

    private static func submission(from row: Row) -> Submission {
        Submission(
            assignmentIdentifier: row["assignment_id"], studentIdentifier: row["student_id"],
            studentName: row["student_name"], submittedAt: Date(timeIntervalSince1970: row["submitted_at"]),
            digest: row["digest"], payload: row["payload"], studentKey: row["student_key"])
    }

    private static let selectAssignments = """
        SELECT s.*, c.path, (SELECT completed_at FROM activity WHERE context_id = c.id ORDER BY attempt DESC LIMIT 1) AS completed_at,
               x.requirement AS ai_requirement, x.kind AS ai_kind, x.note AS ai_note, x.stated_at AS ai_stated_at,
               k.kept_days, k.withdrawn_at
        FROM assignment s LEFT JOIN context c ON c.id = s.context_id LEFT JOIN ai_statement x ON x.assignment_id = s.id
            LEFT JOIN evidence_keeping k ON k.assignment_id = s.id
        """

    /// Keeps when the student wrote a submission of an accepted assignment.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    static func recordSubmission(ofAssignment identifier: String, at date: Date, in db: Database) throws {
        _ = try acceptedContext(ofAssignment: identifier, in: db)
        try db.execute(
            sql: "UPDATE assignment SET submitted_at = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, identifier])
    }

    static func assignment(identifier: String, in db: Database) throws -> Assignment? {
        try Row.fetchOne(db, sql: "\(selectAssignments) WHERE s.id = ?", arguments: [identifier]).map(assignment(from:))
    }

    static func assignment(contextID: Int64, in db: Database) throws -> Assignment? {
        try Row.fetchOne(db, sql: "\(selectAssignments) WHERE s.context_id = ?", arguments: [contextID]).map(assignment(from:))
    }

    static func insert(_ assignment: Assignment, contextID: Int64?, acceptedAt: Double?, in db: Database) throws {
        guard let key = assignment.teacherKey, !key.isEmpty, key.count <= 200 else {
            throw CLSError(
                .invalidArgument,
                "assignment \(assignment.identifier) has no teacher key; the handout is damaged or from a version-1 clsfile: ask the teacher to issue it again"
            )
        }
        try db.execute(
            sql: """
                INSERT INTO assignment (id, title, class_name, due_at, target_words, is_reading, instructions, document_name,
                                        document_digest, teacher_key, created_at, accepted_at, context_id, context_path,
                                        covers_context_tree, class_id, process_evidence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                assignment.identifier, assignment.title, assignment.className,
                assignment.dueDate?.timeIntervalSince1970, assignment.targetWordCount, assignment.isReading,
                assignment.instructions,
                assignment.documentName, assignment.documentDigest, key,
                assignment.createdAt.timeIntervalSince1970, acceptedAt, contextID,
                try assignment.contextPath.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) },
                assignment.coversContextTree, assignment.classIdentifier?.uuidString,
                assignment.processEvidence?.rawValue
            ])
        if let requirement = assignment.aiStatementRequirement {
            try db.execute(
                sql: "INSERT INTO ai_statement (assignment_id, requirement) VALUES (?, ?)",
                arguments: [assignment.identifier, requirement.rawValue])
        }
        if let days = assignment.keptEvidenceDays {
            guard (1...ProcessEvidence.maximumKeptDays).contains(days) else {
                throw CLSError(
                    .invalidArgument,
                    "assignment \(assignment.identifier) keeps its process evidence \(days) days, not between 1 and \(ProcessEvidence.maximumKeptDays); the handout is damaged: ask the teacher to issue it again"
                )
            }
            try db.execute(
                sql: "INSERT INTO evidence_keeping (assignment_id, kept_days) VALUES (?, ?)",
                arguments: [assignment.identifier, days])
        }
    }

    private static func assignment(from row: Row) throws -> Assignment {
        var assignment = Assignment(
            identifier: row["id"], title: row["title"], className: row["class_name"],
            dueDate: (row["due_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            targetWordCount: row["target_words"], isReading: row["is_reading"] ?? false, instructions: row["instructions"],
            documentName: row["document_name"], documentDigest: row["document_digest"], teacherKey: row["teacher_key"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
        assignment.acceptedAt = (row["accepted_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        assignment.documentURL = (row["path"] as Data?).map { PathBytes.fileURL(for: [UInt8]($0)) }
        assignment.completedAt = (row["completed_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        assignment.coversContextTree = row["covers_context_tree"] ?? false
        assignment.classIdentifier = (row["class_id"] as String?).flatMap(UUID.init(uuidString:))
        assignment.processEvidence = (row["process_evidence"] as String?).flatMap(ProcessEvidence.init(rawValue:))
        assignment.aiStatementRequirement = (row["ai_requirement"] as String?).flatMap(AIStatement.Requirement.init(rawValue:))
        assignment.aiStatement = aiStatement(kind: row["ai_kind"], note: row["ai_note"], statedAt: row["ai_stated_at"])
        assignment.keptEvidenceDays = row["kept_days"]
        assignment.evidenceWithdrawnAt = (row["withdrawn_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        assignment.submittedAt = (row["submitted_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        if let path = row["context_path"] as String? {
            guard let identifiers = try? JSONDecoder().decode([String].self, from: Data(path.utf8)) else {
                throw CLSError(
                    .databaseInaccessible,
                    "the assignment \(assignment.identifier) in the store has a damaged context path (\(path)); remove it (clsfile assignments remove \(assignment.identifier)) and hand the context out again"
                )
            }
            assignment.contextPath = identifiers
        }
        return assignment
    }
}
