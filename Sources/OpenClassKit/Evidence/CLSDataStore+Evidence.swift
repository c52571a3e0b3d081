import Foundation

/// The student's side of process evidence: notes on the work, its sessions and their pastes, and
/// the sessions written by dictation or an input method. Not part of ClassKit.
extension CLSDataStore {
    // MARK: Notes

    /// The student's notes on an accepted assignment's work, the note on the work first.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read.
    package func evidenceNotes(ofAssignment identifier: String) async throws -> [EvidenceNote] {
        try await storage.evidenceNotes(ofAssignment: identifier)
    }

    /// Keeps a note on an assignment's work, replacing the note of the same kind on the same session.
    /// - Throws: ``CLSError`` `.invalidArgument` for a note whose text
    ///   ``EvidenceNote/problem(with:)`` refuses, or an assignment the store does not hold.
    package func setEvidenceNote(_ note: EvidenceNote, ofAssignment identifier: String) async throws {
        try await storage.write(note, ofAssignment: identifier)
    }

    /// Removes a note on an assignment's work.
    /// - Parameters:
    ///   - kind: What the note is about.
    ///   - sessionIdentifier: Its session; nil for a note on the work.
    ///   - identifier: The assignment.
    /// - Returns: False when there was no such note.
    @discardableResult
    package func removeEvidenceNote(_ kind: EvidenceNote.Kind, sessionIdentifier: String?, ofAssignment identifier: String)
        async throws -> Bool
    {
        try await storage.removeNote(kind, session: sessionIdentifier, ofAssignment: identifier)
    }

    // MARK: Dictation

    /// The identifiers of an activity's sessions recorded with dictation or an input method (see
    /// ``CLSActivity/workSessionIdentifiers``).
    package func dictatedSessions(of activity: CLSActivity) async throws -> Set<String> {
        let activityID = activity.activityID
        guard activityID != 0 else { return [] }
        return try await storage.dictatedSessions(ofActivity: activityID)
    }

    /// Whether the student said that they write by dictation or an input method: every session
    /// recorded then is marked, and its input counted as typed, never as pasted.
    package func isDictating() async throws -> Bool {
        try await storage.isDictating()
    }

    /// Sets whether every session recorded from now on is written by dictation or an input method.
    package func setDictating(_ isOn: Bool) async throws {
        try await storage.setDictating(isOn)
    }

    // MARK: Withdrawal and expiry

    /// Withdraws the process evidence of an accepted assignment that has not left this machine:
    /// the history rows waiting for a class server are dropped and none is sent from now on, and
    /// a submission carries the figures only, saying the evidence was withdrawn. Withdrawing
    /// again keeps the first date.
    /// - Returns: How many queued operations of history rows were dropped.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    package func withdrawEvidence(ofAssignment identifier: String, at date: Date = Date()) async throws -> Int {
        try await storage.writing { db in try ClassroomTables.withdrawEvidence(ofAssignment: identifier, at: date, in: db) }
    }

    /// Takes a withdrawal back: the evidence goes with the work again, the whole history to a
    /// class server with a snapshot of the work.
    /// - Returns: False when the evidence was not withdrawn (nothing changed).
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    package func restoreEvidence(ofAssignment identifier: String, at date: Date = Date()) async throws -> Bool {
        try await storage.writing { db in try ClassroomTables.restoreEvidence(ofAssignment: identifier, at: date, in: db) }
    }

    /// Replaces the work a teacher's store keeps for a submission, keeping its digest (so that
    /// collecting the same submission file again changes nothing): how expired process evidence
    /// is deleted from it.
    /// - Returns: False when the store holds no such submission.
    package func replacePayload(of submission: Submission, with payload: Data) async throws -> Bool {
        try await storage.writing { db in try ClassroomTables.replacePayload(of: submission, with: payload, in: db) }
    }
}
