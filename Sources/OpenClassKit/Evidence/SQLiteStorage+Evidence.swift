import Foundation
internal import GRDB

/// The evidence's side of the store: each call is one transaction around ``EvidenceTables``.
extension SQLiteStorage {
    func evidenceNotes(ofAssignment identifier: String) async throws -> [EvidenceNote] {
        try await reading { db in try EvidenceTables.notes(ofAssignment: identifier, in: db) }
    }

    func write(_ note: EvidenceNote, ofAssignment identifier: String) async throws {
        try await writing { db in try EvidenceTables.write(note, ofAssignment: identifier, in: db) }
    }

    func removeNote(_ kind: EvidenceNote.Kind, session: String?, ofAssignment identifier: String) async throws -> Bool {
        try await writing { db in try EvidenceTables.removeNote(kind, session: session, ofAssignment: identifier, in: db) }
    }

    func dictatedSessions(ofActivity activityID: Int64) async throws -> Set<String> {
        try await reading { db in try EvidenceTables.dictatedSessions(ofActivity: activityID, in: db) }
    }

    func isDictating() async throws -> Bool {
        try await reading { db in try EvidenceTables.isDictating(in: db) }
    }

    func setDictating(_ isOn: Bool) async throws {
        try await writing { db in try EvidenceTables.setDictating(isOn, in: db) }
    }
}
