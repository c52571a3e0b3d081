import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// Evidence that expires, through the built clsfile: the handout says how long, the student is
/// told and may withdraw what has not left, and the teacher's store deletes the history past
/// those days, keeping the figures, and says so.
@Suite(.serialized)
struct EvidenceExpiryTests {
    private static func report(of teacher: Person) throws -> ClassReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(ClassReport.self, from: Data(try teacher.clsfile("class-report", "--json").output.utf8))
    }

    private static func work(of name: String, in report: ClassReport) throws -> StudentWork {
        try #require(report.assignments.first?.students.first { $0.studentName == name }).work
    }

    @Test func theHandoutsDaysDeleteTheHistoryAndKeepTheFigures() async throws {
        let scratch = try Scratch()
        let (teacher, ada, bob) = try Person.classOfThree(in: scratch)
        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let document = shared.appendingPathComponent("essay.txt")
        try Data("Rivers\n".utf8).write(to: document)
        let elsewhere = scratch.url.appendingPathComponent("x.clshandout").path

        // Bad input on purpose: refused before any handout is written.
        for days in ["0", "36601", "-2", "soon"] {
            let refused = try teacher.clsfile(
                "assign", document.path, "--title", "x", "--process-evidence", "figures", "--keep-evidence", days, "--output", elsewhere,
                expecting: 64)
            #expect(
                refused.errorOutput.contains("--keep-evidence") || refused.errorOutput.contains("keep-evidence"), "\(refused.errorOutput)")
        }
        let alone = try teacher.clsfile(
            "assign", document.path, "--title", "x", "--keep-evidence", "30", "--output", elsewhere, expecting: 64)
        #expect(alone.errorOutput.contains("give it with --process-evidence"), "\(alone.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere))

        try teacher.clsfile("assign", document.path, "--title", "Essay", "--process-evidence", "replay", "--keep-evidence", "30")
        let handoutURL = Handout.defaultURL(beside: document)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: handoutURL)) as? [String: Any]
        #expect(json?["keepEvidenceDays"] as? Int == 30)
        #expect(try Handout.read(from: handoutURL).version == 2, "a field older clsfiles skip")

        // Each student is told how long, and works; Bob withdraws his evidence before it leaves.
        var essays: [String: URL] = [:]
        for (name, person) in [("ada", ada), ("bob", bob)] {
            let folder = scratch.url.appendingPathComponent("\(name)-work")
            try FileManager.default.copyItem(at: shared, to: folder)
            let essay = folder.appendingPathComponent("essay.txt")
            essays[name] = essay
            let accepted = try person.clsfile("accept", essay.path + ".clshandout")
            #expect(accepted.output.contains("keep it 30 days after your work last changed"), "\(accepted.output)")
            try person.edit(essay, appending: "A river runs through the valley.")
            try person.edit(essay, appending: "It meets the sea below the town.")
        }
        let withdrawn = try bob.clsfile("evidence", "Essay", "--withdraw")
        #expect(withdrawn.output.contains("withdrew the process evidence of 'Essay'"), "\(withdrawn.output)")
        let view = try bob.clsfile("evidence", "Essay").output
        #expect(view.contains("Withdrawn:") && !view.contains("Snapshots:"), "\(view)")
        #expect(
            try ada.clsfile("evidence", "Essay").output.contains("Kept:       your teacher's computer and class server keep it 30 days"))
        let both = try bob.clsfile("evidence", "Essay", "--withdraw", "--restore", expecting: 64)
        #expect(both.errorOutput.contains("--withdraw and --restore stand alone"), "\(both.errorOutput)")
        let unnamed = try bob.clsfile("evidence", "--withdraw", expecting: 64)
        #expect(unnamed.errorOutput.contains("name it (clsfile evidence ASSIGNMENT --withdraw)"), "\(unnamed.errorOutput)")

        // A handout edited to keep its evidence 0 days is refused on accepting, whole.
        let forged = scratch.url.appendingPathComponent("forged.clshandout")
        let text = try String(contentsOf: handoutURL, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "\"keepEvidenceDays\" : 30", with: "\"keepEvidenceDays\" : 0").utf8).write(to: forged)
        let refusedHandout = try ada.clsfile("accept", forged.path, "--document", essays["ada"]?.path ?? "", expecting: 65)
        #expect(
            refusedHandout.errorOutput.contains("keeps process evidence 0 days, not between 1 and 36600")
                && refusedHandout.errorOutput.contains("ask your teacher for a new copy"), "\(refusedHandout.errorOutput)")

        // An assignment that asks for no evidence has none to withdraw, and says so.
        let notes = shared.appendingPathComponent("notes.txt")
        try Data("Notes\n".utf8).write(to: notes)
        try teacher.clsfile("assign", notes.path, "--title", "Notes")
        let adaNotes = scratch.url.appendingPathComponent("ada-work/notes.txt")
        try FileManager.default.copyItem(at: notes, to: adaNotes)
        try ada.clsfile("accept", notes.path + ".clshandout", "--document", adaNotes.path)
        let nothing = try ada.clsfile("evidence", "Notes", "--withdraw").output
        #expect(nothing.contains("'Notes' asks for no process evidence: your writing history stays on this computer already"), "\(nothing)")
        #expect(try await ada.store(.student).assignments().allSatisfy { $0.evidenceWithdrawnAt == nil })

        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try ada.clsfile("submit", "--output", inbox.path)
        try bob.clsfile("submit", "--output", inbox.path)
        try teacher.clsfile("collect", inbox.path)
        let collected = try Self.report(of: teacher)
        let adaBefore = try Self.work(of: "Ada Lovelace", in: collected)
        let bobWork = try Self.work(of: "Bob Moses", in: collected)
        #expect((adaBefore.history?.count ?? 0) >= 2 && adaBefore.evidenceExpiredAt == nil)
        #expect(bobWork.history == nil && bobWork.evidenceWithdrawnAt != nil && bobWork.sessions.count == 2, "the figures came")
        let bobDetail = try teacher.clsfile("class-report", "--student", "Bob Moses").output
        #expect(bobDetail.contains("Evidence:   withdrawn by the student"), "\(bobDetail)")

        // Within the 30 days nothing goes.
        #expect(try teacher.clsfile("expire", "--dry-run").output.contains("no process evidence is kept past its handout's days"))

        // Ada's submission 31 days old (the store edited as a clock would have aged it).
        let storePath = teacher.store(.teacher).storeURL.path
        try run(
            try Tool.sqlite3.require(),
            [storePath, "UPDATE submission SET submitted_at = submitted_at - 31 * 86400 WHERE student_name = 'Ada Lovelace'"])
        let dryRun = try teacher.clsfile("expire", "--dry-run").output
        #expect(
            dryRun.contains("would delete the process evidence of Ada Lovelace, 'Essay'") && dryRun.contains("(kept 30 days)")
                && dryRun.contains(": \(adaBefore.history?.count ?? 0) history rows and ") && dryRun.contains(" snapshots of the text;"),
            "\(dryRun)")
        #expect(
            try Self.work(of: "Ada Lovelace", in: try Self.report(of: teacher)).history == adaBefore.history, "a dry run deletes nothing")

        let expired = try teacher.clsfile("expire").output
        #expect(expired.contains("deleted the process evidence of Ada Lovelace") && !expired.contains("Bob"), "\(expired)")
        let adaAfter = try Self.work(of: "Ada Lovelace", in: try Self.report(of: teacher))
        #expect(adaAfter.history == nil && adaAfter.snapshots == nil && adaAfter.evidenceExpiredAt != nil)
        #expect(
            adaAfter.activeSeconds == adaBefore.activeSeconds && adaAfter.sessions == adaBefore.sessions
                && adaAfter.primaryItem == adaBefore.primaryItem && adaAfter.additionalItems == adaBefore.additionalItems
                && adaAfter.progress == adaBefore.progress, "the figures stay")
        let adaDetail = try teacher.clsfile("class-report", "--student", "Ada Lovelace").output
        #expect(adaDetail.contains("Evidence:   deleted") && adaDetail.contains("past the days the handout keeps it"), "\(adaDetail)")

        // Collecting the same file again brings nothing back; expiring again finds nothing.
        let again = try teacher.clsfile("collect", inbox.path).output
        #expect(again.contains("unchanged") && !again.contains("deleted the process evidence"), "\(again)")
        #expect(try Self.work(of: "Ada Lovelace", in: try Self.report(of: teacher)).history == nil)
        #expect(try teacher.clsfile("expire").output.contains("no process evidence is kept past its handout's days"))

        // Bob takes his withdrawal back: his next submission carries the history.
        #expect(try bob.clsfile("evidence", "Essay", "--restore").output.contains("goes with your work again"))
        try bob.clsfile("submit", "--output", inbox.path)
        try teacher.clsfile("collect", inbox.path)
        let restored = try Self.work(of: "Bob Moses", in: try Self.report(of: teacher))
        #expect((restored.history?.count ?? 0) >= 2 && restored.evidenceWithdrawnAt == nil)
        // A teacher has nothing to withdraw, a student nothing to expire.
        try teacher.clsfile("evidence", "Essay", "--withdraw", expecting: 64)
        try ada.clsfile("expire", expecting: 64)
    }
}
