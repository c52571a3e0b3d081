import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// `clsfile contexts import` and `clsfile contexts`, through the real binary.
struct ContextsCommandTests {
    private func clsfile(_ arguments: [String], store: URL) throws -> ProcessResult {
        try run(try builtExecutable("clsfile"), arguments + ["--store", store.path])
    }

    static let manifest = """
        {"contexts": [
          {"data": {"identifierPath": ["algebra"], "title": "Algebra", "type": "book", "topic": "math", "suggestedAge": [11, 14]}},
          {"data": {"identifierPath": ["algebra", "ch1"], "title": "Chapter 1", "type": "chapter", "summary": "Letters for numbers",
                    "progressReportingCapabilities": [{"kind": "percent"}, {"kind": 4, "details": "out of 10"}]}, "document": "ch1.md"},
          {"data": {"identifierPath": ["algebra", "ch1", "quiz"], "title": "Quiz", "type": "quiz", "isAssignable": false,
                    "suggestedCompletionTime": [10, 15], "universalLinkURL": "https://example.com/quiz"}},
          {"data": {"identifierPath": ["clsfile", "algebra", "ch2"], "title": "Chapter 2", "type": 2, "displayOrder": 2}}
        ]}
        """

    @Test func aManifestImportsOnceAndListsAsATree() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.file("course.json", Self.manifest)
        let first = try clsfile(["contexts", "import", manifest.path], store: scratch.storeURL)
        #expect(
            first.status == 0
                && first.output
                    == "contexts: 4 created, 0 updated, 0 unchanged\ndocuments: 0 tied to their contexts, 0 tied already, 1 not found\n",
            "\(first.errorOutput)")
        #expect(first.errorOutput.contains("algebra/ch1: cannot open \(scratch.url.path)/ch1.md"))
        #expect(first.errorOutput.contains("its context was imported: import the manifest again once the document is there"))
        let again = try clsfile(["contexts", "import", manifest.path], store: scratch.storeURL)
        #expect(again.output.hasPrefix("contexts: 0 created, 0 updated, 4 unchanged\n"))

        let listed = try clsfile(["contexts"], store: scratch.storeURL).output.split(separator: "\n").map(String.init)
        #expect(listed.map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["PATH", "algebra", "ch1", "quiz", "ch2"])
        #expect(listed[1].contains("math; ages 11–14") && listed[3].contains("not assignable; 10–15 min"))
        #expect(listed[2].contains("reports percent, score"))
        let below = try clsfile(["contexts", "algebra", "ch1"], store: scratch.storeURL).output
        #expect(below.split(separator: "\n").count == 2 && below.contains("quiz"))

        // What was imported is what the API reads.
        let store = scratch.store() // held: a context's parent is held by its data store's tree
        let quiz = try #require(try await store.contexts(matchingIdentifierPath: ["algebra", "ch1", "quiz"]).last)
        #expect(quiz.type == .quiz && !quiz.isAssignable && quiz.suggestedCompletionTime == NSRange(location: 10, length: 5))
        #expect(quiz.universalLinkURL == URL(string: "https://example.com/quiz"))
        let chapter = try #require(quiz.parent)
        #expect(chapter.summary == "Letters for numbers")
        #expect(
            chapter.progressReportingCapabilities == [
                CLSProgressReportingCapability(kind: .percent, details: nil),
                CLSProgressReportingCapability(kind: .score, details: "out of 10")
            ])

        // A changed entry updates its context only.
        try Data(Self.manifest.replacingOccurrences(of: "\"Quiz\"", with: "\"Final quiz\"").utf8).write(to: manifest)
        #expect(
            try clsfile(["contexts", "import", manifest.path], store: scratch.storeURL).output
                .hasPrefix("contexts: 0 created, 1 updated, 3 unchanged\n"))
    }

    @Test func aCourseDocumentRecordsUnderItsContextWhereverItIsOpenedAndMoved() async throws {
        let scratch = try Scratch()
        let manifest = try scratch.file("course.json", Self.manifest)
        let chapter = try scratch.file("ch1.md", "one two three\n")
        let store = scratch.storeURL
        // Work recorded before the import moves into the context.
        for event in ["open", "save", "close"] { #expect(try clsfile(["hook", event, chapter.path], store: store).status == 0) }
        let imported = try clsfile(["contexts", "import", manifest.path], store: store)
        #expect(
            imported.output
                == "contexts: 4 created, 0 updated, 0 unchanged\ndocuments: 1 tied to their contexts, 0 tied already, 0 not found\n",
            "\(imported.errorOutput)")

        // A plugin's hooks record there; show and report give the identifier path.
        try Data("one two three four five\n".utf8).write(to: chapter)
        for event in ["open", "save", "close"] { #expect(try clsfile(["hook", event, chapter.path], store: store).status == 0) }
        let shown = try clsfile(["show", chapter.path], store: store).output
        #expect(shown.contains("Context:    algebra › ch1") && shown.contains("Word Count: 5"), "\(shown)")
        let json =
            try JSONSerialization.jsonObject(with: Data(try clsfile(["show", "--json", chapter.path], store: store).output.utf8))
            as? [String: Any]
        #expect(json?["contextPath"] as? [String] == ["algebra", "ch1"])
        let csv = try clsfile(["report", "--csv"], store: store).output.split(separator: "\n")
        #expect(csv.first?.hasSuffix(",context") == true && csv.count == 2 && csv[1].hasSuffix(",algebra/ch1"))
        #expect(try clsfile(["report"], store: store).output.contains("ch1.md (algebra › ch1)"))

        // Moved with mv, it keeps its context and its history.
        let moved = scratch.url.appending(path: "chapter-one.md")
        try FileManager.default.moveItem(at: chapter, to: moved)
        for event in ["open", "save", "close"] { #expect(try clsfile(["hook", event, moved.path], store: store).status == 0) }
        let afterMove = try clsfile(["show", moved.path], store: store).output
        #expect(afterMove.contains("Context:    algebra › ch1") && afterMove.contains("Word Count: 5"), "\(afterMove)")

        // The library reaches the same activity through the context; importing again changes nothing.
        let again = try clsfile(["contexts", "import", manifest.path], store: store)
        #expect(
            again.output.contains("contexts: 0 created, 0 updated, 4 unchanged")
                && again.output.contains("0 tied to their contexts, 0 tied already, 1 not found"),
            "the manifest still names ch1.md, which moved: \(again.output)")
        let data = scratch.store()
        let context = try #require(try await data.contexts(matchingIdentifierPath: ["algebra", "ch1"]).last)
        let activity = try #require(context.currentActivity)
        // The three rounds of hooks, all from this process's run, are one session: the span its open
        // marked, then a span from the input (the save) of each round.
        #expect((activity.primaryActivityItem as? CLSQuantityItem)?.quantity == 5)
        #expect(activity.workSessions.count == 1 && activity.timeSpans.count == 4, "\(activity.timeSpans)")
        #expect(context.fileURL?.path == moved.path)
        #expect(try await data.fetchActivity(for: moved) === activity)

        // The listing shows each context's current work, as text and JSON.
        let listed = try clsfile(["contexts"], store: store).output
        #expect(listed.contains("WORK") && listed.contains("Word Count 5"), "\(listed)")
        let tree =
            try JSONSerialization.jsonObject(with: Data(try clsfile(["contexts", "--json"], store: store).output.utf8)) as? [String: Any]
        let entries = tree?["contexts"] as? [[String: Any]] ?? []
        let ch1 = entries.first { $0["identifierPath"] as? [String] == ["algebra", "ch1"] }
        #expect(ch1?["document"] as? String == moved.path && (ch1?["currentActivity"] as? [String: Any])?["path"] as? String == moved.path)
        #expect(entries.count == 4)
    }

    @Test func badManifestsSayWhatIsWrongAndSaveNothing() throws {
        let scratch = try Scratch()
        func refused(_ text: String) throws -> String {
            let file = try scratch.file("bad-\(UUID().uuidString.prefix(6)).json", text)
            let result = try clsfile(["contexts", "import", file.path], store: scratch.storeURL)
            #expect(result.status == 66, "\(result.errorOutput)")
            return result.errorOutput
        }
        #expect(
            try refused(#"[{"data": {"identifierPath": ["x", "y"], "title": "Y", "type": "quiz"}}]"#)
                .contains("entry 1 of the manifest (x/y) comes before its parent x; list parents first"))
        #expect(
            try refused(#"{"contexts": [{"data": {"identifierPath": ["x"], "type": "quiz"}}]}"#)
                .contains(".contexts[0].data.title is missing"))
        #expect(
            try refused(#"[{"data": {"identifierPath": ["x"], "title": "X", "type": "quizz"}}]"#)
                .contains("'quizz' is none of"))
        #expect(try refused("not json").contains("is not"))
        #expect(
            try refused(
                #"[{"data": {"identifierPath": ["ok"], "title": "Ok", "type": "book"}}, {"data": {"identifierPath": ["ok", "a", "b"], "title": "B", "type": "quiz"}}]"#
            )
            .contains("comes before its parent"))
        // Not a regular file: refused at once, never read (a FIFO would never end).
        let fifo = scratch.url.appending(path: "course.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let fromFIFO = try clsfile(["contexts", "import", fifo.path], store: scratch.storeURL)
        #expect(fromFIFO.status == 66 && fromFIFO.errorOutput.contains("it is not a regular file"), "\(fromFIFO.errorOutput)")
        #expect(
            try clsfile(["contexts", "import", scratch.url.path], store: scratch.storeURL).errorOutput.contains("it is not a regular file"))
        #expect(try refused("").contains("is empty; write its contexts as JSON"))
        #expect(try clsfile(["contexts"], store: scratch.storeURL).output.contains("No contexts yet"), "nothing was saved")
        #expect(try clsfile(["contexts", "nowhere"], store: scratch.storeURL).errorOutput.contains("no context nowhere"))
    }
}
