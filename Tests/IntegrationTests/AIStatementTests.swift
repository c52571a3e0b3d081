import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// The statement of AI use through the built clsfile: the handout asks, the student is told and
/// answers, submit refuses without it, and the teacher's report and xAPI export carry the
/// student's words.
@Suite(.serialized)
struct AIStatementTests {
    static let note = "A chatbot pointed out two run-on sentences; I rewrote them myself."

    @Test func aRequiredStatementGoesFromTheHandoutToTheReportAndTheXAPIExport() async throws {
        let scratch = try Scratch()
        let (teacher, ada, _) = try Person.classOfThree(in: scratch)
        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let document = shared.appendingPathComponent("essay.txt")
        try Data("Rivers\n".utf8).write(to: document)
        let refused = try teacher.clsfile(
            "assign", document.path, "--title", "x", "--ai-statement", "maybe", "--output",
            scratch.url.appendingPathComponent("x.clshandout").path, expecting: 64)
        #expect(refused.errorOutput.contains("required") && refused.errorOutput.contains("optional"), "\(refused.errorOutput)")
        try teacher.clsfile("assign", document.path, "--title", "Essay on rivers", "--ai-statement", "required")
        let handout = try Handout.read(from: Handout.defaultURL(beside: document))
        #expect(handout.aiStatementRequirement == .required)
        // A field older clsfiles skip: the format's version stays.
        #expect(handout.version == 2)
        let handoutJSON = try JSONSerialization.jsonObject(with: Data(contentsOf: Handout.defaultURL(beside: document))) as? [String: Any]
        #expect(handoutJSON?["aiStatement"] as? String == "required")

        // Ada is told on accepting, works, and cannot submit without saying.
        let folder = scratch.url.appendingPathComponent("ada-work")
        try FileManager.default.copyItem(at: shared, to: folder)
        let essay = folder.appendingPathComponent("essay.txt")
        let accepted = try ada.clsfile("accept", essay.path + ".clshandout")
        #expect(accepted.output.contains("this assignment asks you to say how you used AI tools"), "\(accepted.output)")
        try ada.edit(essay, appending: "A river runs through the valley and the town.")
        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let missing = try ada.clsfile("submit", "--output", inbox.path, expecting: 64)
        #expect(
            missing.errorOutput.contains("'Essay on rivers' asks you to say how you used AI tools")
                && missing.errorOutput.contains("--ai-use none|ideas|feedback|editing|drafting")
                && missing.errorOutput.contains("nothing was written"), "\(missing.errorOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path).isEmpty)

        // Bad input on purpose, each refused before anything is recorded or written.
        let unknown = try ada.clsfile("submit", "--output", inbox.path, "--ai-use", "a-little", expecting: 64)
        #expect(unknown.errorOutput.contains("none") && unknown.errorOutput.contains("drafting"), "\(unknown.errorOutput)")
        let long = try ada.clsfile(
            "submit", "--output", inbox.path, "--ai-use", "ideas", "--ai-note", String(repeating: "w", count: 2_001), expecting: 64)
        #expect(long.errorOutput.contains("2001 characters") && long.errorOutput.contains("more than 2000"), "\(long.errorOutput)")
        let control = try ada.clsfile("submit", "--output", inbox.path, "--ai-use", "ideas", "--ai-note", "one\ntwo", expecting: 64)
        #expect(control.errorOutput.contains("control character"), "\(control.errorOutput)")
        let alone = try ada.clsfile("submit", "--output", inbox.path, "--ai-note", "no kind", expecting: 64)
        #expect(alone.errorOutput.contains("--ai-note goes with --ai-use"), "\(alone.errorOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path).isEmpty)
        #expect(try await ada.store(.student).assignments().first?.aiStatement == nil)
        // A teacher has no statement to give.
        let teacherSubmits = try teacher.clsfile("submit", "--output", inbox.path, "--ai-use", "none", expecting: 64)
        #expect(teacherSubmits.errorOutput.contains("student"), "\(teacherSubmits.errorOutput)")
        try teacher.clsfile("done", document.path, "--ai-use", "none", expecting: 64)

        // With the statement, the file is written; the store keeps it, and a later submit sends it again.
        try ada.clsfile("submit", "--output", inbox.path, "--ai-use", "feedback", "--ai-note", Self.note)
        #expect(try await ada.store(.student).assignments().first?.aiStatement?.use == .feedback)
        try ada.clsfile("submit", "--output", inbox.path)
        let files = try FileManager.default.contentsOfDirectory(at: inbox, includingPropertiesForKeys: nil)
        let file = try #require(files.first)
        #expect(files.count == 1)
        let opened = try SubmissionFile.read(from: file).openWork(with: handout.assignment, teacher: teacher.identity(.teacher), file: file)
        #expect(opened.work.aiStatement?.use == .feedback && opened.work.aiStatement?.note == Self.note)
        // What the student reads of their evidence says that it was sent, and the statement it carried.
        let evidence = try ada.clsfile("evidence").output
        #expect(evidence.contains("Leaves:     a submission written ") && !evidence.contains("nothing has been sent"), "\(evidence)")
        #expect(evidence.contains("AI use:     ") && evidence.contains(", in your words: \u{201C}"), "\(evidence)")

        // The teacher collects: the report's text and JSON show it, beside the figures.
        try teacher.clsfile("collect", inbox.path)
        let text = try teacher.clsfile("class-report").output
        #expect(text.contains("AI statement required") && text.contains("AI USE") && text.contains("feedback"), "\(text)")
        let detail = try teacher.clsfile("class-report", "--student", "Ada Lovelace").output
        #expect(detail.contains("AI use:     AI for feedback: \"\(Self.note)\""), "\(detail)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let report = try decoder.decode(ClassReport.self, from: Data(try teacher.clsfile("class-report", "--json").output.utf8))
        let summary = try #require(report.assignments.first)
        #expect(summary.aiStatementRequirement == .required)
        #expect(summary.students.first?.work.aiStatement?.use == .feedback && summary.students.first?.work.aiStatement?.note == Self.note)

        // The xAPI export carries it as context extensions, valid as the export tests check.
        let exported = try teacher.clsfile("export", "--xapi").output
        #expect(XAPIValidator.problems(inExport: Data(exported.utf8)) == [])
        let statements = try JSONDecoder().decode([XAPIStatement].self, from: Data(exported.utf8))
        let progressed = try #require(statements.first { $0.verb.id == XAPIStatementBuilder.Verb.progressed.iri })
        #expect(progressed.context.extensions?[XAPIStatementBuilder.aiUseExtension] == "feedback")
        #expect(progressed.context.extensions?[XAPIStatementBuilder.aiUseNoteExtension] == Self.note)
    }

