import Foundation
import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct TimeSpanTests {
    @Test func stoppingAnActivityRecordsItsDuration() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        #expect(!activity.isStarted)
        let before = Date()
        activity.start()
        #expect(activity.isStarted)
        #expect(store.runningActivity === activity)
        try await Task.sleep(for: .milliseconds(300))
        let running = activity.duration
        #expect(running >= 0.3)
        activity.stop()
        let elapsed = Date().timeIntervalSince(before)
        #expect(!activity.isStarted)
        #expect(store.runningActivity == nil)
        #expect(activity.duration >= running && activity.duration <= elapsed)
        try await store.save()

        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(abs(reread.duration - activity.duration) < 0.001)
        #expect(reread.timeSpans.count == 1)
    }

    @Test func startingTwiceInOneProcessKeepsOneSpan() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.start()
        activity.start()
        try await store.save()
        activity.start()
        activity.stop()
        try await store.save()
        #expect(activity.timeSpans.count == 1)
    }

    @Test func durationAccumulatesAcrossSessions() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let started = Date()
        for _ in 0..<3 {
            let activity = try await store.fetchActivity(for: file)
            activity.start()
            try await Task.sleep(for: .milliseconds(100))
            activity.stop()
            try await store.save()
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.timeSpans.count == 3)
        #expect(activity.duration >= 0.3 && activity.duration <= Date().timeIntervalSince(started))
    }

    @Test func aStartSavedInOneProcessIsStoppedInAnother() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let launched = Date()
        let started = try runWorker(["start", scratch.storeURL.path, file.path])
        #expect(started.status == 0, "\(started.errorOutput)")
        let startReturned = Date()
        try await Task.sleep(for: .seconds(1))
        let stopLaunched = Date()
        let stopped = try runWorker(["stop", scratch.storeURL.path, file.path])
        #expect(stopped.status == 0, "\(stopped.errorOutput)")
        let finished = Date()

        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(!activity.isStarted)
        #expect(activity.timeSpans.count == 1)
        // The span began inside the first process and ended inside the second.
        #expect(activity.duration >= stopLaunched.timeIntervalSince(startReturned))
        #expect(activity.duration <= finished.timeIntervalSince(launched))
    }

    @Test func spansFromTwoProcessesThatOverlapCountOnce() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let launched = Date()
        #expect(try runWorker(["start", scratch.storeURL.path, file.path]).status == 0)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try runWorker(["start", scratch.storeURL.path, file.path]).status == 0)
        try await Task.sleep(for: .milliseconds(300))

        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        #expect(activity.isStarted)
        #expect(activity.timeSpans.count == 2)
        activity.stop()
        try await store.save()
        let wall = Date().timeIntervalSince(launched)
        let spans = activity.timeSpans
        let sum = spans.reduce(0) { $0 + (($1.end ?? Date()).timeIntervalSince($1.start)) }
        #expect(activity.duration < sum)
        #expect(activity.duration <= wall)
        #expect(activity.duration >= 0.6)
    }

    /// A process that pulses before each save, and one that only saves as the talks' code does:
    /// killed, each keeps its time up to its last save.
    @Test(arguments: ["pulse-forever", "save-forever"])
    func aKilledProcessSpanEndsAtItsLastPulse(_ command: String) async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let process = Process()
        process.executableURL = try builtExecutable("store-worker")
        process.arguments = [command, scratch.storeURL.path, file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var lastPrinted = 0.0
        var seen = 0
        var buffer = Data()
        while seen < 5 {
            let chunk = output.fileHandleForReading.availableData
            #expect(!chunk.isEmpty, "the worker stopped before pulsing")
            if chunk.isEmpty { break }
            buffer.append(chunk)
            let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
            seen = lines.count
            if let last = lines.last, let value = Double(last.dropFirst("pulse ".count)) { lastPrinted = value }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let killed = Date().timeIntervalSince1970
        #expect(process.terminationReason == .uncaughtSignal)

        // Until a store opens after the kill, the span still runs in the file; opening the store
        // ends it, so nothing runs.
        #expect(scratch.store().runningActivity == nil)
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(!activity.isStarted, "opening the store must end the dead process's span")
        let span = try #require(activity.timeSpans.first)
        let end = try #require(span.end)
        #expect(end == span.lastPulse)
        #expect(end.timeIntervalSince1970 >= lastPrinted - 0.001)
        #expect(end.timeIntervalSince1970 <= killed)
        #expect(activity.duration < killed - span.start.timeIntervalSince1970 + 0.001)
    }

    /// A plugin's hook starts a session in its editor's run and exits; the editor is then killed,
    /// so no close comes. While the editor runs, opening the store leaves the session running,
    /// even though the hook ran through a shell that is gone (the run is the editor's, above the
    /// shell); once the editor is gone, the next process to open the store ends the session at its
    /// last pulse, as for a killed `clsfile open`, instead of showing it running until the file's
    /// next event.
    @Test func aSessionWhoseEditorWasKilledEndsWhenTheStoreOpens() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let editor = Process()
        editor.executableURL = try builtExecutable("store-worker")
        editor.arguments = ["edit-through-shell", scratch.storeURL.path, file.path]
        let output = Pipe()
        editor.standardOutput = output
        try editor.run()
        defer { if editor.isRunning { kill(editor.processIdentifier, SIGKILL) } }
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        try #require(said.hasPrefix("started"), "the hook failed: the editor said \(said.debugDescription)")

        let running = try #require(try await scratch.store().activityRecorded(at: file))
        #expect(running.isStarted, "an editor that still runs keeps its session, its hook's shell gone or not")
        #expect(running.timeSpans.first?.end == nil)

        kill(editor.processIdentifier, SIGKILL)
        editor.waitUntilExit()
        let activity = try #require(try await scratch.store().activityRecorded(at: file))
        #expect(!activity.isStarted, "opening the store must end the session of a killed editor")
        let span = try #require(activity.timeSpans.first)
        #expect(span.end == span.lastPulse)
    }

    /// Started and saved by one process that then exits: another process sees it running.
    @Test func theRunningActivityIsSeenFromAnotherProcess() async throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.txt"), notes = try scratch.file("notes.txt")
        #expect(scratch.store().runningActivity == nil)
        for file in [notes, essay] {
            let started = try runWorker(["start", scratch.storeURL.path, file.path])
            #expect(started.status == 0, "\(started.errorOutput)")
        }
        let store = scratch.store()
        let running = try #require(store.runningActivity)
        #expect(running.isStarted && running.context.fileURL?.lastPathComponent == "essay.txt")
        #expect(running === (try await store.fetchActivity(for: essay)), "one instance per activity")
        try runWorker(["stop", scratch.storeURL.path, essay.path])
        #expect(scratch.store().runningActivity?.context.fileURL?.lastPathComponent == "notes.txt")
    }

    @Test func eightProcessesSavingAtOnceLoseNothing() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("shared.txt")
        let workers = 8, saves = 200
        let storePath = scratch.storeURL.path
        let results = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try runWorker(["hammer", storePath, file.path, "\(worker)", "\(saves)", "\(workers)"])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results {
            #expect(result.status == 0, "\(result.errorOutput)")
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.timeSpans.count == workers * saves)
        #expect(activity.additionalActivityItems.count == workers * saves)
        #expect(activity.progress == 1.0, "every worker's slice of progress must be present")
        #expect(!activity.isStarted)
        var union: [(Double, Double)] = []
        for span in activity.timeSpans {
            let start = span.start.timeIntervalSince1970, end = try #require(span.end).timeIntervalSince1970
            if let last = union.last, start <= last.1 {
                union[union.count - 1].1 = max(last.1, end)
            } else {
                union.append((start, end))
            }
        }
        let measured = union.reduce(0) { $0 + $1.1 - $1.0 }
        #expect(abs(activity.duration - measured) < 1e-6)
        let identifiers = Set(activity.additionalActivityItems.map(\.identifier))
        #expect(identifiers.contains("worker-7-save-199"))
        #expect(identifiers.contains("worker-0-save-0"))
    }
}
