import Foundation
internal import GRDB

/// The student's side of process evidence in the store: notes on work, sessions and pastes
/// (`evidence_note`), the sessions recorded with dictation (`dictated_session`), and the
/// dictation setting (`student_setting`).
enum EvidenceTables {
    // MARK: Notes

    /// The notes on an assignment's work, the work's first, then by session and kind.
    static func notes(ofAssignment identifier: String, in db: Database) throws -> [EvidenceNote] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT kind, session_id, text, written_at FROM evidence_note WHERE assignment_id = ?
                ORDER BY kind != 'work', written_at, session_id, kind
                """, arguments: [identifier]
        ).compactMap { row in
            guard let kind = EvidenceNote.Kind(rawValue: row[0]) else { return nil }
            let session: String = row[1]
            return EvidenceNote(
                kind: kind, sessionIdentifier: kind == .work ? nil : session, text: row[2],
                writtenAt: Date(timeIntervalSince1970: row[3]))
        }
    }

    /// Writes a note, replacing the one of the same kind on the same session, and queues the
    /// work's notes for the classes it goes to.
    /// - Throws: ``CLSError`` `.invalidArgument` for a note that ``EvidenceNote/problem(with:)``
    ///   refuses, a session note without a session, or an assignment the store does not hold.
    static func write(_ note: EvidenceNote, ofAssignment identifier: String, in db: Database) throws {
        if let problem = EvidenceNote.problem(with: note.text) { throw CLSError(.invalidArgument, "the note \(problem)") }
        guard (note.kind == .work) == (note.sessionIdentifier == nil) else {
            throw CLSError(.invalidArgument, "a note on a session or a paste names its session, and a note on the work none")
        }
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM assignment WHERE id = ?", arguments: [identifier]) != nil else {
            throw CLSError(.invalidArgument, "no assignment \(identifier) in the store: accept its handout first")
        }
        try db.execute(
            sql: """
                INSERT INTO evidence_note (assignment_id, kind, session_id, text, written_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (assignment_id, kind, session_id) DO UPDATE SET text = excluded.text, written_at = excluded.written_at
                """,
            arguments: [identifier, note.kind.rawValue, note.sessionIdentifier ?? "", note.text, note.writtenAt.timeIntervalSince1970])
        try OutboxTable.enqueueNotes(ofAssignment: identifier, at: Date().timeIntervalSince1970, in: db)
    }

    /// Removes a note, and queues the work's notes left; false when there was none.
    static func removeNote(_ kind: EvidenceNote.Kind, session: String?, ofAssignment identifier: String, in db: Database) throws -> Bool {
        try db.execute(
            sql: "DELETE FROM evidence_note WHERE assignment_id = ? AND kind = ? AND session_id = ?",
            arguments: [identifier, kind.rawValue, session ?? ""])
        guard db.changesCount > 0 else { return false }
        try OutboxTable.enqueueNotes(ofAssignment: identifier, at: Date().timeIntervalSince1970, in: db)
        return true
    }

    // MARK: Dictation

    /// Marks sessions of an activity as recorded with dictation; marking one again changes nothing.
    static func markDictated(sessions: [String], ofActivity activityID: Int64, at now: Double, in db: Database) throws {
        for session in Set(sessions) {
            try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO dictated_session (session_id, activity_id, marked_at) VALUES (?, ?, ?)"
            ).execute(arguments: [session, activityID, now])
        }
    }

    /// The sessions of an activity recorded with dictation.
    static func dictatedSessions(ofActivity activityID: Int64, in db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT session_id FROM dictated_session WHERE activity_id = ?", arguments: [activityID]))
    }

    /// Whether the student's setting says every session is dictated.
    static func isDictating(in db: Database) throws -> Bool {
        try String.fetchOne(db, sql: "SELECT value FROM student_setting WHERE name = 'dictation'") == "on"
    }

    /// Turns the dictation setting on or off.
    static func setDictating(_ isOn: Bool, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO student_setting (name, value) VALUES ('dictation', ?)
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, arguments: [isOn ? "on" : "off"])
    }
}
