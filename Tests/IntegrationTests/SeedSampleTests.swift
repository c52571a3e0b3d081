import Foundation
import Testing
import StoreTestSupport
import TestSupport

/// The talk's `openFile()` / `closeFile()` code, run as a program against the real store.
struct SeedSampleTests {
    @Test func runningTheSampleTwiceRecordsTwoSessionsOnOneActivity() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "The quick brown fox jumps over the lazy dog.\n")
        let environment = ["CLSFILE_STORE": scratch.storeURL.path]
        let sample = try builtExecutable("SeedSample")
        let started = Date()
        for _ in 0..<2 {
            let result = try run(sample, [file.path, "--seconds", "0.3", "--target-words", "18"], environment: environment)
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(result.output.contains("9 words"))
        }
        let listed = try run(try builtExecutable("clsfile"), ["list", "--json"], environment: environment)
        let activities = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(activities.count == 1)
        let activity = try #require(activities.first)
        #expect(activity["sessionCount"] as? Int == 2)
        #expect(activity["isStarted"] as? Bool == false)
        #expect(activity["progress"] as? Double == 0.5)
        let duration = try #require(activity["durationSeconds"] as? Double)
        #expect(duration >= 0.6 && duration <= Date().timeIntervalSince(started))
        let primary = try #require(activity["primaryItem"] as? [String: Any])
        #expect(primary["identifier"] as? String == "total_word_count")
        #expect(primary["title"] as? String == "Word Count")
        #expect(primary["quantity"] as? Double == 9)
    }

    @Test func theSampleReportsAMissingFile() throws {
        let scratch = try Scratch()
        let missing = scratch.url.appendingPathComponent("absent.txt").path
        let result = try run(
            try builtExecutable("SeedSample"), [missing],
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains(missing))
    }
}
