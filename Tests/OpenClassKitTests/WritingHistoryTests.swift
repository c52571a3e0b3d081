import Foundation
import GRDB
@testable import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

struct ContentDeltaTests {
    /// Rebuilds `target` from `base` through the encoded delta, and returns the encoded size.
    private func roundTrip(_ base: String, _ target: String) throws -> Int {
        try roundTrip(Array(base.utf8), Array(target.utf8))
    }

    private func roundTrip(_ base: [UInt8], _ target: [UInt8], _ comment: Comment? = nil) throws -> Int {
        let encoded = ContentDelta(from: base, to: target).encoded()
        let rebuilt = try ContentDelta(decoding: encoded).applied(to: base)
        #expect(rebuilt.content == target, comment)
        return encoded.count
    }

    @Test func rebuildsEveryKindOfChange() throws {
        let paragraph = "The river rises in the hills and runs to the sea past the old mill.\n"
        _ = try roundTrip("", "")
        _ = try roundTrip("", "first words")
        _ = try roundTrip("all of it goes", "")
        _ = try roundTrip(paragraph, paragraph + "A second line.\n")
        _ = try roundTrip(paragraph + "middle line here\n" + paragraph, paragraph + paragraph)
        _ = try roundTrip("no line feed at the end", "no line feed at the end, and more")
        _ = try roundTrip("a\nb\n\n\nc\n", "\n\n\na\nc\nb\n")
        _ = try roundTrip(String(repeating: paragraph, count: 20), "moved\n" + String(repeating: paragraph, count: 19))
        _ = try roundTrip([0xFF, 0xFE, 0x0A, 0x00, 0x80], [0x80, 0x0A, 0xFF, 0xFE, 0x0A])
    }

    @Test func randomEditsRoundTrip() throws {
        let seed = SplitMix.testSeed()
        var generator = SplitMix(seed: seed)
        let words = ["river", "mill", "stone", "the", "\n", "water, ", "and", "\n\n", "é", "🌊"]
        for round in 0..<200 {
            var text = (0..<Int.random(in: 0...80, using: &generator)).map { _ in words.randomElement(using: &generator)! }
            let base = Array(text.joined(separator: " ").utf8)
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let at = Int.random(in: 0...text.count, using: &generator)
                if Bool.random(using: &generator) || text.isEmpty {
                    text.insert(words.randomElement(using: &generator)!, at: at)
                } else {
                    text.remove(at: min(at, text.count - 1))
                }
            }
            let replay: Comment = "round \(round); replay with CLSFILE_TEST_SEED=\(seed)"
            do { _ = try roundTrip(base, Array(text.joined(separator: " ").utf8), replay) } catch {
                Issue.record(error, replay)
                return
            }
        }
    }

    @Test func aWordAddedToALongLineCostsTheWord() throws {
        let paragraph = String(repeating: "Rivers carry water and stones from the hills to the sea. ", count: 40)
        let size = try roundTrip(paragraph + "\n", paragraph + "Then they meet the tide.\n")
        #expect(size < 60, "a delta of \(size) bytes for 24 bytes added to a 2.3 KB line")
    }

    @Test func anAdditionInsideACharacterIsShownAsWholeCharacters() throws {
        // "café" to "cafè": the two accents share their first byte, which the delta keeps as a copy.
        let entry = WritingHistoryEntry(date: Date(), sessionStart: Date(), activeTime: 0)
        let before = Array("café au lait\n".utf8), after = Array("cafè au lait\n".utf8)
        var steps: [WritingSnapshot] = []
        try WritingSnapshotRecord.rebuild([
            WritingSnapshotRecord(keyframeOf: before, entry: entry),
            WritingSnapshotRecord(
                entry: entry, delta: ContentDelta(from: before, to: after).encoded(),
                digest: HistoryTable.digest(of: after), isKeyframe: false)
        ]) { steps.append($0) }
        #expect(steps[1].content == after)
        #expect(
            steps[1].pieces() == [
                .init(text: "caf", isInserted: false), .init(text: "è", isInserted: true),
                .init(text: " au lait\n", isInserted: false)
            ])
    }

    @Test func aDamagedDeltaIsRefusedNotApplied() throws {
        let encoded = ContentDelta(from: Array("abc\n".utf8), to: Array("abc\ndef\n".utf8)).encoded()
        #expect(throws: CLSError.self) { try ContentDelta(decoding: encoded.prefix(encoded.count - 3)) }
        #expect(throws: CLSError.self) { try ContentDelta(decoding: Data([0x05, 0x01, 0x02])) }
        // A copy past the end of other, shorter content.
        let delta = try ContentDelta(decoding: encoded)
        #expect(throws: CLSError.self) { try delta.applied(to: []) }
    }
}

