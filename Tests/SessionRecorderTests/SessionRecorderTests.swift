import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder
import Testing
import StoreTestSupport
import TestSupport

struct SessionRecorderTests {
    private func quantity(_ identifier: String, in activity: CLSActivity) -> Double? {
        (activity.additionalActivityItems.first { $0.identifier == identifier } as? CLSQuantityItem)?.quantity
    }

    @Test func aSessionRecordsTimeWordsItemsAndProgress() async throws {
        let scratch = try Scratch()
        let file = try scratch.file(
            "plan.md",
            """
            # Plan

            - [x] Read the three sources twice.
            - [ ] Write the first draft.
            - [ ] Ask for feedback.

            The essay argues that libraries matter.
            """)
        let recorder = SessionRecorder(store: scratch.store())
        let opened = Date().addingTimeInterval(-10)
        try await recorder.record(SessionEvent(kind: .open, file: file, date: opened))
        for at in [2.0, 5] { try await recorder.record(SessionEvent(kind: .edit, file: file, date: opened.addingTimeInterval(at))) }
        let measurement = try await recorder.record(SessionEvent(kind: .close, file: file, date: opened.addingTimeInterval(8)))
        #expect(measurement.problems.isEmpty)
        let words = try #require(measurement.report?.statistics.words)

        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(!activity.isStarted)
        #expect(activity.workSessions.count == 1)
        #expect(abs(activity.duration - 3) < 1e-6, "from the first edit to the last: \(activity.timeSpans)")
        let primary = try #require(activity.primaryActivityItem as? CLSQuantityItem)
        #expect(primary.identifier == "total_word_count")
        #expect(primary.title == "Word Count")
        #expect(primary.quantity == Double(words))
        #expect(quantity("sentences", in: activity) == 5, "the heading ends a sentence of its own")
        #expect(quantity("readability_grade", in: activity) != nil)
        #expect(abs(try #require(quantity("open_time", in: activity)) - 8) < 1e-6, "from the open to the close")
        let checklist = try #require(activity.additionalActivityItems.first { $0.identifier == "checklist" } as? CLSScoreItem)
        #expect((checklist.score, checklist.maxScore) == (1, 3))
        #expect(abs(activity.progress - 1.0 / 3) < 1e-9)
    }

