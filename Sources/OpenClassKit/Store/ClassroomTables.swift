import Foundation
import GRDB

/// The classroom's tables — `assignment` and `submission` — read and written inside a
/// transaction that ``SQLiteStorage`` opens: the SQL of assignments and collected work lives
/// here, apart from the ClassKit persistence of activities.
enum ClassroomTables {
    /// Records a teacher's assignment; recording the same one again changes nothing.
    static func record(_ assignment: Assignment, in db: Database) throws {
        if let existing = try Self.assignment(identifier: assignment.identifier, in: db) {
            guard existing.classKey == assignment.classKey else {
                throw CLSError(.invalidModification,
                               "assignment \(assignment.identifier) is already recorded with another class key; a handout's identifier cannot be reused")
            }
            return
        }
        try Self.insert(assignment, contextID: nil, acceptedAt: nil, in: db)
    }

    /// Ties an assignment to the context of a student's file.
    static func accept(_ assignment: Assignment, forContext contextID: Int64, path: [UInt8], in db: Database) throws {
        if let other = try Self.assignment(contextID: contextID, in: db),
           other.identifier != assignment.identifier {
            throw CLSError(.invalidModification,
                           "\(PathBytes.display(path)) is already assigned as '\(other.title)' (\(other.identifier)); remove assignment \(other.identifier) first")
        }
        let now = Date().timeIntervalSince1970
        if let existing = try Self.assignment(identifier: assignment.identifier, in: db) {
            guard existing.classKey == assignment.classKey else {
                throw CLSError(.invalidModification,
                               "assignment \(assignment.identifier) is already accepted with another class key; this handout is not the one you accepted")
            }
            try db.execute(sql: "UPDATE assignment SET context_id = ?, accepted_at = coalesce(accepted_at, ?) WHERE id = ?",
                           arguments: [contextID, now, assignment.identifier])
        } else {
            try Self.insert(assignment, contextID: contextID, acceptedAt: now, in: db)
        }
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
            try db.execute(sql: """
                UPDATE activity SET completed_at = ?, modified_at = ?
                WHERE completed_at IS NULL AND id = (SELECT id FROM activity WHERE context_id = ? ORDER BY attempt DESC LIMIT 1)
                """, arguments: [date.timeIntervalSince1970, date.timeIntervalSince1970, contextID])
        }
        return count
    }

    /// The identifier paths (app, file) of every assigned file, with the context of each.
    static func assignedContexts(appIdentifier: String, in db: Database) throws -> [(contextID: Int64, identifierPath: [String])] {
        try Row.fetchAll(db, sql: """
            SELECT c.id, c.identifier, p.identifier AS root FROM assignment s
            JOIN context c ON c.id = s.context_id LEFT JOIN context p ON p.id = c.parent_id
            """).map { row in
            (contextID: row["id"], identifierPath: [row["root"] ?? appIdentifier, row["identifier"]])
        }
    }

    /// Imports a collected submission, keeping only the latest per student and assignment.
    static func importSubmission(_ submission: Submission, in db: Database) throws -> Submission.ImportResult {
        guard try Self.assignment(identifier: submission.assignmentIdentifier, in: db) != nil else {
            throw CLSError(.invalidArgument,
                           "no assignment \(submission.assignmentIdentifier) in this store; only work on your own handouts can be collected")
        }
        let held = try Row.fetchOne(db, sql: """
            SELECT submitted_at, digest FROM submission WHERE assignment_id = ? AND student_id = ?
            """, arguments: [submission.assignmentIdentifier, submission.studentIdentifier])
        let result: Submission.ImportResult
        if let held {
            if (held["digest"] as String) == submission.digest { return .unchanged }
            if (held["submitted_at"] as Double) > submission.submittedAt.timeIntervalSince1970 { return .superseded }
            result = .updated
        } else {
            result = .added
        }
        try db.execute(sql: """
            INSERT OR REPLACE INTO submission
                (assignment_id, student_id, student_name, submitted_at, digest, payload, imported_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [submission.assignmentIdentifier, submission.studentIdentifier, submission.studentName,
                             submission.submittedAt.timeIntervalSince1970, submission.digest, submission.payload,
                             Date().timeIntervalSince1970])
        return result
    }

    /// The submissions collected for an assignment, by student name.
    static func submissions(forAssignment identifier: String, in db: Database) throws -> [Submission] {
        try Row.fetchAll(db, sql: """
            SELECT * FROM submission WHERE assignment_id = ? ORDER BY student_name, student_id
            """, arguments: [identifier]).map { row in
            Submission(assignmentIdentifier: row["assignment_id"], studentIdentifier: row["student_id"],
                          studentName: row["student_name"],
                          submittedAt: Date(timeIntervalSince1970: row["submitted_at"]),
                          digest: row["digest"], payload: row["payload"])
        }
    }

    private static let selectAssignments = """
        SELECT s.*, c.path, (SELECT completed_at FROM activity WHERE context_id = c.id ORDER BY attempt DESC LIMIT 1) AS completed_at
        FROM assignment s LEFT JOIN context c ON c.id = s.context_id
        """

    private static func assignment(identifier: String, in db: Database) throws -> Assignment? {
        try Row.fetchOne(db, sql: "\(selectAssignments) WHERE s.id = ?", arguments: [identifier]).map(assignment(from:))
    }

    private static func assignment(contextID: Int64, in db: Database) throws -> Assignment? {
        try Row.fetchOne(db, sql: "\(selectAssignments) WHERE s.context_id = ?", arguments: [contextID]).map(assignment(from:))
    }

    private static func insert(_ assignment: Assignment, contextID: Int64?, acceptedAt: Double?, in db: Database) throws {
        guard assignment.classKey.count == 32 else {
            throw CLSError(.invalidArgument, "assignment \(assignment.identifier) has a class key of \(assignment.classKey.count) bytes, not 32; the handout is damaged")
        }
        try db.execute(sql: """
            INSERT INTO assignment (id, title, class_name, due_at, target_words, is_reading, instructions, document_name,
                                    document_digest, class_key, created_at, accepted_at, context_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [assignment.identifier, assignment.title, assignment.className,
                             assignment.dueDate?.timeIntervalSince1970, assignment.targetWordCount, assignment.isReading,
                             assignment.instructions,
                             assignment.documentName, assignment.documentDigest, assignment.classKey,
                             assignment.createdAt.timeIntervalSince1970, acceptedAt, contextID])
    }

    private static func assignment(from row: Row) -> Assignment {
        var assignment = Assignment(
            identifier: row["id"], title: row["title"], className: row["class_name"],
            dueDate: (row["due_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            targetWordCount: row["target_words"], isReading: row["is_reading"] ?? false, instructions: row["instructions"],
            documentName: row["document_name"], documentDigest: row["document_digest"], classKey: row["class_key"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
        assignment.acceptedAt = (row["accepted_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        assignment.documentURL = (row["path"] as Data?).map { PathBytes.fileURL(for: [UInt8]($0)) }
        assignment.completedAt = (row["completed_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        return assignment
    }
}
