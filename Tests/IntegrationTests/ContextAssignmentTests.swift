import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// A teacher assigns a context of an imported course (a chapter with several documents); students
/// work on its documents; the class report shows the context's averages and each document's row.
struct ContextAssignmentTests {
    static let manifest = """
        {"contexts": [
          {"data": {"identifierPath": ["algebra"], "title": "Algebra", "type": "book", "isAssignable": false}},
          {"data": {"identifierPath": ["algebra", "ch1"], "title": "Chapter 1", "type": "chapter"}},
          {"data": {"identifierPath": ["algebra", "ch1", "notes"], "title": "Notes", "type": "section"}, "document": "notes.md"},
          {"data": {"identifierPath": ["algebra", "ch1", "exercises"], "title": "Exercises", "type": "exercise"}, "document": "exercises.md"},
          {"data": {"identifierPath": ["algebra", "ch2"], "title": "Chapter 2", "type": "chapter"}, "document": "ch2.md"},
          {"data": {"identifierPath": ["algebra", "ch3"], "title": "Chapter 3", "type": "chapter"}}
        ]}
        """

    @Test func aChapterIsAssignedWorkedOnCollectedAndAveraged() async throws {
        let scratch = try Scratch()
        let (teacher, ada, bob) = try Person.classOfThree(in: scratch)

        // The teacher's course folder: a manifest and its documents, imported.
        let course = scratch.url.appending(path: "course")
        try FileManager.default.createDirectory(at: course, withIntermediateDirectories: true)
        for (name, text) in [
            ("notes.md", "Letters stand for numbers.\n"), ("exercises.md", "1. Solve x + 2 = 5.\n"), ("ch2.md", "Equations.\n")
        ] {
            try Data(text.utf8).write(to: course.appending(path: name))
        }
        try Data(Self.manifest.utf8).write(to: course.appending(path: "course.json"))
        try teacher.clsfile("contexts", "import", course.appending(path: "course.json").path)

        // A container is refused; the chapter hands out its two documents.
        let refused = try teacher.clsfile("assign", "--context", "algebra", "--title", "Algebra", expecting: 66)
        #expect(
            refused.errorOutput.contains(
                "the context algebra is not assignable (the course marks it as a container); assign one of its children"))
        let nowhere = try teacher.clsfile("assign", "--context", "algebra/ch9", "--title", "T", expecting: 66)
        #expect(
            nowhere.errorOutput.contains("no context algebra/ch9 in ")
                && nowhere.errorOutput.contains("`clsfile contexts` lists what is there"))
        let empty = try teacher.clsfile("assign", "--context", "algebra/ch3", "--title", "T", expecting: 66)
        #expect(empty.errorOutput.contains("the context algebra/ch3 has no documents at or below it: name them in the course manifest"))
        let both = try teacher.clsfile(
            "assign", course.appending(path: "ch2.md").path, "--context", "algebra/ch1", "--title", "T", expecting: 64)
        #expect(both.errorOutput.contains("Give a document or --context, not both."))
        let output = try teacher.clsfile("assign", "--context", "algebra/ch1", "--title", "T", "--output", "x", expecting: 64)
        #expect(output.errorOutput.contains("with --context each handout is written beside its document"))
        #expect(try teacher.clsfile("assignments").output.hasPrefix("No assignments."), "nothing was recorded by the refusals")
        let assigned = try teacher.clsfile("assign", "--context", "algebra/ch1", "--title", "Chapter 1", "--target-words", "10")
        #expect(assigned.output.contains("'Chapter 1' (algebra › ch1): 2 documents"), "\(assigned.output)")
        let handouts = try ["notes.md", "exercises.md"].map { try Handout.read(from: course.appending(path: "\($0).clshandout")) }
        #expect(handouts.map(\.title) == ["Chapter 1: Notes", "Chapter 1: Exercises"])
        #expect(handouts.allSatisfy { $0.course?.assignedPath == ["algebra", "ch1"] })
        #expect(handouts.map { $0.course?.documentPath ?? [] } == [["algebra", "ch1", "notes"], ["algebra", "ch1", "exercises"]])
        #expect(!FileManager.default.fileExists(atPath: course.appending(path: "ch2.md.clshandout").path), "ch2 is not in the chapter")

        // Each student gets a copy of the folder. Ada accepts both; Bob opens one (auto-accepted).
        var folders: [URL] = []
        for name in ["ada", "bob"] {
            let folder = scratch.url.appending(path: "\(name)-course")
            try FileManager.default.copyItem(at: course, to: folder)
            folders.append(folder)
        }
        for document in ["notes.md", "exercises.md"] {
            let accepted = try ada.clsfile("accept", folders[0].appending(path: "\(document).clshandout").path)
            #expect(accepted.output.contains("in algebra › ch1 ›"))
        }
        try ada.edit(folders[0].appending(path: "notes.md"), appending: "x and y are variables here.")
        try ada.edit(folders[0].appending(path: "exercises.md"), appending: "x = 3 so the answer is three.")
        try ada.clsfile("done", folders[0].appending(path: "notes.md").path)
        try ada.clsfile("done", folders[0].appending(path: "exercises.md").path)
        try bob.edit(folders[1].appending(path: "notes.md"), appending: "variables")
        // Work on a document of the course that was not assigned stays home.
        try ada.edit(folders[0].appending(path: "ch2.md"), appending: "my private notes")

        // The student's own store records the work under the context, as the course names it.
        let shown = try ada.clsfile("show", folders[0].appending(path: "exercises.md").path).output
        #expect(shown.contains("Context:    algebra › ch1 › exercises"), "\(shown)")

        // Only the assigned documents leave the students' machines.
        let inbox = scratch.url.appending(path: "inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try ada.clsfile("submit", "--output", inbox.path)
        try bob.clsfile("submit", "--output", inbox.path)
        let files = try FileManager.default.contentsOfDirectory(atPath: inbox.path)
        #expect(files.count == 3, "Ada's two documents and Bob's one: \(files)")
        for file in files {
            let raw = try String(contentsOf: inbox.appending(path: file), encoding: .utf8)
            #expect(!raw.contains("ch2") && !raw.contains("private"))
        }
        try teacher.clsfile("collect", inbox.path)

        // The context's averages over both students, and each document's rows.
        let report = try teacher.clsfile("class-report").output
        #expect(report.contains("Chapter 1 (context algebra › ch1): 2 documents, each below"), "\(report)")
        #expect(report.contains("2 students, 1 done with every document"), "\(report)")
        #expect(report.contains("Chapter 1: Notes") && report.contains("Chapter 1: Exercises"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(teacher.clsfile("class-report", "--json").output.utf8)) as? [String: Any])
        let contexts = try #require(json["contexts"] as? [[String: Any]])
        #expect(
            contexts.count == 1 && contexts[0]["identifierPath"] as? [String] == ["algebra", "ch1"]
                && contexts[0]["title"] as? String == "Chapter 1")
        #expect(contexts[0]["studentCount"] as? Int == 2 && contexts[0]["doneCount"] as? Int == 1)
        // Ada wrote on both documents, Bob on one: the averages count Bob's missing document as no progress.
        let data = try await ClassReport(store: teacher.store(.teacher))
        let perStudent = data.assignments.flatMap(\.students).reduce(into: [String: [Double]]()) {
            $0[$1.studentName, default: []].append($1.work.progress)
        }
        let expected = perStudent.values.map { $0.reduce(0, +) / 2 }.reduce(0, +) / 2
        let average = try #require(data.contexts.first?.averageProgress)
        #expect(abs(average - expected) < 1e-9 && (perStudent["Bob Moses"]?.count ?? 0) == 1)
    }
}