    @Test func idleGapsAreNotCounted() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(idleTimeout: 60))
        try await recorder.record(SessionEvent(kind: .open, file: file))
        let opened = try #require(try await scratch.store().fetchActivity(for: file).timeSpans.first?.start)
        // Events carry their own times: 5 idle minutes, two edits 30 s apart, 10 idle minutes, close.
        for (kind, offset) in [(SessionEvent.Kind.edit, 300.0), (.edit, 330), (.close, 930)] {
            try await recorder.record(SessionEvent(kind: kind, file: file, date: opened.addingTimeInterval(offset)))
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.timeSpans.count == 2, "the idle gap splits the session")
        // Counted: nothing before the gap, the 30 s between the edits; the idle tail ends at the last pulse.
        #expect(abs(activity.duration - 30) < 1e-6)
        #expect(activity.timeSpans.last?.end == opened.addingTimeInterval(330))
        #expect(!activity.isStarted)
    }

    @Test func aTargetWordCountIsRememberedPerFile() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", (1...50).map { "word\($0)" }.joined(separator: " "))
        try await SessionRecorder(store: scratch.store(), configuration: .init(targetWords: 200))
            .record(SessionEvent(kind: .close, file: file))
        #expect(try await scratch.store().fetchActivity(for: file).progress == 0.25)

        try Data((1...100).map { "word\($0)" }.joined(separator: " ").utf8).write(to: file)
        try await SessionRecorder(store: scratch.store()).record(SessionEvent(kind: .save, file: file))
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.progress == 0.5)
        #expect(quantity("target_word_count", in: activity) == 200)
    }

    @Test func eventsInAnyOrderLeaveAConsistentStore() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "a few words")
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(SessionEvent(kind: .close, file: file))
        try await recorder.record(SessionEvent(kind: .close, file: file))
        try await recorder.record(SessionEvent(kind: .edit, file: file))
        try await recorder.record(SessionEvent(kind: .open, file: file))
        try await recorder.record(SessionEvent(kind: .open, file: file))
        try await recorder.record(SessionEvent(kind: .close, file: file))
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(!activity.isStarted)
        #expect(activity.timeSpans.count == 1)
        #expect((activity.primaryActivityItem as? CLSQuantityItem)?.quantity == 3)
        #expect(activity.additionalActivityItems.filter { $0.identifier == "characters" }.count == 1)
    }

    @Test func viewRangesGiveProgressAsTheShareOfLinesSeenWhenReading() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("book.txt", String(repeating: "line\n", count: 100))
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(isReading: true))
        for range in [1...20, 11...40, 71...100] {
            try await recorder.record(SessionEvent(kind: .view, file: file, visibleLines: range, totalLines: 100))
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(abs(activity.progress - 0.7) < 1e-9)
    }

    @Test func aFileThatCannotBeMeasuredKeepsItsTime() async throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("image.bin")
        try Data((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 193 &+ 71) }).write(to: file)
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(SessionEvent(kind: .open, file: file))
        let measurement = try await recorder.record(SessionEvent(kind: .close, file: file))
        #expect(measurement.problems.count == 1)
        #expect(measurement.problems.first?.message.contains(file.path) == true)
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.timeSpans.count == 1 && !activity.isStarted)
        #expect(activity.primaryActivityItem == nil)
    }

    @Test func aBusyStoreSpoolsEventsAndTheNextCallRecordsThem() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "words")
        try await SessionRecorder(store: scratch.store()).record(SessionEvent(kind: .open, file: file))

        // Another process holds the write lock.
        let holder = try WriteLockHolder(store: scratch.storeURL)

        let busy = CLSDataStore(storeURL: scratch.storeURL, configuration: .init(busyTimeout: 0.2))
        let spool = EventSpool(storeURL: scratch.storeURL)
        let started = ContinuousClock.now
        let view = SessionEvent(kind: .view, file: file, visibleLines: 1...1, totalLines: 4, isReading: true)
        let first = try await SessionRecorder(store: busy).deliver(view, spool: spool)
        #expect(first.isSpooled)
        #expect(ContinuousClock.now - started < .seconds(2), "a hook must not wait for a busy store")

        holder.release()

        let second = try await SessionRecorder(store: scratch.store())
            .deliver(SessionEvent(kind: .close, file: file), spool: spool)
        #expect(!second.isSpooled)
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.progress == 0.25, "the spooled view was recorded")
        #expect(!activity.isStarted)
        #expect(try spool.drain().events.isEmpty)
    }

    /// A plugin sends its figures with edits and saves, each time those since it last sent them,
    /// and the rest with the close: they add up, and an editor killed before its close keeps what
    /// its last event carried.
    @Test func figuresSentWithEditsAndSavesAddUpAndOutliveALostClose() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        let store = scratch.store()
        let recorder = SessionRecorder(store: store)
        try await recorder.record(SessionEvent(kind: .open, file: file))
        try await recorder.record(SessionEvent(kind: .edit, file: file, input: .init(typed: 10, pasted: 0, largestPaste: 0)))
        try await recorder.record(SessionEvent(kind: .save, file: file, input: .init(typed: 5, pasted: 20, largestPaste: 20)))
        // The editor is killed here: no close comes.
        var activity = try await store.fetchActivity(for: file)
        #expect(quantity(ItemIdentifier.typedCharacters, in: activity) == 15)
        #expect(quantity(ItemIdentifier.pastedCharacters, in: activity) == 20)
        #expect(quantity(ItemIdentifier.largestPaste, in: activity) == 20)
        // Another run of the editor, which closes: its close brings the rest of its own.
        try await recorder.record(SessionEvent(kind: .open, file: file))
        try await recorder.record(SessionEvent(kind: .edit, file: file, input: .init(typed: 4, pasted: 8, largestPaste: 8)))
        try await recorder.record(SessionEvent(kind: .close, file: file, input: .init(typed: 3, pasted: 0, largestPaste: 0)))
        activity = try await store.fetchActivity(for: file)
        #expect(quantity(ItemIdentifier.typedCharacters, in: activity) == 22)
        #expect(quantity(ItemIdentifier.pastedCharacters, in: activity) == 28)
        #expect(quantity(ItemIdentifier.largestPaste, in: activity) == 20, "the largest of all pastes")
    }

    /// Written by dictation (the store's setting), what an edit brings counts as typed, as a close's does.
    @Test func figuresOfAnEditOfADictatedSessionCountAsTyped() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        let store = scratch.store()
        try await store.setDictating(true)
        let recorder = SessionRecorder(store: store)
        try await recorder.record(SessionEvent(kind: .open, file: file))
        try await recorder.record(SessionEvent(kind: .edit, file: file, input: .init(typed: 6, pasted: 40, largestPaste: 40)))
        let activity = try await store.fetchActivity(for: file)
        #expect(quantity(ItemIdentifier.typedCharacters, in: activity) == 46)
        #expect(quantity(ItemIdentifier.pastedCharacters, in: activity) == 0)
    }

    /// A long-lived recorder (`hook --stdio`) whose close went to the spool while another process
    /// held the store records it once: the first try, applied in memory before the store said
    /// busy, is not written by the replay's save beside the replayed close.
    @Test func eventsSpooledByALongLivedRecorderCountOnce() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        let store = CLSDataStore(storeURL: scratch.storeURL, configuration: .init(busyTimeout: 0.2))
        let recorder = SessionRecorder(store: store)
        let spool = EventSpool(storeURL: scratch.storeURL)
        #expect(try await !recorder.deliver(SessionEvent(kind: .open, file: file), spool: spool).isSpooled)

        let holder = try WriteLockHolder(store: scratch.storeURL)
        let input = SessionEvent.InputFigures(typed: 12, pasted: 3, largestPaste: 3)
        let close = SessionEvent(kind: .close, file: file, input: input)
        #expect(try await recorder.deliver(close, spool: spool).isSpooled)
        holder.release()

        #expect(try await !recorder.deliver(SessionEvent(kind: .open, file: file), spool: spool).isSpooled)
        #expect(try await !recorder.deliver(SessionEvent(kind: .close, file: file), spool: spool).isSpooled)
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(quantity(ItemIdentifier.typedCharacters, in: activity) == 12)
        #expect(quantity(ItemIdentifier.pastedCharacters, in: activity) == 3)
        #expect(!activity.isStarted)
        #expect(activity.timeSpans.count == 2, "the replayed close ended the first session, the second open began another")
    }

    @Test func spoolLinesThatAreNotEventsAreReportedNotReplayed() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "words")
        let spool = EventSpool(storeURL: scratch.storeURL)
        try spool.append([SessionEvent(kind: .open, file: file)])
        let handle = try FileHandle(forWritingTo: spool.url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{ this is damaged\n".utf8))
        try handle.close()
        let delivery = try await SessionRecorder(store: scratch.store())
            .deliver(SessionEvent(kind: .close, file: file), spool: spool)
        #expect(delivery.rejectedLines == ["{ this is damaged"])
        #expect(try await scratch.store().fetchActivity(for: file).timeSpans.count == 1)
    }
}

struct EventSpoolTests {
    @Test func aSpoolThatCannotBeWrittenIsAClearError() throws {
        let scratch = try Scratch()
        let spool = EventSpool(storeURL: scratch.storeURL)
        try FileManager.default.createDirectory(at: spool.url, withIntermediateDirectories: false)
        do {
            try spool.append([SessionEvent(kind: .edit, file: scratch.storeURL)])
            Issue.record("appending to a spool that is a directory must fail")
        } catch let error as RecorderError {
            #expect(error.code == .spoolUnavailable)
            #expect(error.message.contains(spool.url.path))
            #expect(error.message.contains("permissions"))
        }
    }
}