struct WritingHistoryTests {
    /// Runs one session of `seconds` that ends at `end`, after writing `text` to the file.
    private func session(_ store: CLSDataStore, _ file: URL, text: String, words: Int, seconds: Double, end: Date) async throws {
        try Data(text.utf8).write(to: file)
        let activity = try await store.fetchActivity(for: file)
        activity.start(at: end.addingTimeInterval(-seconds), continuingWithin: 0)
        let count = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
        count.quantity = Double(words)
        activity.primaryActivityItem = count
        activity.progress = min(1, Double(words) / 100)
        activity.stop(at: end, idleTimeout: nil)
        try await store.save()
    }

    @Test func eachSessionsEndWritesARowAndASnapshotThatRebuildsTheFile() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let store = scratch.store()
        let start = Date(timeIntervalSinceNow: -3600)
        var texts: [String] = []
        var text = ""
        for index in 0..<5 {
            text += "Paragraph \(index) about rivers and the sea, written in session \(index).\n"
            if index == 3 { text = text.replacingOccurrences(of: "Paragraph 1", with: "The first paragraph") }
            texts.append(text)
            try await session(
                store, file, text: text, words: 10 * (index + 1), seconds: 60,
                end: start.addingTimeInterval(Double(index) * 600 + 60))
        }
        let history = try await scratch.store().writingHistory(for: file)
        #expect(history.entries.count == 5)
        #expect(history.entries.map(\.words) == [10, 20, 30, 40, 50])
        #expect(history.entries.allSatisfy { $0.endsSession })
        #expect(history.entries.map { ($0.activeTime / 60).rounded() } == [1, 2, 3, 4, 5])
        #expect(history.entries.map(\.progress) == [0.1, 0.2, 0.3, 0.4, 0.5])
        let sessions = history.sessions
        #expect(sessions.count == 5)
        #expect(sessions.map(\.addedWords) == [nil, 10, 10, 10, 10], "the first session's start was not seen")
        #expect(sessions.allSatisfy { abs($0.activeTime - 60) < 0.01 })

