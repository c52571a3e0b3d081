@testable import ClassServer
import ClassDashboard
import ClassSync
import ClassWire
import Classroom
import Foundation
import OpenClassKit
import PostgresNIO
import Testing
import TestSupport

/// Evidence that expires on the class server, and a student's withdrawal over sync: students
/// sync to a real `clsfile-server serve` on a private PostgreSQL; `prune` deletes the history of
/// work unchanged for longer than its handout keeps it and the teacher's page says so; a
/// withdrawal keeps what had not left on the student's machine and tells the teacher.
@Suite(.serialized)
struct EvidenceExpirySyncTests {
    typealias Room = EvidenceSyncTests.Room

    /// Ages a student's work on the server, as days without a change would.
    private func age(_ student: EvidenceSyncTests.Student, byDays days: Int, in room: Room) throws {
        _ = try room.school.cluster.psql(
            "UPDATE clsfile.work SET updated_at = now() - interval '\(days) days' WHERE student_id = '\(student.accountID)'",
            database: "clsfile")
    }

    private func prune(_ room: Room) async throws -> ServerDatabase.ExpiredEvidence {
        try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { try await $0.pruneExpiredEvidence() }
    }

    @Test func pruneDeletesTheHistoryPastTheHandoutsDaysAndKeepsTheFigures() async throws {
        let room = try await Room()
        let ada = try await EvidenceSyncTests.student("ada", asking: .replay, writingFirst: 2, in: room)
        let bob = try await EvidenceSyncTests.student("bob", asking: .replay, writingFirst: 2, in: room)
        _ = try await ada.client.sendOutbox(of: ada.store)
        _ = try await bob.client.sendOutbox(of: bob.store)
        let adaRows = try room.storedRows(of: ada), bobRows = try room.storedRows(of: bob)
        #expect(Int(adaRows) ?? 0 >= 2 && Int(bobRows) ?? 0 >= 2)
        let figures = try room.school.cluster.psql(
            "SELECT detail::text FROM clsfile.work WHERE student_id = '\(ada.accountID)'", database: "clsfile")

        // The handout does not say: 180 days. Ada's work unchanged 179 days stays, 181 goes.
        try age(ada, byDays: 179, in: room)
        #expect(try await prune(room) == .init(works: 0, rows: 0))
        try age(ada, byDays: 181, in: room)
        #expect(try await prune(room) == .init(works: 1, rows: Int(adaRows) ?? 0))
        #expect(try room.storedRows(of: ada) == "0" && room.storedRows(of: bob) == bobRows)
        #expect(
            try room.school.cluster.psql(
                "SELECT detail::text FROM clsfile.work WHERE student_id = '\(ada.accountID)'", database: "clsfile") == figures,
            "the work's figures stay as they were")
        #expect(
            try room.school.cluster.psql(
                "SELECT kept_days FROM clsfile.evidence_expiry WHERE student_id = '\(ada.accountID)'", database: "clsfile") == "180")
        let history = try #require(try await room.history(of: ada))
        #expect(history.entries.isEmpty && history.expiredAt != nil)
        let page = try await room.page(of: ada)
        #expect(
            page.status == 200 && page.body.contains("id=\"evidence-status\"") && page.body.contains("Process evidence deleted"),
            "\(page.body)")
        #expect(page.body.contains("data-sessions=\"2\""), "the sessions are still there")
        #expect(try await prune(room) == .init(works: 0, rows: 0), "nothing left to delete")

        // The teacher registers the handout again keeping 10 days: Bob's work unchanged 11 goes.
        let handout = SyncWire.HandoutRequest.Handout(
            identifier: Room.assignment(asking: .replay),
            assignment: .init(title: "Essay", className: "9A", documentName: "essay.txt", processEvidence: .replay, keptEvidenceDays: 10))
        _ = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
            try await database.registerHandouts([handout], inClass: room.classID, as: room.teacher)
        }
        try age(bob, byDays: 9, in: room)
        #expect(try await prune(room) == .init(works: 0, rows: 0))
        try age(bob, byDays: 11, in: room)
        #expect(try await prune(room) == .init(works: 1, rows: Int(bobRows) ?? 0))
        #expect(
            try room.school.cluster.psql(
                "SELECT kept_days FROM clsfile.evidence_expiry WHERE student_id = '\(bob.accountID)'", database: "clsfile") == "10")

        // A student reads only their own expiry; the app role deletes none.
        try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
            let seen = try await database.asAccount(bob.accountID) { connection in
                try await connection.run("SELECT count(*) FROM clsfile.evidence_expiry", logger: database.logger)
                    .decode(Int64.self).collected().first
            }
            #expect(seen == 1)
            await #expect(throws: (any Error).self) {
                try await database.asAccount(bob.accountID) { connection in
                    _ = try await connection.run("DELETE FROM clsfile.evidence_expiry", logger: database.logger).collected()
                }
            }
        }
        // A handout keeping a number of days out of range is refused whole.
        var wrong = handout
        wrong.assignment.keptEvidenceDays = 0
        let refused = #expect(throws: ServerError.self) { try OperationCheck.check([wrong]) }
        #expect(refused?.message.contains("process evidence kept 0 days") == true, "\(refused?.message ?? "")")
    }

    @Test func aWithdrawalKeepsWhatHadNotLeftAndTheTeacherIsTold() async throws {
        let room = try await Room()
        let cy = try await EvidenceSyncTests.student("cy", asking: .figures, writingFirst: 1, in: room)
        _ = try await cy.client.sendOutbox(of: cy.store)
        let sent = try room.storedRows(of: cy)
        #expect(Int(sent) ?? 0 >= 1)

        try await EvidenceSyncTests.write(2, to: cy)
        #expect(try await cy.store.withdrawEvidence(ofAssignment: cy.assignment) > 0)
        _ = try await cy.client.sendOutbox(of: cy.store)
        #expect(try room.storedRows(of: cy) == sent, "what had left stays; nothing more came")
        let page = try await room.page(of: cy)
        #expect(page.body.contains("Process evidence withdrawn by the student"), "\(page.body)")
        let sessions = try #require(try await cy.store.existingActivity(for: cy.essay)).workSessions.count
        #expect(page.body.contains("data-sessions=\"\(sessions)\""), "the figures of every session came")

        // Taken back: the whole history goes again, and the page no longer says withdrawn.
        #expect(try await cy.store.restoreEvidence(ofAssignment: cy.assignment))
        _ = try await cy.client.sendOutbox(of: cy.store)
        #expect(try await room.history(of: cy)?.entries == (try await cy.store.writingHistory(for: cy.essay).entries))
        let restored = try await room.page(of: cy)
        #expect(!restored.body.contains("withdrawn by the student") && restored.body.contains("id=\"writing-history\""))
        #expect(restored.body.contains("data-sessions=\"\(sessions)\""), "the same figures")
    }

    @Test func notesAndDictationMarksReachTheServersPageBesideTheirSessions() async throws {
        let room = try await Room()
        let dee = try await EvidenceSyncTests.student("dee", asking: .figures, writingFirst: 1, in: room)
        // A second session, written by dictation, marked in the save that stops it.
        let activity = try await dee.store.fetchActivity(for: dee.essay)
        let end = Date().addingTimeInterval(-30)
        activity.start(at: end.addingTimeInterval(-60), continuingWithin: 0)
        activity.markSessionDictated()
        activity.stop(at: end, idleTimeout: nil)
        try await dee.store.save()
        let identifiers = activity.workSessionIdentifiers
        #expect(identifiers.count == 2)
        let waiting = try await dee.store.pendingSyncOperations(limit: 500).map(\.operation)
        #expect(waiting.contains { $0.dictatedSessions == [identifiers[1]] }, "the save that marks it carries the mark")

        // Notes on the work, on session 1 and on the paste of session 2, one changed, one removed.
        try await dee.store.setEvidenceNote(EvidenceNote(kind: .work, text: "My first essay here."), ofAssignment: dee.assignment)
        try await dee.store.setEvidenceNote(
            EvidenceNote(kind: .session, sessionIdentifier: identifiers[0], text: "At the library"), ofAssignment: dee.assignment)
        try await dee.store.setEvidenceNote(
            EvidenceNote(kind: .paste, sessionIdentifier: identifiers[1], text: "From my outline"), ofAssignment: dee.assignment)
        try await dee.store.setEvidenceNote(
            EvidenceNote(kind: .session, sessionIdentifier: identifiers[0], text: "At the town library"), ofAssignment: dee.assignment)
        #expect(try await dee.store.removeEvidenceNote(.work, sessionIdentifier: nil, ofAssignment: dee.assignment))
        _ = try await dee.client.sendOutbox(of: dee.store)

        // The server's copy names the sessions as the student's store does, with notes and marks.
        let report = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
            try await database.classReport(room.classID, as: room.teacher)
        }
        let work = try #require(report.assignments.first { $0.identifier == dee.assignment }?.students.first).work
        #expect(work.sessions.map(\.identifier) == identifiers.map(Optional.some))
        #expect(work.sessions.map { $0.isDictated == true } == [false, true])
        #expect(work.note(.work) == nil, "the note removed is gone")
        #expect(work.note(.session, on: work.sessions[0])?.text == "At the town library")
        #expect(work.note(.paste, on: work.sessions[1])?.text == "From my outline")
        let page = try await room.page(of: dee)
        #expect(page.body.contains("At the town library") && page.body.contains("From my outline"), "\(page.body)")
        #expect(page.body.contains("dictation: input counted as typed") && !page.body.contains("My first essay here."))

        // A note the student's clsfile would refuse is refused by the server too.
        var forged = waiting[0]
        forged.id = UUID()
        var record = SyncOperation.NoteRecord(EvidenceNote(kind: .work, text: "fine"))
        record.text = "line one\nline two"
        forged.notes = [record]
        let refused = #expect(throws: ServerError.self) { try OperationCheck.check([forged]) }
        #expect(refused?.message.contains("a note that holds a control character") == true, "\(refused?.message ?? "")")
        record.text = "fine"
        record.session = "s1"
        forged.notes = [record]
        #expect(throws: ServerError.self) { try OperationCheck.check([forged]) }
    }
}
