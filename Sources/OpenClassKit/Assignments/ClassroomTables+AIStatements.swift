import Foundation
internal import GRDB

/// The `ai_statement` table: whether a handout asks for a statement of AI use (written with the
/// assignment, ``ClassroomTables/insert(_:contextID:acceptedAt:in:)``) and the student's answer.
extension ClassroomTables {
    /// Records a student's statement on an accepted assignment, replacing an earlier one, and
    /// queues it for the classes its work goes to.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    static func recordAIStatement(_ statement: AIStatement, forAssignment identifier: String, in db: Database) throws {
        let contextID = try acceptedContext(ofAssignment: identifier, in: db)
        try db.execute(
            sql: """
                INSERT INTO ai_statement (assignment_id, kind, note, stated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (assignment_id) DO UPDATE SET kind = excluded.kind, note = excluded.note, stated_at = excluded.stated_at
                """,
            arguments: [identifier, statement.use.rawValue, statement.note, statement.statedAt.timeIntervalSince1970])
        if let contextID {
            try OutboxTable.enqueueAIStatement(statement, ofContext: contextID, at: Date().timeIntervalSince1970, in: db)
        }
    }

    /// The student's statement on an assignment, if they gave one.
    static func aiStatement(ofAssignment identifier: String, in db: Database) throws -> AIStatement? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT kind, note, stated_at FROM ai_statement WHERE assignment_id = ?", arguments: [identifier])
        else { return nil }
        return aiStatement(kind: row["kind"], note: row["note"], statedAt: row["stated_at"])
    }

    /// A statement from its stored values; nil when there is none, or when they are not a valid
    /// statement (a store edited by hand), which then counts as none given.
    static func aiStatement(kind: String?, note: String?, statedAt: Double?) -> AIStatement? {
        guard let kind = kind.flatMap(AIStatement.Use.init(rawValue:)), let statedAt, statedAt.isFinite else { return nil }
        return try? AIStatement(use: kind, note: note, statedAt: Date(timeIntervalSince1970: statedAt))
    }
}
