import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// What people read, compared whole with the files in `Golden/`: `--help`, `show`, `list`,
/// `report`, `stats` and `class-report`, as text and JSON. A change of output shows up here as a
/// diff to review; `CLSFILE_UPDATE_GOLDEN=1 swift test --filter GoldenOutputTests` writes the files
/// anew after a deliberate change.
@Suite(.serialized)
struct GoldenOutputTests {
    private static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    /// Monday 13 January 2025, 09:00 UTC: the sessions' dates.
    private static let day = Date(timeIntervalSince1970: 1_736_758_800)

    /// Compares `output` with `Golden/NAME`, or writes it there when updating.
    private func check(_ output: String, _ name: String, scratch: Scratch, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = Self.normalized(output, scratch: scratch)
        let url = Self.folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["CLSFILE_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(
            text == expected, "\(name) differs from Golden/\(name):\n\(Self.difference(expected, text))",
            sourceLocation: sourceLocation)
    }

    /// The scratch folder's path as `$SCRATCH`, the times of the save (the store's own clock) as
    /// `<now>`, and random identifiers as `<uuid>` and `[<id>]`.
    private static func normalized(_ output: String, scratch: Scratch) -> String {
        var text = output.replacingOccurrences(of: scratch.url.resolvingSymlinksInPath().path, with: "$SCRATCH")
            .replacingOccurrences(of: scratch.url.path, with: "$SCRATCH")
        // Today's and yesterday's, for a run that crosses midnight (UTC).
        let days = [Date(), Date().addingTimeInterval(-86_400)].map { $0.formatted(.iso8601.year().month().day().dateSeparator(.dash)) }
        for day in days {
            for pattern in ["\(day)T[0-9:.]+Z", "\(day) [0-9:]+"] {
                text = text.replacingOccurrences(of: pattern, with: "<now>", options: .regularExpression)
            }
        }
        // Assignment identifiers are random, and so are their short forms.
        text = text.replacingOccurrences(
            of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", with: "<uuid>",
            options: .regularExpression)
        return text.replacingOccurrences(of: "\\[[0-9a-f]{8}\\]", with: "[<id>]", options: .regularExpression)
    }

    /// The first line that differs, for the failure message.
    private static func difference(_ expected: String, _ actual: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(old.count, new.count) {
            let was = index < old.count ? String(old[index]) : "(nothing)"
            let now = index < new.count ? String(new[index]) : "(nothing)"
            if was != now { return "line \(index + 1):\n- \(was)\n+ \(now)" }
        }
        return "(the same lines)"
    }

    private func clsfile(_ arguments: [String], scratch: Scratch) throws -> String {
        let result = try run(
            try builtExecutable("clsfile"), arguments,
            environment: ["TZ": "UTC", "COLUMNS": "100", "HOME": scratch.url.path, "CLSFILE_STORE": scratch.storeURL.path])
        #expect(result.status == 0, "clsfile \(arguments.joined(separator: " ")): \(result.errorOutput)")
        return result.output
    }

    @Test func helpTellsEveryCommand() throws {
        let scratch = try Scratch()
        try check(try clsfile(["--help"], scratch: scratch), "help.txt", scratch: scratch)
        for command in ["open", "hook", "show", "list", "report", "stats", "class-report"] {
            try check(try clsfile([command, "--help"], scratch: scratch), "help-\(command).txt", scratch: scratch)
        }
    }