        var rebuilt: [String] = []
        for try await snapshot in try await scratch.store().snapshots(of: file) {
            rebuilt.append(String(decoding: snapshot.content, as: UTF8.self))
            #expect(!snapshot.inserted.isEmpty)
        }
        #expect(rebuilt == texts)
        let asOf = try await scratch.store().snapshot(of: file, at: history.entries[2].date)
        #expect(asOf.map { String(decoding: $0.content, as: UTF8.self) } == texts[2])
        #expect(try await scratch.store().snapshot(of: file, at: start) == nil)
    }

    @Test func aRunningSessionWritesARowEveryFewMinutesNotOnEverySave() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "first\n")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.start(at: Date(timeIntervalSinceNow: -WritingHistory.interval - 5), continuingWithin: 0)
        try await store.save()
        // The first save of the first session writes its start: the text it began from.
        let started = try await store.writingHistory(for: file).entries
        #expect(started.count == 1 && started.first?.isSessionStart == true && started.first?.snapshotSize == 6)
        try Data("first\nsecond\n".utf8).write(to: file)
        activity.progress = 0.2
        try await store.save()
        var rows = try await store.writingHistory(for: file).entries
        #expect(rows.count == 1, "a second row \(rows.count > 1 ? "came" : "did not come") within the interval")
        // Five minutes after the last row, a save of the running session writes one.
        let database = try DatabaseQueue(path: scratch.storeURL.path)
        try await database.write { db in
            try db.execute(sql: "UPDATE writing_history SET recorded_at = recorded_at - ?", arguments: [WritingHistory.interval + 1])
        }
        activity.progress = 0.3
        try await store.save()
        rows = try await store.writingHistory(for: file).entries
        #expect(rows.count == 2 && rows.last?.sessionEnd == nil && rows.last?.progress == 0.3, "\(rows)")
        activity.stop()
        try await store.save()
        let history = try await store.writingHistory(for: file)
        #expect(history.entries.count == 3)
        #expect(history.entries.last?.endsSession == true)
        #expect(history.sessions.count == 1, "the rows of one session are one session")
        #expect(history.sessions.first?.addedWords == nil, "no word count was measured")
        var contents: [[UInt8]] = []
        for try await snapshot in try await store.snapshots(of: file) { contents.append(snapshot.content) }
        #expect(contents == [Array("first\n".utf8), Array("first\nsecond\n".utf8), Array("first\nsecond\n".utf8)])
    }

    @Test func binaryLargeAndMissingFilesGetFiguresWithoutSnapshots() async throws {
        let scratch = try Scratch()
        let binary = try scratch.file("picture.bin", "")
        try Data([0x89, 0x50, 0x00, 0x01, 0x02]).write(to: binary)
        let large = try scratch.file("large.txt", "")
        try Data(repeating: 0x61, count: WritingHistory.largestSnapshot + 1).write(to: large)
        let store = scratch.store()
        for file in [binary, large] {
            try await session(
                store, file, text: file == binary ? "\u{0}\u{1}" : String(repeating: "a", count: WritingHistory.largestSnapshot + 1),
                words: 1, seconds: 5, end: Date())
            let history = try await store.writingHistory(for: file)
            #expect(history.entries.count == 1)
            #expect(history.entries.first?.snapshotSize == nil)
            var count = 0
            for try await _ in try await store.snapshots(of: file) { count += 1 }
            #expect(count == 0)
        }
    }

    @Test func aKeyframeComesOnceTheDeltasOutgrowTheLastAndWhenADeltaIsDamaged() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let store = scratch.store()
        // Lines of random letters: they do not compress, so the deltas pass 4 × 4 KiB soon.
        var generator = SplitMix(seed: 7)
        var text = ""
        let start = Date(timeIntervalSinceNow: -100_000)
        for index in 0..<60 {
            text += String((0..<1000).map { _ in Character(UnicodeScalar(UInt8(97 + generator.next() % 26))) }) + "\n"
            try await session(store, file, text: text, words: index, seconds: 10, end: start.addingTimeInterval(Double(index) * 100))
        }
        let database = try DatabaseQueue(path: scratch.storeURL.path)
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT is_keyframe, length(content_delta) AS bytes FROM writing_history ORDER BY id")
        }
        let keyframes = rows.enumerated().filter { $0.element["is_keyframe"] == 1 }.map(\.offset)
        #expect(keyframes.count >= 2 && keyframes.first == 0, "\(keyframes)")
        // Each chain stops once it holds 4 × its keyframe (4 KiB at least).
        for (chainStart, next) in zip(keyframes, keyframes.dropFirst()) {
            let keyframe: Int = rows[chainStart]["bytes"]
            let chain = rows[(chainStart + 1)..<next].reduce(0) { $0 + ($1["bytes"] as Int) }
            let beforeLast = chain - (rows[next - 1]["bytes"] as Int)
            #expect(beforeLast < 4 * max(keyframe, 4096) && chain >= 4 * max(keyframe, 4096), "chain \(chainStart)..<\(next)")
        }
        var replayed = 0
        for try await snapshot in try await scratch.store().snapshots(of: file) {
            replayed += 1
            #expect(snapshot.content.count == 1001 * replayed)
        }
        #expect(replayed == 60)
        // Damage the last delta: the next snapshot starts a new chain, and it rebuilds.
        try await database.write { db in
            try db.execute(sql: "UPDATE writing_history SET content_delta = x'0501' WHERE id = (SELECT max(id) FROM writing_history)")
        }
        text += "After the damage.\n"
        try await session(store, file, text: text, words: 99, seconds: 10, end: Date())
        let last = try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT is_keyframe FROM writing_history ORDER BY id DESC LIMIT 1")
        }
        #expect(last == 1)
        // The replay skips the damaged delta and goes on from the keyframe after it.
        var snapshots: [WritingSnapshot] = []
        for try await snapshot in try await scratch.store().snapshots(of: file) { snapshots.append(snapshot) }
        #expect(snapshots.count == 60)
        #expect(snapshots.last?.skippedBefore == 1 && snapshots.last.map { String(decoding: $0.content, as: UTF8.self) } == text)
        // Damage after the last keyframe ends the replay with the error.
        try await database.write { db in
            try db.execute(sql: "UPDATE writing_history SET content_delta = x'0501' WHERE id = (SELECT max(id) FROM writing_history)")
        }
        await #expect(throws: CLSError.self) {
            for try await _ in try await scratch.store().snapshots(of: file) {}
        }
    }

    @Test func theFirstSessionsGainsCountFromTheTextItBeganFrom() async throws {
        let scratch = try Scratch()
        // A handout's text, there before the student's first session.
        let file = try scratch.file("essay.txt", "The teacher's opening paragraph, three hundred words long.\n")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.start(at: Date(timeIntervalSinceNow: -120), continuingWithin: 0)
        let before = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
        before.quantity = 8
        activity.primaryActivityItem = before
        try await store.save()
        try Data("The teacher's opening paragraph, three hundred words long.\nMy four words here.\n".utf8).write(to: file)
        let after = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
        after.quantity = 12
        activity.primaryActivityItem = after
        activity.stop()
        try await store.save()
        let history = try await store.writingHistory(for: file)
        #expect(history.entries.map(\.isSessionStart) == [true, false])
        #expect(history.sessions.count == 1)
        #expect(history.sessions.first?.addedWords == 4, "the handout's words are not the student's")
        var steps: [WritingSnapshot] = []
        for try await snapshot in try await store.snapshots(of: file) { steps.append(snapshot) }
        #expect(steps.count == 2 && steps[0].entry.isSessionStart)
        #expect(steps[1].inserted.map { String(decoding: steps[1].content[$0], as: UTF8.self) } == ["My four words here.\n"])
        // What a replay shows: the start's text unmarked, then the step's addition apart.
        #expect(steps[0].pieces().map(\.isInserted) == [false])
        #expect(
            steps[1].pieces() == [
                .init(text: "The teacher's opening paragraph, three hundred words long.\n", isInserted: false),
                .init(text: "My four words here.\n", isInserted: true)
            ])
        #expect(steps[1].lines.count == 2)
        // Forgetting the snapshots keeps the figures; forgetting the history deletes it.
        #expect(try await store.forgetWritingHistory(for: file, keepingFigures: true) == 2)
        #expect(try await store.writingHistory(for: file).entries.map(\.snapshotSize) == [nil, nil])
        #expect(try await store.forgetWritingHistory(for: file) == 2)
        #expect(try await store.writingHistory(for: file).entries.isEmpty)
        #expect(try await store.fetchActivity(for: file).primaryActivityItem != nil, "the activity is untouched")
    }

    @Test func sessionsEndedTogetherGetTheirTimeAndWorkFromBeforeTheHistoryIsNotCountedAsNew() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "old text of an essay\n")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        let start = Date(timeIntervalSinceNow: -7200)
        // Two sessions saved in one save, as a tool that saves once at its end does.
        activity.start(at: start, continuingWithin: 0)
        activity.stop(at: start.addingTimeInterval(600), idleTimeout: nil)
        activity.start(at: start.addingTimeInterval(3600), continuingWithin: 0)
        let count = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
        count.quantity = 5
        activity.primaryActivityItem = count
        activity.stop(at: start.addingTimeInterval(3660), idleTimeout: nil)
        try await store.save()
        let history = try await store.writingHistory(for: file)
        #expect(history.entries.count == 2)
        #expect(history.entries.map(\.activeTime) == [600, 660])
        #expect(history.entries.map(\.words) == [nil, 5], "the first session's figures were not seen")
        #expect(history.entries.map { $0.snapshotSize != nil } == [false, true])
        let sessions = history.sessions
        #expect(sessions.map(\.activeTime) == [600, 60])
        #expect(sessions.map(\.addedWords) == [nil, nil], "words after a session whose count was not seen are not 'added'")
    }

    @Test func theFirstRowOfWorkFromBeforeTheHistoryCountsItsOwnTimeOnly() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "text\n")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.start(at: Date(timeIntervalSinceNow: -9000), continuingWithin: 0)
        activity.stop(at: Date(timeIntervalSinceNow: -5400), idleTimeout: nil)
        try await store.save()
        // As a store from before the history: the row of that session goes.
        let database = try DatabaseQueue(path: scratch.storeURL.path)
        try await database.write { db in try db.execute(sql: "DELETE FROM writing_history") }
        try await session(store, file, text: "text and more\n", words: 3, seconds: 120, end: Date())
        let sessions = try await store.writingHistory(for: file).sessions
        #expect(sessions.count == 1)
        #expect(abs((sessions.first?.activeTime ?? 0) - 120) < 0.01, "\(sessions)")
        #expect(sessions.first?.words == 3 && sessions.first?.addedWords == nil, "\(sessions)")
    }

    @Test func anotherProgramsSavesAndAppContextsWriteRowsToo() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let quiz = CLSContext(type: .quiz, identifier: "quiz", title: "Quiz")
        store.mainAppContext.addChildContext(quiz)
        try await store.save()
        let activity = quiz.createNewActivity()
        activity.start(at: Date(timeIntervalSinceNow: -30), continuingWithin: 0)
        activity.progress = 0.5
        activity.stop()
        try await store.save()
        let database = try DatabaseQueue(path: scratch.storeURL.path)
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT progress, content_delta FROM writing_history")
        }
        #expect(rows.count == 1)
        #expect(rows.first?["progress"] == 0.5)
        #expect((rows.first?["content_delta"] as Data?) == nil)
    }
}