    @Test func anOptionalStatementMayBeAbsentAndDoneRecordsOne() async throws {
        let scratch = try Scratch()
        let (teacher, ada, _) = try Person.classOfThree(in: scratch)
        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        for name in ["poem", "notes"] {
            let document = shared.appendingPathComponent("\(name).txt")
            try Data("\(name)\n".utf8).write(to: document)
            try teacher.clsfile("assign", document.path, "--title", name.capitalized, "--ai-statement", "optional")
        }
        let folder = scratch.url.appendingPathComponent("ada-work")
        try FileManager.default.copyItem(at: shared, to: folder)
        let poem = folder.appendingPathComponent("poem.txt")
        let accepted = try ada.clsfile("accept", poem.path + ".clshandout")
        #expect(accepted.output.contains("it is up to you"), "\(accepted.output)")
        try ada.clsfile("accept", folder.appendingPathComponent("notes.txt.clshandout").path)
        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        // Two assignments: a statement on submit must say which.
        let which = try ada.clsfile("submit", "--output", inbox.path, "--ai-use", "none", expecting: 64)
        #expect(which.errorOutput.contains("name it with --assignment"), "\(which.errorOutput)")
        try ada.clsfile("submit", "--output", inbox.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path).count == 2)

        let done = try ada.clsfile("done", poem.path, "--ai-use", "editing", "--ai-note", "Spell-checked the last stanza.")
        #expect(done.output.contains("AI use: AI for editing: \"Spell-checked the last stanza.\""), "\(done.output)")
        try ada.clsfile("submit", "--output", inbox.path, "--assignment", "Poem")
        try teacher.clsfile("collect", inbox.path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let report = try decoder.decode(ClassReport.self, from: Data(try teacher.clsfile("class-report", "--json").output.utf8))
        let statements = Dictionary(
            uniqueKeysWithValues: report.assignments.map { ($0.title, $0.students.first?.work.aiStatement) })
        #expect(statements["Poem"]??.use == .editing && statements["Poem"]??.note == "Spell-checked the last stanza.")
        #expect(statements["Notes"] == .some(nil), "optional, and not given")
        let text = try teacher.clsfile("class-report", "Notes").output
        #expect(text.contains("AI USE") && text.contains("not given"), "\(text)")
    }
}