    /// Three files as the recorder leaves them: an essay toward a target, a reading, a checklist.
    private func recordedStore(in scratch: Scratch) async throws -> [URL] {
        let store = scratch.store()
        let essay = try scratch.file("essay.txt", "Rivers carry water from the hills down to the sea.\n")
        let book = try scratch.file("book.txt", String(repeating: "A line of the book.\n", count: 40))
        let plan = try scratch.file("plan.md", "- [x] outline\n- [x] draft\n- [ ] revise\n")
        /// Work from `start` for `work` seconds, a pulse a minute, then a close at `close`.
        func session(_ activity: CLSActivity, from start: Double, work: Double, close: Double) {
            activity.start(at: Self.day.addingTimeInterval(start), continuingWithin: 300)
            for offset in stride(from: 60, to: work, by: 60) + [work] {
                activity.recordPulse(at: Self.day.addingTimeInterval(start + offset), idleTimeout: 300)
            }
            activity.stop(at: Self.day.addingTimeInterval(start + close), idleTimeout: 300)
        }
        func quantity(_ identifier: String, _ title: String, _ value: Double) -> CLSQuantityItem {
            let item = CLSQuantityItem(identifier: identifier, title: title)
            item.quantity = value
            return item
        }

        let written = try await store.fetchActivity(for: essay)
        // Fractions of a second: each session rounded on its own would not add up to the time.
        session(written, from: 0, work: 754.6, close: 1_200)
        session(written, from: 3_600, work: 95.6, close: 100.6)
        written.primaryActivityItem = quantity(ItemIdentifier.wordCount, "Word Count", 11)
        written.addAdditionalActivityItem(quantity(ItemIdentifier.targetWords, "Target Words", 50))
        written.addAdditionalActivityItem(quantity(ItemIdentifier.openTime, "Open Time", 1_300))
        written.addAdditionalActivityItem(quantity(ItemIdentifier.readabilityGrade, "Readability Grade", 3.6))
        written.progressBasis = .targetWords
        written.progress = 0.22

        let read = try await store.fetchActivity(for: book)
        session(read, from: 7_200, work: 600, close: 610)
        read.addAdditionalActivityItem(
            {
                let item = CLSBinaryItem(identifier: ItemIdentifier.reading, title: "Reading", type: .yesNo)
                item.value = true
                return item
            }())
        read.progressBasis = .viewedShare
        read.addProgressRange(fromStart: 0, toEnd: 0.25)
        read.addProgressRange(fromStart: 0.5, toEnd: 0.6)

        let planned = try await store.fetchActivity(for: plan)
        session(planned, from: 10_800, work: 42, close: 42)
        planned.addAdditionalActivityItem(CLSScoreItem(identifier: ItemIdentifier.checklist, title: "Checklist", score: 2, maxScore: 3))
        planned.progressBasis = .checklist
        planned.progress = 2.0 / 3
        try await store.save()
        return [essay, book, plan]
    }

    @Test func showListAndReportReadTheStoreAsPeopleDo() async throws {
        let scratch = try Scratch()
        let files = try await recordedStore(in: scratch)
        for file in files {
            let name = file.deletingPathExtension().lastPathComponent
            try check(try clsfile(["show", file.path], scratch: scratch), "show-\(name).txt", scratch: scratch)
            try check(try clsfile(["show", file.path, "--json"], scratch: scratch), "show-\(name).json", scratch: scratch)
        }
        try check(try clsfile(["list"], scratch: scratch), "list.txt", scratch: scratch)
        try check(try clsfile(["list", "--json"], scratch: scratch), "list.json", scratch: scratch)
        try check(try clsfile(["report"], scratch: scratch), "report.txt", scratch: scratch)
        try check(try clsfile(["report", "--json"], scratch: scratch), "report.json", scratch: scratch)
        try check(try clsfile(["report", "--csv"], scratch: scratch), "report.csv", scratch: scratch)
    }

    @Test func statsCountsFixtures() throws {
        let scratch = try Scratch()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ContentDetectorsTests/Fixtures")
        let files = ["english.txt", "notes.md", "essay.tex", "english-lo.docx", "english.odt", "notebook.ipynb"]
        for file in files {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(file), to: scratch.url.appendingPathComponent(file))
        }
        let paths = files.map { scratch.url.appendingPathComponent($0).path }
        try check(try clsfile(["stats", "--target-words", "500"] + paths, scratch: scratch), "stats.txt", scratch: scratch)
        try check(try clsfile(["stats", "--json"] + paths, scratch: scratch), "stats.json", scratch: scratch)
    }

    @Test func classReportOfAnAssignmentWithoutSubmissions() throws {
        let scratch = try Scratch()
        let handout = try scratch.file("rivers.txt", "Write about rivers.\n")
        _ = try clsfile(["role", "teacher"], scratch: scratch)
        _ = try clsfile(
            [
                "assign", handout.path, "--title", "Rivers", "--class", "Year 9", "--target-words", "500",
                "--due", "2025-01-20"
            ], scratch: scratch)
        try check(try clsfile(["class-report"], scratch: scratch), "class-report.txt", scratch: scratch)
        try check(try clsfile(["class-report", "--json"], scratch: scratch), "class-report.json", scratch: scratch)
    }
}
