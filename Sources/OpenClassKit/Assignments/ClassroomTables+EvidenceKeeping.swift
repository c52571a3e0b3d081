import Foundation
internal import GRDB

/// The `evidence_keeping` table: how many days a handout keeps process evidence (written with the
/// assignment, ``ClassroomTables/insert(_:contextID:acceptedAt:in:)``) and the student's
/// withdrawal of the evidence not yet sent.
extension ClassroomTables {
    /// Withdraws the process evidence of an accepted assignment that has not left the machine:
    /// the history rows waiting in the outbox are dropped, no later row is queued, and the
    /// classes the work goes to are told (the figures still go). Withdrawing again keeps the
    /// first date.
    /// - Returns: How many operations of history rows were dropped from the outbox.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    static func withdrawEvidence(ofAssignment identifier: String, at date: Date, in db: Database) throws -> Int {
        let contextID = try acceptedContext(ofAssignment: identifier, in: db)
        try db.execute(
            sql: """
                INSERT INTO evidence_keeping (assignment_id, withdrawn_at) VALUES (?, ?)
                ON CONFLICT (assignment_id) DO UPDATE SET withdrawn_at = coalesce(withdrawn_at, excluded.withdrawn_at)
                """, arguments: [identifier, date.timeIntervalSince1970])
        try db.execute(
            sql: """
                DELETE FROM outbox WHERE json_extract(operation, '$.assignmentIdentifier') = ?
                    AND (json_extract(operation, '$.historyRows') IS NOT NULL OR json_extract(operation, '$.removedHistoryRows') IS NOT NULL)
                """, arguments: [identifier])
        let dropped = db.changesCount
        if let contextID {
            try OutboxTable.enqueueWithdrawal(ofContext: contextID, at: date.timeIntervalSince1970, in: db)
        }
        return dropped
    }

    /// Takes a withdrawal back: the evidence goes again from now, the whole history with a
    /// snapshot of the work to the classes it goes to. Does nothing unless it was withdrawn.
    /// - Returns: Whether the evidence had been withdrawn.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    static func restoreEvidence(ofAssignment identifier: String, at date: Date, in db: Database) throws -> Bool {
        let contextID = try acceptedContext(ofAssignment: identifier, in: db)
        try db.execute(
            sql: "UPDATE evidence_keeping SET withdrawn_at = NULL WHERE assignment_id = ? AND withdrawn_at IS NOT NULL",
            arguments: [identifier])
        guard db.changesCount > 0 else { return false }
        if let contextID { try OutboxTable.enqueueSnapshot(ofContext: contextID, at: date.timeIntervalSince1970, in: db) }
        return true
    }

    /// Whether the student withdrew the process evidence of an assignment: one indexed look-up.
    static func isEvidenceWithdrawn(ofAssignment identifier: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: "SELECT withdrawn_at IS NOT NULL FROM evidence_keeping WHERE assignment_id = ?"),
            arguments: [identifier]) ?? false
    }

    /// The context of an accepted assignment (nil for one tied to no file yet).
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    static func acceptedContext(ofAssignment identifier: String, in db: Database) throws -> Int64? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT context_id FROM assignment WHERE id = ? AND accepted_at IS NOT NULL", arguments: [identifier])
        else {
            throw CLSError(
                .invalidArgument,
                "no accepted assignment \(identifier) in this store: accept its handout first (clsfile accept HANDOUT); clsfile assignments lists those you have"
            )
        }
        return row["context_id"]
    }
}
