import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// The context code of the 2018–2020 talks (`Samples/ContextSample`), run as a program, twice,
/// against the real store.
struct ContextSampleTests {
    @Test func runningTheSampleTwiceBuildsTheTreeOnceAndRecordsTwoAttempts() async throws {
        let scratch = try Scratch()
        let environment = ["CLSFILE_STORE": scratch.storeURL.path]
        let sample = try builtExecutable("ContextSample")
        let thumbnail = scratch.url.appending(path: "quiz.png")
        try TestImages.png(width: 330, height: 330).write(to: thumbnail)

        let first = try run(sample, ["--answers", "1,0,1", "--thumbnail", thumbnail.path], environment: environment)
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(
            first.output.contains(
                "delegate made: clsfile/fun-with-science, clsfile/fun-with-science/measurements, clsfile/fun-with-science/measurements/measurements-quiz\n"
            ))
        #expect(first.output.contains("clsfile/fun-with-science/measurements/measurements-quiz: scored 2 of 3"))
        let second = try run(sample, ["--answers", "1,1,1,1"], environment: environment)
        #expect(second.status == 0, "\(second.errorOutput)")
        #expect(second.output.contains("delegate made: nothing\n") && second.output.contains("scored 4 of 4"))

        // The tree, its metadata and the current attempt, as `clsfile contexts --json` lists them.
        let listed = try run(try builtExecutable("clsfile"), ["contexts", "--json"], environment: environment)
        let contexts = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])?["contexts"] as? [[String: Any]])
        #expect(
            contexts.map { ($0["identifierPath"] as? [String])?.joined(separator: "/") ?? "" } == [
                "addition-quiz", "fun-with-science", "fun-with-science/measurements", "fun-with-science/measurements/measurements-quiz",
                "multiplication-quiz"
            ])
        #expect(contexts[1]["isAssignable"] as? Bool == false && contexts[4]["displayOrder"] as? Int == 1)
        let quiz = contexts[3]
        #expect(quiz["summary"] as? String == "A quiz on units of length, mass and time.")
        #expect(quiz["suggestedAge"] as? [String] == ["9", "11"] && quiz["suggestedCompletionTime"] as? [String] == ["15", "20"])
        #expect(quiz["progressReportingCapabilities"] as? [String] == ["binary", "duration", "percent", "quantity", "score"])
        let attempt = try #require(quiz["currentActivity"] as? [String: Any])
        let score = try #require(attempt["primaryItem"] as? [String: Any])
        #expect(score["score"] as? Double == 4 && score["maxScore"] as? Double == 4 && score["identifier"] as? String == "total-score")
        #expect((attempt["additionalItems"] as? [[String: Any]])?.compactMap { $0["value"] as? Bool } == [true, true, true, true])
        #expect(attempt["progress"] as? Double == 1 && attempt["isStarted"] as? Bool == false)

        // Two attempts, the first kept with its own score; nothing left running or active.
        let store = scratch.store()
        let context = try #require(
            try await store.contexts(matchingIdentifierPath: ["fun-with-science", "measurements", "measurements-quiz"]).last)
        #expect(context.thumbnail == (try Data(contentsOf: thumbnail)))
        let attempts = try run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                scratch.storeURL.path,
                """
                SELECT a.attempt, i.score FROM activity a JOIN context c ON c.id = a.context_id
                JOIN activity_item i ON i.activity_id = a.id AND i.role = 'primary'
                WHERE c.identifier = 'measurements-quiz' ORDER BY a.attempt
                """
            ])
        #expect(attempts.output == "1|2.0\n2|4.0\n", "\(attempts.errorOutput)")
        #expect(store.activeContext == nil && store.runningActivity == nil)
        #expect(try #require(context.currentActivity).duration > 0)
    }
}
