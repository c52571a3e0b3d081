import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// The student's own view of their process evidence (`clsfile evidence`): exactly what a
/// submission carries, notes on the work, a session and a paste, dictated sessions; and the
/// teacher's report, which shows each note beside what it explains.
@Suite(.serialized)
struct EvidenceCommandTests {
    /// A file recorded in the person's own store, read with a development-mode role in force: `show`
    /// says which store it read, so "no activity" does not read as work lost.
    @Test func showOfAFileRecordedInAnotherRoleSaysWhichStoreItRead() throws {
        let scratch = try Scratch()
        let ada = try Person("ada", in: scratch)
        let essay = try scratch.file("essay.txt", "three words here\n")
        try ada.clsfile("hook", "edit", essay.path)
        #expect(!(try ada.clsfile("show", essay.path).output.contains("role's store")))
        try ada.clsfile("role", "student", "--name", "Ada Lovelace")
        let shown = try ada.clsfile("show", essay.path).output
        #expect(shown.contains("No activity recorded for") && shown.contains("This is the student role's store"), "\(shown)")
        #expect(shown.contains("`clsfile role off` reads your own"), "\(shown)")
    }

    /// Ada's work on an essay that asks for each session's figures: a session typed in the
    /// editor, one with a paste (as a plugin counts it), one dictated (the setting on).
    static func adasEssay(in scratch: Scratch) throws -> (teacher: Person, ada: Person, handout: Handout, essay: URL) {
        let (teacher, ada, _) = try Person.classOfThree(in: scratch)
        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let document = shared.appendingPathComponent("essay.txt")
        try Data("Rivers\n".utf8).write(to: document)
        try teacher.clsfile("assign", document.path, "--title", "Essay on rivers", "--process-evidence", "figures")
        let handout = try Handout.read(from: Handout.defaultURL(beside: document))
        let folder = scratch.url.appendingPathComponent("ada-work")
        try FileManager.default.copyItem(at: shared, to: folder)
        let essay = folder.appendingPathComponent("essay.txt")
        try ada.clsfile("accept", essay.path + ".clshandout")
        try ada.edit(essay, appending: "A first sentence typed by hand.")
        /// A hook call from a shell of its own: each session is another editor run, as two
        /// editors are (one run's open would go on with its session before).
        func hook(_ arguments: [String]) throws {
            let result = try run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "\"$0\" \"$@\"; exit $?", try builtExecutable("clsfile").path, "hook"] + arguments,
                environment: ada.environment)
            #expect(result.status == 0, "clsfile hook \(arguments): \(result.errorOutput)")
        }
        func pluginSession(appending text: String, typed: Int, pasted: Int) throws {
            try hook(["open", essay.path])
            Thread.sleep(forTimeInterval: 1.1)
            let handle = try FileHandle(forWritingTo: essay)
            handle.seekToEndOfFile()
            handle.write(Data((text + "\n").utf8))
            try handle.close()
            try hook(["close", essay.path, "--typed", "\(typed)", "--pasted", "\(pasted)", "--largest-paste", "\(pasted)"])
        }
        try pluginSession(appending: "A paragraph from my outline, pasted in one piece.", typed: 5, pasted: 48)
        #expect(try ada.clsfile("settings", "--dictation", "on").output.contains("dictation: on"))
        // In `clsfile open`, an editor run of its own: one plugin run's open would go on with its session.
        try ada.edit(essay, appending: "A sentence spoken to the computer.")
        #expect(try ada.clsfile("settings", "--dictation", "off").output.contains("dictation: off"))
        return (teacher, ada, handout, essay)
    }

    @Test func theStudentNotesTheEvidenceAndTheTeacherSeesEachNoteBesideItsSession() throws {
        let scratch = try Scratch()
        let (teacher, ada, handout, essay) = try Self.adasEssay(in: scratch)

        // The student's own `show` says which session was dictated, beside its "pasted 0".
        let shown = try ada.clsfile("show", essay.path).output
        let dictated = shown.split(separator: "\n").filter { $0.contains("dictation: input counted as typed") }
        #expect(dictated.count == 1 && dictated.first?.contains("pasted 0") == true, "\(shown)")

        // Before anything leaves: what goes, what stays, every session numbered, the dictated one marked.
        let view = try ada.clsfile("evidence", "Essay on rivers").output
        #expect(view.contains("nothing has been sent") && view.contains("each session's figures"), "\(view)")
        let rows = view.split(separator: "\n").filter { $0.hasPrefix("  1 ") || $0.hasPrefix("  2 ") || $0.hasPrefix("  3 ") }
        #expect(rows.count == 3, "\(view)")
        #expect(rows.count == 3 && rows[1].contains(" 48 ") && rows[2].hasSuffix("dictation") && !rows[1].contains("dictation"), "\(view)")

        // Notes on the work, on session 1, on the paste of session 2.
        #expect(
            try ada.clsfile("evidence", "essay on rivers", "--note", "My first essay in this class.").output
                .contains("noted the work of 'Essay on rivers'"))
        try ada.clsfile("evidence", "Essay on rivers", "--session", "1", "--note", "Written at the library")
        try ada.clsfile("evidence", "Essay on rivers", "--session", "2", "--paste", "--note", "Pasted from my outline in notes.md")
        try ada.clsfile("evidence", "Essay on rivers", "--session", "3", "--note", "Dictated: my wrist hurt")
        #expect(
            try ada.clsfile("evidence", "Essay on rivers", "--session", "3", "--clear-note").output.contains(
                "removed the note on session 3"))
        #expect(try ada.clsfile("evidence", "Essay on rivers", "--session", "3", "--clear-note").output.contains("there was no note"))
        let noted = try ada.clsfile("evidence", "Essay on rivers").output
        #expect(noted.contains("Your note:  \u{201C}My first essay in this class.\u{201D}"), "\(noted)")
        let lines = noted.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("  1 ") })
        #expect(lines[first + 1] == "     note: \u{201C}Written at the library\u{201D}", "\(noted)")
        let second = try #require(lines.firstIndex { $0.hasPrefix("  2 ") })
        #expect(lines[second + 1] == "     note on the paste: \u{201C}Pasted from my outline in notes.md\u{201D}", "\(noted)")

        // The evidence view is what submit seals, byte for byte.
        let json = try ada.clsfile("evidence", "Essay on rivers", "--json").output
        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try ada.clsfile("submit", "--output", inbox.path)
        let file = try #require(try FileManager.default.contentsOfDirectory(at: inbox, includingPropertiesForKeys: nil).first)
        let opened = try SubmissionFile.read(from: file).openWork(
            with: handout.assignment, teacher: teacher.identity(.teacher), file: file
        ).work
        #expect(json == String(decoding: try opened.sealedJSON(), as: UTF8.self) + "\n")
        #expect(opened.notes?.count == 3 && opened.sessions.map { $0.isDictated == true } == [false, false, true])
        let sessions = WritingHistory(entries: try #require(opened.history)).sessions
        #expect(sessions.map(\.pastedCharacters) == [nil, 48, 0], "the dictated burst is typed: \(sessions)")
        #expect(try ada.clsfile("evidence", "Essay on rivers").output.contains("Leaves:     a submission written "))

        // The teacher's report: each note under its session, the dictated session said.
        try teacher.clsfile("collect", inbox.path)
        let overview = try teacher.clsfile("class-report").output
        #expect(overview.contains("    note: \u{201C}My first essay in this class.\u{201D}"), "\(overview)")
        #expect(overview.contains("2 notes on sessions, 1 session by dictation"), "\(overview)")
        let detail = try teacher.clsfile("class-report", "--student", "Ada Lovelace").output.split(separator: "\n").map(String.init)
        let sessionLines = detail.indices.filter { detail[$0].hasPrefix("  20") }
        #expect(sessionLines.count == 3, "\(detail)")
        if sessionLines.count == 3 {
            #expect(detail[sessionLines[0] + 1] == "    note: \u{201C}Written at the library\u{201D}")
            #expect(detail[sessionLines[1] + 1] == "    note on the paste: \u{201C}Pasted from my outline in notes.md\u{201D}")
            #expect(detail[sessionLines[2]].contains("(dictation") && !detail[sessionLines[1]].contains("dictation"))
        }
        let reportJSON = try teacher.clsfile("class-report", "--json").output
        #expect(reportJSON.contains("\"text\" : \"Pasted from my outline in notes.md\"") && reportJSON.contains("\"isDictated\" : true"))
    }

    @Test func badNotesAndWrongRolesAreRefusedWithTheWayOut() throws {
        let scratch = try Scratch()
        let (teacher, ada, _, _) = try Self.adasEssay(in: scratch)
        let unknown = try ada.clsfile("evidence", "Essay on rivers", "--session", "9", "--note", "x", expecting: 64)
        #expect(unknown.errorOutput.contains("There is no session 9: the work on 'Essay on rivers' has 3"), "\(unknown.errorOutput)")
        let long = try ada.clsfile("evidence", "Essay on rivers", "--note", String(repeating: "x", count: 2_001), expecting: 64)
        #expect(long.errorOutput.contains("2001 characters, more than the 2000"), "\(long.errorOutput)")
        let control = try ada.clsfile("evidence", "Essay on rivers", "--note", "red \u{1B}[31mtext", expecting: 64)
        #expect(control.errorOutput.contains("control character (U+001B)"), "\(control.errorOutput)")
        let noPaste = try ada.clsfile("evidence", "Essay on rivers", "--session", "1", "--paste", "--note", "x", expecting: 64)
        #expect(noPaste.errorOutput.contains("Nothing was counted as pasted in session 1"), "\(noPaste.errorOutput)")
        let noAssignment = try ada.clsfile("evidence", "Essay on lakes", "--note", "x", expecting: 66)
        #expect(noAssignment.errorOutput.contains("no assignment 'Essay on lakes'"), "\(noAssignment.errorOutput)")
        let withoutAssignment = try ada.clsfile("evidence", "--note", "x", expecting: 64)
        #expect(withoutAssignment.errorOutput.contains("name it"), "\(withoutAssignment.errorOutput)")
        let replay = try ada.clsfile("evidence", "Essay on rivers", "--replay", expecting: 66)
        #expect(replay.errorOutput.contains("does not send the text of your writing"), "\(replay.errorOutput)")
        let asTeacher = try teacher.clsfile("evidence", expecting: 64)
        #expect(asTeacher.errorOutput.contains("`clsfile evidence` is for a student"), "\(asTeacher.errorOutput)")
        #expect(try teacher.clsfile("settings", "--dictation", "on", expecting: 64).errorOutput.contains("the role now is teacher"))
        // Nothing refused was kept.
        let view = try ada.clsfile("evidence", "Essay on rivers").output
        #expect(!view.contains("Your note") && !view.contains("note: ") && !view.contains("note on the paste"), "\(view)")
    }

    @Test func theHTMLPageSaysWhatLeavesAndShowsTheNotes() throws {
        let scratch = try Scratch()
        let (_, ada, _, _) = try Self.adasEssay(in: scratch)
        try ada.clsfile("evidence", "Essay on rivers", "--session", "2", "--paste", "--note", "From <my> outline")
        let page = try ada.clsfile("evidence", "Essay on rivers", "--html").output
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains("nothing has been sent"))
        #expect(page.contains("Your note on the paste of session 2") && page.contains("From &lt;my&gt; outline"))
        #expect(page.contains("Session 3") && page.contains("written by dictation"))
        #expect(page.contains("id=\"session-bars\""), "the pictures of the history it sends")
    }
}
