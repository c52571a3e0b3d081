import Foundation
import OpenClassKit
import SessionRecorder
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What editors send, as editors send it: input times that precede the event, opens before the
/// file exists, buffer switches, and progress from one basis.
struct EditorTimingTests {
    /// Records events whose times are offsets in seconds from the first open, sent by one editor
    /// run (`run`), or each by a run of its own when nil.
    private func replay(
        _ events: [(SessionEvent.Kind, at: Double, inputAt: Double?)], file: URL, scratch: Scratch,
        idleTimeout: TimeInterval = 300, opened: Date = Date(), run: String? = "vim 1"
    ) async throws -> CLSActivity {
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(idleTimeout: idleTimeout))
        for (kind, offset, input) in events {
            var event = SessionEvent(
                kind: kind, file: file, date: opened.addingTimeInterval(offset),
                inputAt: input.map { opened.addingTimeInterval($0) },
                openedAt: kind == .close ? opened : nil)
            event.editorRun = run
            try await recorder.record(event)
        }
        return try await scratch.store().fetchActivity(for: file)
    }

    /// The case: `hook open`, 20 s, `hook close`, nothing typed. The session is there, open
    /// for 20 s, with no active time: the close is not input.
    @Test func aSessionWithoutInputHasNoActiveTime() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let activity = try await replay(
            [(.open, at: 0, inputAt: nil), (.view, at: 0.4, inputAt: nil), (.close, at: 20, inputAt: nil)],
            file: file, scratch: scratch)
        #expect(activity.duration == 0, "\(activity.timeSpans)")
        #expect(activity.workSessions.count == 1 && activity.workSessions.first?.activeTime == 0)
        let openTime = try #require(activity.additionalActivityItems.first { $0.identifier == "open_time" } as? CLSQuantityItem)
        #expect(abs(openTime.quantity - 20) < 0.01)
        let history = try await scratch.store().writingHistory(for: file)
        #expect(history.sessions.count == 1, "\(history.entries)")
        #expect(history.sessions.first?.activeTime == 0 && history.sessions.first.flatMap(\.openTime).map { abs($0 - 20) < 0.01 } == true)
    }

    /// An editor's start-up and the minute read before the first key, and the minute after the
    /// last key before the quit, are open time: active time runs from the first input to the last.
    @Test func timeBeforeTheFirstInputAndAfterTheLastIsOpenTimeOnly() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let activity = try await replay(
            [
                (.open, at: 0, inputAt: nil), (.view, at: 1, inputAt: nil), (.edit, at: 60, inputAt: 60),
                (.edit, at: 73, inputAt: 70), (.save, at: 75, inputAt: 75), (.close, at: 140, inputAt: 75)
            ],
            file: file, scratch: scratch)
        #expect(abs(activity.duration - 15) < 0.01, "60–75: \(activity.timeSpans)")
        let session = try #require(activity.workSessions.first)
        #expect(activity.workSessions.count == 1 && abs(session.start.timeIntervalSince(activity.timeSpans[0].start)) < 0.01)
        let openTime = try #require(activity.additionalActivityItems.first { $0.identifier == "open_time" } as? CLSQuantityItem)
        #expect(abs(openTime.quantity - 140) < 0.01)
    }

    /// A view of a file being written is the editor drawing its window, no input; one that carries
    /// the input it follows counts that input; in a file being read, a view is the person reading.
    @Test func aViewIsInputOnlyWhenItCarriesInputOrTheFileIsRead() async throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.txt", "one two three")
        let written = try await replay(
            [
                (.open, at: 0, inputAt: nil), (.view, at: 5, inputAt: nil), (.view, at: 9, inputAt: nil),
                (.view, at: 12, inputAt: 11), (.view, at: 16, inputAt: 15), (.close, at: 30, inputAt: 15)
            ],
            file: essay, scratch: scratch)
        #expect(abs(written.duration - 4) < 0.01, "11–15: \(written.timeSpans)")

        let book = try scratch.file("book.txt", String(repeating: "line\n", count: 100))
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(isReading: true))
        let opened = Date().addingTimeInterval(-100)
        try await recorder.record(SessionEvent(kind: .open, file: book, date: opened))
        for (at, lines) in [(3.0, 1...40), (33, 41...80), (63, 61...100)] {
            try await recorder.record(
                SessionEvent(kind: .view, file: book, date: opened.addingTimeInterval(at), visibleLines: lines, totalLines: 100))
        }
        try await recorder.record(SessionEvent(kind: .close, file: book, date: opened.addingTimeInterval(90), openedAt: opened))
        let read = try await scratch.store().fetchActivity(for: book)
        #expect(abs(read.duration - 60) < 0.01, "from the first page to the last: \(read.timeSpans)")
        #expect(read.progress == 1)
    }

    /// Input an editor saw before the open (a late open, a clock a little off) is not the
    /// session's: it neither starts its time early nor ends the wait for the first input.
    @Test func inputBeforeTheOpenIsNotTheSessions() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let activity = try await replay(
            [
                (.open, at: 10, inputAt: nil), (.view, at: 11, inputAt: 4), (.edit, at: 20, inputAt: 20),
                (.edit, at: 26, inputAt: 26), (.close, at: 30, inputAt: 26)
            ],
            file: file, scratch: scratch)
        #expect(abs(activity.duration - 6) < 0.01, "20–26: \(activity.timeSpans)")
    }

    @Test func typingBeforeABreakCountsAndTheBreakDoesNot() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        // As a plugin sends them: the first keystroke at once, a trailing edit after 61 s of
        // typing, then 5 min 20 s of idleness and :wq (save and close carry the last input).
        let activity = try await replay(
            [
                (.open, at: 0, inputAt: nil), (.edit, at: 1, inputAt: 1),
                (.edit, at: 64, inputAt: 61), (.save, at: 381, inputAt: 61),
                (.close, at: 381.5, inputAt: 61)
            ],
            file: file, scratch: scratch)
        #expect(!activity.isStarted)
        #expect(abs(activity.duration - 60) < 0.01, "from the first keystroke to the last: \(activity.timeSpans)")
        #expect(activity.workSessions.count == 1)
        let openTime = try #require(activity.additionalActivityItems.first { $0.identifier == "open_time" } as? CLSQuantityItem)
        #expect(abs(openTime.quantity - 381.5) < 0.01, "open time runs from open to close, idle minutes included")
    }

    @Test func aShortIdleTimeoutKeepsTheTypingBeforeTheBreak() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        // 10 s timeout: edits every 5 s during 25 s of typing, a trailing edit, 15 s idle, close.
        let activity = try await replay(
            [
                (.open, at: 0, inputAt: nil), (.edit, at: 0.5, inputAt: 0.5),
                (.edit, at: 5.5, inputAt: 5.4), (.edit, at: 10.6, inputAt: 10.5),
                (.edit, at: 15.7, inputAt: 15.6), (.edit, at: 20.8, inputAt: 20.7),
                (.edit, at: 27.5, inputAt: 25), (.close, at: 40, inputAt: 25)
            ],
            file: file, scratch: scratch, idleTimeout: 10)
        #expect(abs(activity.duration - 24.5) < 0.01, "from the first input to the last: \(activity.timeSpans)")
    }

    @Test func aBufferLeftAndEnteredAgainInOneEditorRunIsOneSessionWithoutTheGap() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("a.txt", "one two three")
        // Vim unloads a buffer it leaves (close) and reads it again (open): one run, one session.
        let activity = try await replay(
            [
                (.open, at: 0, inputAt: nil), (.edit, at: 20, inputAt: 20),
                (.close, at: 30, inputAt: 28), (.open, at: 40, inputAt: nil),
                (.edit, at: 45, inputAt: 45), (.close, at: 60, inputAt: 55),
                (.open, at: 400, inputAt: nil), (.edit, at: 402, inputAt: 402), (.close, at: 410, inputAt: 405)
            ],
            file: file, scratch: scratch, idleTimeout: 60)
        #expect(activity.workSessions.count == 1, "one editor run, however long away: \(activity.timeSpans)")
        #expect(abs(activity.duration - 21) < 0.01, "20–28, 45–55, 402–405: input to input, the gaps not counted: \(activity.timeSpans)")
        // The open's span, of no length, marks the session's start once: the opens of the buffer
        // entered again leave none (a span a buffer switch would otherwise add to the server's caps).
        #expect(activity.timeSpans.count == 4, "\(activity.timeSpans)")
        let session = try #require(activity.workSessions.first)
        #expect(abs(session.activeTime - activity.duration) < 0.01)
    }

    @Test func twoEditorRunsAreTwoSessionsHoweverClose() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("gap.txt", "one two")
        // The case: a run of 5 s, 30 s away, another of 5 s, within a 5-minute idle timeout;
        // in each, input from the first second to the third.
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(idleTimeout: 300))
        let start = Date().addingTimeInterval(-100)
        for (run, offset) in [("vim 1", 0.0), ("vim 2", 35.0)] {
            for (kind, at) in [(SessionEvent.Kind.open, 0.0), (.edit, 1), (.close, 5)] {
                var event = SessionEvent(
                    kind: kind, file: file, date: start.addingTimeInterval(offset + at),
                    inputAt: kind == .open ? nil : start.addingTimeInterval(offset + min(at, 3)),
                    openedAt: kind == .close ? start.addingTimeInterval(offset) : nil)
                event.editorRun = run
                try await recorder.record(event)
            }
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.workSessions.count == 2, "\(activity.timeSpans)")
        #expect(abs(activity.duration - 4) < 0.01, "2 s of input in each run, the 30 s between not counted: \(activity.timeSpans)")
        let openTime = try #require(activity.additionalActivityItems.first { $0.identifier == "open_time" } as? CLSQuantityItem)
        #expect(abs(openTime.quantity - 10) < 0.01)
        #expect(activity.duration <= openTime.quantity)
    }

    @Test func anOpenWhileAnotherEditorRunsTheFileEndsNothing() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("shared.txt", "one two")
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(idleTimeout: 300))
        let start = Date().addingTimeInterval(-100)
        // The first editor runs still (this test process stands for it); a second opens the file.
        for (kind, at, run) in [
            (SessionEvent.Kind.open, 0.0, CLSDataStore.currentEditorRun), (.edit, 10, CLSDataStore.currentEditorRun),
            (.open, 50, "vim 2")
        ] {
            var event = SessionEvent(
                kind: kind, file: file, date: start.addingTimeInterval(at),
                inputAt: kind == .open ? nil : start.addingTimeInterval(at))
            event.editorRun = run
            try await recorder.record(event)
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(
            activity.isStarted && activity.workSessions.count == 1 && activity.workSessions.allSatisfy(\.isRunning),
            "the running editor's session goes on: \(activity.timeSpans)")
    }

    @Test func anOpenAfterAnEditorDiedEndsItsSessionAtItsLastInput() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("lost.txt", "one two")
        // The first run's editor was killed: no close. The next run opens 40 s after its last input.
        let recorder = SessionRecorder(store: scratch.store(), configuration: .init(idleTimeout: 300))
        let start = Date().addingTimeInterval(-100)
        for (kind, at, run) in [
            (SessionEvent.Kind.open, 0.0, "vim 1"), (.edit, 2, "vim 1"), (.edit, 10, "vim 1"), (.open, 50, "vim 2"),
            (.edit, 52, "vim 2"), (.close, 60, "vim 2")
        ] {
            var event = SessionEvent(
                kind: kind, file: file, date: start.addingTimeInterval(at),
                inputAt: kind == .open ? nil : start.addingTimeInterval(at),
                openedAt: kind == .close ? start.addingTimeInterval(50) : nil)
            event.editorRun = run
            try await recorder.record(event)
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.workSessions.count == 2, "\(activity.timeSpans)")
        #expect(abs(activity.duration - 16) < 0.01, "2–10, then 52–60; the 40 s after the lost editor not counted: \(activity.timeSpans)")
    }

    @Test func aRunningSessionCountsToItsLastPulse() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let opened = Date().addingTimeInterval(-600)
        let activity = try await replay(
            [(.open, at: 0, inputAt: nil), (.edit, at: 5, inputAt: 5), (.edit, at: 30, inputAt: 30)],
            file: file, scratch: scratch, opened: opened)
        #expect(activity.isStarted)
        #expect(abs(activity.recordedDuration() - 25) < 0.01, "ten idle minutes are not shown")
        #expect(activity.duration >= 595, "ClassKit's duration still counts a running span to now")
    }

    @Test func anOpenBeforeTheFileExistsCountsFromItsFirstInput() async throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("new essay.txt")
        let spool = EventSpool(storeURL: scratch.storeURL)
        let recorder = SessionRecorder(store: scratch.store())
        let opened = Date().addingTimeInterval(-30)
        let open = try await recorder.deliver(SessionEvent(kind: .open, file: file, date: opened), spool: spool)
        #expect(open.waitingForFile.count == 1 && open.failures.isEmpty)
        let edit = try await recorder.deliver(
            SessionEvent(
                kind: .edit, file: file, date: opened.addingTimeInterval(10),
                inputAt: opened.addingTimeInterval(10)), spool: spool)
        #expect(edit.waitingForFile.count == 2)

        try Data("first draft words\n".utf8).write(to: file)
        let save = try await recorder.deliver(
            SessionEvent(kind: .save, file: file, inputAt: opened.addingTimeInterval(25)),
            spool: spool)
        #expect(save.waitingForFile.isEmpty && save.failures.isEmpty)
        #expect(try spool.drain().events.isEmpty)
        let activity = try await scratch.store().fetchActivity(for: file)
        let span = try #require(activity.timeSpans.first)
        #expect(abs(span.start.timeIntervalSince(opened)) < 0.01, "the session starts at the open, not the first save")
        #expect(abs(activity.recordedDuration() - 15) < 0.01, "its time from the first input (10 s) to the last (25 s)")
        #expect((activity.primaryActivityItem as? CLSQuantityItem)?.quantity == 3)

        // The file did not exist when its session began: its history begins from nothing, and
        // the three words are what the session added (not the text it "began from").
        let close = try await recorder.deliver(
            SessionEvent(
                kind: .close, file: file, inputAt: opened.addingTimeInterval(25),
                openedAt: opened), spool: spool)
        #expect(close.failures.isEmpty)
        let history = try await scratch.store().writingHistory(for: file)
        let start = try #require(history.entries.first)
        #expect(start.isSessionStart && start.words == 0 && start.snapshotSize == 0, "\(history.entries)")
        #expect(history.sessions.count == 1 && history.sessions.first?.addedWords == 3, "\(history.sessions)")
        let total = try await scratch.store().fetchActivity(for: file).recordedDuration()
        #expect(abs((history.sessions.first?.activeTime ?? 0) - total) < 0.01, "the session has all the time: \(history.sessions)")
        var contents: [String] = []
        for try await snapshot in try await scratch.store().snapshots(of: file) {
            contents.append(String(decoding: snapshot.content, as: UTF8.self))
        }
        #expect(contents.first == "" && contents.last == "first draft words\n", "\(contents)")
    }

    /// An editor that saves every second (autosave) keeps one saved text a minute in the history,
    /// the latest: `replay --at` after the last save gives what it saved.
    @Test func savesKeepTheLatestTextWithoutARowEachSecond() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("autosaved.txt", "start\n")
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(SessionEvent(kind: .open, file: file))
        for index in 1...10 {
            try Data("start\n\((1...index).map { "line \($0)" }.joined(separator: "\n"))\n".utf8).write(to: file)
            try await recorder.record(SessionEvent(kind: .save, file: file, inputAt: Date()))
        }
        let history = try await scratch.store().writingHistory(for: file)
        #expect(history.entries.count == 2, "the start and one row of the saves: \(history.entries)")
        let saved = try #require(try await scratch.store().snapshot(of: file, at: Date()))
        #expect(String(decoding: saved.content, as: UTF8.self).hasSuffix("line 10\n"), "the latest save is kept")
        #expect(saved.entry.words == 21, "\(saved.entry)")
    }

    /// A symbolic link or a FIFO planted where the spool goes is refused, and the link's target
    /// is neither truncated nor written.
    @Test func theSpoolNeverFollowsALinkNorWaitsOnAFIFO() throws {
        let scratch = try Scratch()
        let spool = EventSpool(storeURL: scratch.storeURL)
        let victim = try scratch.file("diary.txt", "private words\n")
        try FileManager.default.createSymbolicLink(at: spool.url, withDestinationURL: victim)
        let event = SessionEvent(kind: .edit, file: victim)
        let appended = #expect(throws: RecorderError.self) { try spool.append([event]) }
        #expect(appended?.code == .spoolUnavailable && appended?.message.contains(spool.url.path) == true)
        #expect(appended?.message.contains("symbolic link") == true)
        #expect(throws: RecorderError.self) { _ = try spool.drain() }
        #expect(try String(contentsOf: victim, encoding: .utf8) == "private words\n")

        try FileManager.default.removeItem(at: spool.url)
        #expect(mkfifo(spool.url.path, 0o600) == 0)
        let fifo = #expect(throws: RecorderError.self) { try spool.append([event]) }
        #expect(fifo?.code == .spoolUnavailable)
    }

    @Test func aNewFileOpenedBeforeTheStoreExistsWaitsForIt() async throws {
        // A new account: neither the store nor its folder exists yet when the first file opened is new.
        let scratch = try Scratch()
        let storeURL = scratch.url.appendingPathComponent("data/clsfile/store.sqlite")
        let store = CLSDataStore(storeURL: storeURL)
        let spool = EventSpool(storeURL: storeURL)
        let file = scratch.url.appendingPathComponent("essay.txt")
        let opened = Date().addingTimeInterval(-20)
        let open = try await SessionRecorder(store: store).deliver(
            SessionEvent(kind: .open, file: file, date: opened),
            spool: spool)
        #expect(open.waitingForFile.count == 1)
        var info = stat()
        #expect(
            stat(storeURL.deletingLastPathComponent().path, &info) == 0 && info.st_mode & 0o777 == 0o700,
            "the store's folder is made private, as the store makes it")
        try Data("a first line\n".utf8).write(to: file)
        _ = try await SessionRecorder(store: store).deliver(SessionEvent(kind: .close, file: file), spool: spool)
        let activity = try await CLSDataStore(storeURL: storeURL).fetchActivity(for: file)
        #expect(abs((activity.timeSpans.first?.start ?? .distantFuture).timeIntervalSince(opened)) < 0.01)
    }

    @Test func aFileClosedBeforeItWasEverWrittenIsReportedNotRecorded() async throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("scratch.txt")
        let spool = EventSpool(storeURL: scratch.storeURL)
        let recorder = SessionRecorder(store: scratch.store())
        _ = try await recorder.deliver(SessionEvent(kind: .open, file: file), spool: spool)
        let close = try await recorder.deliver(SessionEvent(kind: .close, file: file), spool: spool)
        #expect(close.neverWritten.map(\.file) == [file])
        #expect(close.neverWritten.first?.events.map(\.kind) == [.open, .close])
        #expect(close.failures.isEmpty)
        #expect(try spool.drain().events.isEmpty)
        // A file in a folder that does not exist is not waited for: it is an error, as before.
        let lost = scratch.url.appendingPathComponent("no-folder/essay.txt")
        let failed = try await recorder.deliver(SessionEvent(kind: .open, file: lost), spool: spool)
        #expect(failed.failures.count == 1 && failed.waitingForFile.isEmpty)
    }

    @Test func viewsAreNotProgressUnlessTheFileIsRead() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("notes.md", String(repeating: "word ", count: 31))
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(SessionEvent(kind: .open, file: file, targetWords: 50))
        // The whole file fits the window.
        try await recorder.record(SessionEvent(kind: .view, file: file, visibleLines: 1...1, totalLines: 1))
        try await recorder.record(SessionEvent(kind: .close, file: file))
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.progressBasis == .targetWords)
        #expect(abs(activity.progress - 0.62) < 1e-9, "31 of 50 words, whatever was on screen")

        let unplanned = try scratch.file("draft.txt", "some words here")
        try await recorder.record(SessionEvent(kind: .open, file: unplanned))
        try await recorder.record(SessionEvent(kind: .view, file: unplanned, visibleLines: 1...1, totalLines: 1))
        try await recorder.record(SessionEvent(kind: .close, file: unplanned))
        let draft = try await scratch.store().fetchActivity(for: unplanned)
        #expect(draft.progressBasis == .noTarget)
        #expect(draft.progress == 0, "a document written with no target shows no progress")
    }

    @Test func aNewBasisStartsProgressAgain() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("plan.md", "- [x] one\n- [x] two\n- [ ] three\n- [ ] four\n")
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(SessionEvent(kind: .close, file: file))
        #expect(try await scratch.store().fetchActivity(for: file).progress == 0.5)
        // A target arrives: the checklist's 50% is not united with 4 of 100 words.
        try await recorder.record(SessionEvent(kind: .close, file: file, targetWords: 100))
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.progressBasis == .targetWords)
        #expect(abs(activity.progress - 0.04) < 1e-9, "\(activity.progressRanges)")
        // Reading: the share viewed, from zero.
        let reader = SessionRecorder(store: scratch.store(), configuration: .init(isReading: true))
        let book = try scratch.file("book.txt", String(repeating: "line\n", count: 10))
        try await reader.record(SessionEvent(kind: .view, file: book, visibleLines: 1...3, totalLines: 10))
        try await reader.record(SessionEvent(kind: .close, file: book))
        let read = try await scratch.store().fetchActivity(for: book)
        #expect(read.progressBasis == .viewedShare)
        #expect(abs(read.progress - 0.3) < 1e-9)
    }

    @Test func anAcceptedHandoutSetsTheBasisForPluginEvents() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt", "five words in this essay")
        let book = try scratch.file("book.txt", String(repeating: "line\n", count: 10))
        let key = Data(repeating: 7, count: 32)
        try await store.acceptAssignment(
            Assignment(
                identifier: "essay", title: "Essay", targetWordCount: 20,
                documentName: "essay.txt", documentDigest: "x", teacherKey: key),
            for: essay)
        try await store.acceptAssignment(
            Assignment(
                identifier: "book", title: "Book", isReading: true,
                documentName: "book.txt", documentDigest: "y", teacherKey: key),
            for: book)
        let recorder = SessionRecorder(store: store)
        for file in [essay, book] {
            try await recorder.record(SessionEvent(kind: .open, file: file))
            try await recorder.record(SessionEvent(kind: .view, file: file, visibleLines: 1...4, totalLines: 10))
            try await recorder.record(SessionEvent(kind: .close, file: file))
        }
        let written = try await scratch.store().fetchActivity(for: essay)
        #expect(written.progressBasis == .targetWords)
        #expect(abs(written.progress - 0.25) < 1e-9, "5 of the handout's 20 words: \(written.progressRanges)")
        let read = try await scratch.store().fetchActivity(for: book)
        #expect(read.progressBasis == .viewedShare)
        #expect(abs(read.progress - 0.4) < 1e-9, "lines 1–4 of 10 viewed: \(read.progressRanges)")
    }

    @Test func aNewTargetStartsTheProgressOver() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("notes.md", String(repeating: "word ", count: 31))
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(SessionEvent(kind: .close, file: file, targetWords: 50))
        #expect(abs(try await scratch.store().fetchActivity(for: file).progress - 0.62) < 1e-9)
        try await recorder.record(SessionEvent(kind: .close, file: file, targetWords: 100))
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(abs(activity.progress - 0.31) < 1e-9, "31 of 100 words, not the 62% of the old target: \(activity.progressRanges)")
        #expect(activity.targetWordCount == 100)
    }

    @Test func aTargetAndReadingNeverTakeTurns() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("notes.md", String(repeating: "word\n", count: 31))
        let recorder = SessionRecorder(store: scratch.store())
        // Both given at once: the target wins, and views stay out of the progress.
        try await recorder.record(SessionEvent(kind: .open, file: file, targetWords: 50, isReading: true))
        try await recorder.record(SessionEvent(kind: .view, file: file, visibleLines: 1...31, totalLines: 31))
        try await recorder.record(SessionEvent(kind: .save, file: file))
        try await recorder.record(SessionEvent(kind: .view, file: file, visibleLines: 1...31, totalLines: 31))
        var activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.progressBasis == .targetWords)
        #expect(abs(activity.progress - 0.62) < 1e-9, "\(activity.progressRanges)")
        // Reading given later replaces the target: the newest one given wins.
        try await recorder.record(SessionEvent(kind: .open, file: file, isReading: true))
        try await recorder.record(SessionEvent(kind: .view, file: file, visibleLines: 1...10, totalLines: 31))
        try await recorder.record(SessionEvent(kind: .close, file: file))
        activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.targetWordCount == nil)
        #expect(activity.progressBasis == .viewedShare)
        #expect(abs(activity.progress - 10.0 / 31) < 1e-9, "\(activity.progressRanges)")
    }

    @Test func anEventThatArrivesAfterItsSessionClosedStartsNothing() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let opened = Date().addingTimeInterval(-60)
        _ = try await replay(
            [(.open, at: 0, inputAt: nil), (.edit, at: 2, inputAt: 2), (.edit, at: 10, inputAt: 10), (.close, at: 20, inputAt: 10)],
            file: file, scratch: scratch, opened: opened)
        // A view a plugin sent just before the editor quit, recorded after the close.
        let recorder = SessionRecorder(store: scratch.store())
        try await recorder.record(
            SessionEvent(
                kind: .view, file: file, date: opened.addingTimeInterval(15),
                visibleLines: 1...1, totalLines: 1, inputAt: opened.addingTimeInterval(15)))
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(!activity.isStarted, "no session left running forever: \(activity.timeSpans)")
        #expect(activity.workSessions.count == 1)
        #expect(abs(activity.recordedDuration() - 8) < 0.01, "first input to last, as before the late view")
    }

    @Test func aPluginsOpenTimeAfterTheCloseIsNotBelieved() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let recorder = SessionRecorder(store: scratch.store())
        let opened = Date().addingTimeInterval(-40)
        try await recorder.record(SessionEvent(kind: .open, file: file, date: opened))
        try await recorder.record(
            SessionEvent(
                kind: .close, file: file, date: opened.addingTimeInterval(40),
                openedAt: opened.addingTimeInterval(3600)))
        let activity = try await scratch.store().fetchActivity(for: file)
        let openTime = try #require(activity.additionalActivityItems.first { $0.identifier == "open_time" } as? CLSQuantityItem)
        #expect(abs(openTime.quantity - 40) < 0.01, "from the session's start, not a negative hour")
    }

    @Test func aFileDeletedWhileOpenStillEndsItsSession() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let spool = EventSpool(storeURL: scratch.storeURL)
        let recorder = SessionRecorder(store: scratch.store())
        let opened = Date().addingTimeInterval(-30)
        _ = try await recorder.deliver(SessionEvent(kind: .open, file: file, date: opened), spool: spool)
        for at in [3.0, 12] {
            _ = try await recorder.deliver(
                SessionEvent(
                    kind: .edit, file: file, date: opened.addingTimeInterval(at),
                    inputAt: opened.addingTimeInterval(at)), spool: spool)
        }
        try FileManager.default.removeItem(at: file)
        let close = try await recorder.deliver(
            SessionEvent(kind: .close, file: file, inputAt: opened.addingTimeInterval(12)),
            spool: spool)
        #expect(close.neverWritten.isEmpty && close.failures.isEmpty, "\(close.failures.map(\.error.message))")
        #expect(close.measurement.problems.count == 1, "the content is gone and says so")
        let activity = try #require(try await scratch.store().allActivities().first)
        #expect(!activity.isStarted, "\(activity.timeSpans)")
        #expect(abs(activity.recordedDuration() - 9) < 0.01, "first input to last")
    }

    @Test func eventsWaitInTheSpoolWhileTheStoreCannotBeWritten() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let spool = EventSpool(storeURL: scratch.storeURL)
        try Data(repeating: 0x5A, count: 8192).write(to: scratch.storeURL)
        let opened = Date().addingTimeInterval(-30)
        await #expect(throws: CLSError.self) {
            try await SessionRecorder(store: scratch.store()).deliver(
                SessionEvent(kind: .open, file: file, date: opened),
                spool: spool)
        }
        await #expect(throws: CLSError.self) {
            try await SessionRecorder(store: scratch.store()).deliver(
                SessionEvent(kind: .edit, file: file, date: opened.addingTimeInterval(2), inputAt: opened.addingTimeInterval(2)),
                spool: spool)
        }
        // The person moves the broken store aside; the next event records all three.
        try FileManager.default.removeItem(at: scratch.storeURL)
        _ = try await SessionRecorder(store: scratch.store()).deliver(
            SessionEvent(kind: .close, file: file, date: opened.addingTimeInterval(20), inputAt: opened.addingTimeInterval(9)),
            spool: spool)
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(abs((activity.timeSpans.first?.start ?? .distantFuture).timeIntervalSince(opened)) < 0.01, "\(activity.timeSpans)")
        #expect(abs(activity.recordedDuration() - 7) < 0.01, "from the first input (2 s) to the last (9 s)")
        #expect(try spool.drain().events.isEmpty)
    }
}
