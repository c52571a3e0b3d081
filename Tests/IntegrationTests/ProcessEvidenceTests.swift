import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// The privacy switch of the writing history: the teacher decides on the handout, the student is
/// told on accepting, and only then does the history (and, for replay, the text's snapshots)
/// travel in the submission.
@Suite(.serialized)
struct ProcessEvidenceTests {
    @Test func theHistoryTravelsOnlyWhenTheHandoutAsksAndTheTeacherSeesIt() async throws {
        let scratch = try Scratch()
        let (teacher, ada, _) = try Person.classOfThree(in: scratch)
        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let kinds: [(name: String, evidence: String?)] = [("plain", nil), ("figures", "figures"), ("replay", "replay")]
        var handouts: [String: Handout] = [:]
        for kind in kinds {
            let document = shared.appendingPathComponent("\(kind.name).txt")
            try Data("Title of the \(kind.name) essay\n".utf8).write(to: document)
            try teacher.clsfile(
                arguments: ["assign", document.path, "--title", "Essay \(kind.name)", "--target-words", "30"]
                    + (kind.evidence.map { ["--process-evidence", $0] } ?? []))
            handouts[kind.name] = try Handout.read(from: Handout.defaultURL(beside: document))
            #expect(handouts[kind.name]?.processEvidence?.rawValue == kind.evidence)
        }
        let bad = try teacher.clsfile(
            "assign", shared.appendingPathComponent("plain.txt").path, "--title", "x",
            "--process-evidence", "everything", "--output", scratch.url.appendingPathComponent("x.clshandout").path,
            expecting: 64)
        #expect(bad.errorOutput.contains("figures") && bad.errorOutput.contains("replay"), "\(bad.errorOutput)")

        // Ada accepts each and is told, in words, what will leave her machine; then writes twice.
        let folder = scratch.url.appendingPathComponent("ada-work")
        try FileManager.default.copyItem(at: shared, to: folder)
        var finalTexts: [String: Data] = [:]
        for kind in kinds {
            let accepted = try ada.clsfile("accept", folder.appendingPathComponent("\(kind.name).txt.clshandout").path)
            switch kind.evidence {
            case nil: #expect(accepted.output.contains("your writing history stays on this computer"), "\(accepted.output)")
            case "figures":
                #expect(
                    accepted.output.contains("each session's figures")
                        && accepted.output.contains("the text of earlier versions stays on this computer"), "\(accepted.output)")
            default: #expect(accepted.output.contains("the snapshots of your text go with your submission"), "\(accepted.output)")
            }
            let file = folder.appendingPathComponent("\(kind.name).txt")
            try ada.edit(file, appending: "A first sentence about the \(kind.name) river.")
            try ada.edit(file, appending: "A second sentence, written in another session.")
            finalTexts[kind.name] = try Data(contentsOf: file)
        }

        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try ada.clsfile("submit", "--output", inbox.path)
        let files = try FileManager.default.contentsOfDirectory(at: inbox, includingPropertiesForKeys: nil)
        #expect(files.count == 3)
        for kind in kinds {
            let handout = try #require(handouts[kind.name])
            let file = try #require(files.first { $0.lastPathComponent.hasPrefix("essay-\(kind.name).") })
            let opened = try SubmissionFile.read(from: file).openWork(
                with: handout.assignment, teacher: teacher.identity(.teacher), file: file)
            // What the submission's plaintext holds, encoded back with the keys it had.
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let plaintext = String(decoding: try encoder.encode(opened.work), as: UTF8.self)
            switch kind.evidence {
            case nil:
                #expect(opened.work.history == nil && opened.work.snapshots == nil)
                #expect(!plaintext.contains("history") && !plaintext.contains("snapshots"))
            case "figures":
                let history = try #require(opened.work.history)
                // The first session's start (the handout's text), and each session's end.
                #expect(history.map(\.isSessionStart) == [true, false, false], "\(history)")
                #expect(history.filter(\.endsSession).count == 2, "\(history)")
                #expect(
                    WritingHistory(entries: history).sessions.map(\.addedWords) == [7, 6],
                    "the handout's words are not Ada's (the stand-in editor joins the lines: 'river.nA')")
                #expect(history.last?.words.map(Double.init) == opened.work.primaryItem?.value, "\(history)")
                #expect(opened.work.snapshots == nil && !plaintext.contains("snapshots"))
            default:
                let records = try #require(opened.work.snapshots)
                #expect(records.count == 3 && opened.work.history?.count == 3)
                // The snapshots rebuild the file as she saved it, byte for byte.
                var last: [UInt8] = []
                try WritingSnapshotRecord.rebuild(records) { last = $0.content }
                #expect(Data(last) == finalTexts[kind.name])
            }
        }

        // The teacher collects; the dashboard draws the history and replays the text.
        try teacher.clsfile("collect", inbox.path)
        let server = try await ServerProcess(["--port", "0"], environment: teacher.environment, in: scratch.url)
        defer { Task { _ = await server.stop() } }
        let studentID = try ada.mode.accountIdentifier
        func page(_ kind: String, _ suffix: String = "") async throws -> String {
            let identifier = try #require(handouts[kind]?.id)
            return try await Chromium.dumpDOM("\(server.url)/assignments/\(identifier)/students/\(studentID)\(suffix)", in: scratch.url)
        }
        let classPage = try await Chromium.dumpDOM(server.url, in: scratch.url)
        for kind in kinds {
            let identifier = try #require(handouts[kind.name]?.id)
            let row = try #require(
                classPage.components(separatedBy: "data-assignment=\"\(identifier)\"").dropFirst().first?
                    .components(separatedBy: "</tr>").first)
            #expect(row.contains("class=\"progress-line\"") == (kind.evidence != nil), "\(kind.name): \(row)")
            if kind.evidence != nil {
                // From the handout's 5 words of 30 at the start.
                #expect(row.contains("aria-label=\"Ada Lovelace: progress from 17% to ") && row.contains("% over 2 sessions\""), "\(row)")
            }
        }
        let plain = try await page("plain")
        #expect(plain.contains("Ada Lovelace") && !plain.contains("How it was written") && !plain.contains("id=\"writing-history\""))
        let figures = try await page("figures")
        #expect(figures.contains("How it was written") && figures.contains("id=\"session-bars\"") && !figures.contains("replay-link"))
        let replay = try await page("replay")
        #expect(replay.contains("id=\"replay-link\"") && replay.contains("3 steps"))
        let start = try await page("replay", "/replay?step=1")
        #expect(
            start.contains("step 1 of 3") && start.contains("Title of the replay essay") && !start.contains("<ins>"),
            "the handout's text is where the history begins, not something Ada added")
        let stepOne = try await page("replay", "/replay?step=2")
        #expect(stepOne.contains("step 2 of 3") && stepOne.contains("<ins>") && stepOne.contains("first sentence about the replay river"))
        #expect(!stepOne.contains("second sentence") && !stepOne.contains("<ins>Title"))
        let stepTwo = try await page("replay", "/replay?step=3")
        #expect(stepTwo.contains("<ins>A second sentence, written in another session."), "the step's addition is marked: \(stepTwo)")
        #expect(!stepTwo.contains("<ins>Title"), "what the step before held is not marked")
        let none = try await page("figures", "/replay?step=1")
        #expect(none.contains("holds no snapshots of the text"))
        let shot = scratch.url.appendingPathComponent("replay.png")
        let identifier = try #require(handouts["replay"]?.id)
        let png = try await Chromium.screenshot(
            "\(server.url)/assignments/\(identifier)/students/\(studentID)", to: shot,
            width: 1200, height: 1800, in: scratch.url)
        #expect(png.count > 20_000)
        if let keep = ProcessInfo.processInfo.environment["CLSFILE_KEEP_SCREENSHOTS"] {
            try? FileManager.default.removeItem(atPath: "\(keep)/dashboard-history.png")
            try? FileManager.default.copyItem(at: shot, to: URL(fileURLWithPath: "\(keep)/dashboard-history.png"))
        }
    }
}
