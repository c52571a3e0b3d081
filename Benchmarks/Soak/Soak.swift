import Foundation
import OpenClassKit

/// A soak run of the recorder: for some minutes, writers send editor hooks at random against one
/// store — short-lived `clsfile hook` processes, one long-lived `clsfile hook --stdio`, and
/// `clsfile open` sessions — while some of them are killed with SIGKILL at random. Afterwards it
/// checks what must hold whatever happened: the store passes `PRAGMA integrity_check`, no span is
/// left running by a dead process, each activity's duration is the union of its spans, the spool is
/// drained, and the long-lived process's memory grew no more than the history it holds.
///
///     swift build -c release && swift run -c release Soak [--minutes 2] [--writers 8] [--files 12]
///
/// Needs `sqlite3` (apt-get install sqlite3). Exits 1 when a check fails.
@main
struct Soak {
    static func main() async throws {
        let minutes = Double(text("--minutes") ?? "") ?? 2
        let writers = Int(text("--writers") ?? "") ?? 8
        let fileCount = Int(text("--files") ?? "") ?? 12
        let clsfile = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("clsfile")
        guard FileManager.default.isExecutableFile(atPath: clsfile.path) else { fail("build clsfile first: swift build -c release") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else { fail("needs sqlite3: apt-get install sqlite3") }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clsfile-soak-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("store.sqlite")
        let files = try (0..<fileCount).map { index -> URL in
            let file = folder.appendingPathComponent("doc-\(index).md")
            try Data("# Document \(index)\n\n- [ ] a task\n".utf8).write(to: file)
            return file
        }

        print(
            String(
                format: "Soak: %d writers (one hook --stdio), clsfile open sessions, SIGKILL at random, %.1f min, %d files",
                writers, minutes, fileCount))
        let deadline = Date().addingTimeInterval(minutes * 60)
        let tally = Tally()
        // A thread each: the writers block on processes and pipes, which would starve the two
        // threads of Swift's cooperative pool on this machine.
        let finished = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            finished.enter()
            Thread.detachNewThread {
                body()
                finished.leave()
            }
        }
        for writer in 0..<writers {
            spawn {
                if writer == 0 {
                    stdioWriter(clsfile, store: store, files: files, until: deadline, tally: tally)
                } else {
                    hookWriter(clsfile, store: store, files: files, until: deadline, tally: tally)
                }
            }
        }
        spawn { openSessions(clsfile, store: store, files: files, until: deadline, tally: tally) }
        finished.wait()
        let counts = tally.counts
        print(
            "  hooks run: \(counts.hooks) (\(counts.killed) killed), stdio events: \(counts.stdioEvents) (slowest answer \(Int(counts.slowestAnswer * 1000)) ms), open sessions: \(counts.sessions) (\(counts.killedSessions) killed)"
        )

        // The editors quit: a close for every file, as each plugin sends one; the first of them
        // also drains what the spool holds. Then the checks.
        for file in files {
            let status = run(clsfile, ["hook", "close", file.path, "--store", store.path])
            if status != 0 { fail("the closing hook of \(file.path) exited with \(status)") }
        }
        var failures: [String] = []
        let spool = store.appendingPathExtension("spool")
        let spooled = (try? Data(contentsOf: spool).count) ?? 0
        print("  spool after the run: \(spooled) bytes")
        if spooled > 0 { failures.append("the spool still holds \(spooled) bytes: events were not recorded") }

        let integrity = sqlite(store, "PRAGMA integrity_check")
        print("  integrity_check: \(integrity)")
        if integrity != "ok" { failures.append("integrity_check: \(integrity)") }

        // Opening the store ends the spans of dead processes at their last pulse.
        let data = CLSDataStore(storeURL: store)
        let activities = try await data.allActivities()
        let running = sqlite(store, "SELECT count(*) FROM time_span WHERE ended_at IS NULL")
        print("  spans left running after every file was closed: \(running)")
        if running != "0" { failures.append("\(running) spans left running after every file was closed and every writer exited") }

        var mismatches = 0
        for activity in activities {
            let spans = activity.timeSpans.map { ($0.start.timeIntervalSince1970, ($0.end ?? $0.lastPulse).timeIntervalSince1970) }
            if abs(union(spans) - activity.duration) > 0.001 { mismatches += 1 }
        }
        print("  activities: \(activities.count), duration ≠ union of spans: \(mismatches)")
        if mismatches > 0 { failures.append("\(mismatches) activities whose duration is not the union of their spans") }

        let memory = tally.memory
        if let first = memory.first, let last = memory.last {
            let quarters = [0, 1, 2, 3, 4].map { memory[min(memory.count - 1, $0 * (memory.count - 1) / 4)] }
            print(
                String(
                    format:
                        "  hook --stdio anonymous resident memory: %.1f MB at start, %.1f MB at end, peak %.1f MB (%d samples; by quarter: %@ MB)",
                    first, last, memory.max() ?? last, memory.count,
                    quarters.map { String(format: "%.1f", $0) }.joined(separator: ", ")))
            // The process keeps its recent files' activities, every span of their history
            // included: its memory grows with the spans recorded (this run records hundreds of
            // thousands of them, years of real editing), not with the events it answers. Besides
            // 1 KB a span held, 8 MB fill over the first minutes and then stay: SQLite's page
            // cache (2 MB a connection by default) and the allocator's one heap, which the threads
            // that answer share (a 2-minute run grows about 8 MB in all; a 30-minute run levels
            // off). With glibc's eight heaps a processor it grew 15 MB on a machine fast enough to
            // record 6,000 spans in the 2 minutes. Past that, something is kept that should not be.
            let spans = Double(sqlite(store, "SELECT count(*) FROM time_span")) ?? 0
            print(
                String(
                    format: "  spans recorded: %.0f; memory grown: %.1f MB, %.2f KB a span", spans, last - first,
                    spans > 0 ? (last - first) * 1024 / spans : 0))
            if last - first > 8 + spans / 1024 {
                failures.append(
                    String(format: "hook --stdio grew from %.1f to %.1f MB, more than its %.0f spans explain", first, last, spans))
            }
        }
        guard failures.isEmpty else { fail(failures.joined(separator: "; ")) }
        print("Soak: every check passed")
    }

    // MARK: Writers

    static let events = ["open", "edit", "save", "view", "close"]

    /// Short-lived hook processes, one after another, a few of them killed at a random moment.
    static func hookWriter(_ clsfile: URL, store: URL, files: [URL], until deadline: Date, tally: Tally) {
        while Date() < deadline {
            let file = files.randomElement()!
            let event = events.randomElement()!
            if event == "edit" || event == "save" { append(" word", to: file) }
            var arguments = ["hook", event, file.path, "--store", store.path, "--input-at", "\(Date().timeIntervalSince1970)"]
            if event == "view" { arguments += ["--view", "1-3", "--total-lines", "4"] }
            let killed = waitKillingAtRandom(start(clsfile, arguments), oneIn: 20, after: 0...0.006)
            tally.hook(killed: killed)
        }
    }

    /// One long-lived `hook --stdio`, as the Neovim and VS Code plugins keep one, sampled for memory.
    static func stdioWriter(_ clsfile: URL, store: URL, files: [URL], until deadline: Date, tally: Tally) {
        let process = Process()
        process.executableURL = clsfile
        process.arguments = ["hook", "--stdio", "--store", store.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        guard (try? process.run()) != nil else { fail("cannot start \(clsfile.path) hook --stdio") }
        let reader = output.fileHandleForReading
        var lastSample = Date.distantPast
        var sent = 0, answered = 0
        while Date() < deadline {
            let file = files.randomElement()!
            let event = events.randomElement()!
            if event == "edit" || event == "save" { append(" word", to: file) }
            let line = #"{"event":"\#(event)","file":"\#(file.path)","inputAt":\#(Date().timeIntervalSince1970)}"# + "\n"
            let sentAt = Date()
            input.fileHandleForWriting.write(Data(line.utf8))
            sent += 1
            while answered < sent {
                let chunk = reader.availableData
                guard !chunk.isEmpty else { fail("hook --stdio stopped answering") }
                answered += chunk.filter { $0 == UInt8(ascii: "\n") }.count
            }
            tally.stdioEvent(answeredIn: Date().timeIntervalSince(sentAt))
            if Date().timeIntervalSince(lastSample) >= 5 {
                lastSample = Date()
                if let megabytes = residentMegabytes(of: process.processIdentifier) { tally.sample(megabytes) }
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0.001...0.02))
        }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// `clsfile open` sessions with an editor that writes and takes a moment; one in four killed.
    static func openSessions(_ clsfile: URL, store: URL, files: [URL], until deadline: Date, tally: Tally) {
        while Date() < deadline {
            let file = files.randomElement()!
            let editor = "sh -c \"sleep 0.\(Int.random(in: 2...9)); echo more words >> \\\"$0\\\"\""
            let process = start(clsfile, ["open", "--no-pty", "--editor", editor, file.path, "--store", store.path])
            tally.session(killed: waitKillingAtRandom(process, oneIn: 4, after: 0.05...0.4))
        }
    }

    // MARK: Helpers

    /// Waits for a process; one time in `chance`, kills it with SIGKILL first, at a random moment
    /// within `delay` seconds. Returns whether it was killed.
    static func waitKillingAtRandom(_ process: Process, oneIn chance: Int, after delay: ClosedRange<Double>) -> Bool {
        let killed = Int.random(in: 0..<chance) == 0
        if killed {
            Thread.sleep(forTimeInterval: Double.random(in: delay))
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return killed
    }

    /// What the writers did, and the long-lived process's memory samples.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var hooks = 0, killed = 0, stdioEvents = 0, sessions = 0, killedSessions = 0
        private var slowestAnswer = 0.0
        private var samples: [Double] = []

        func hook(killed wasKilled: Bool) {
            lock.withLock {
                hooks += 1
                if wasKilled { killed += 1 }
            }
        }
        func stdioEvent(answeredIn seconds: Double) {
            lock.withLock {
                stdioEvents += 1
                slowestAnswer = max(slowestAnswer, seconds)
            }
        }
        func session(killed wasKilled: Bool) {
            lock.withLock {
                sessions += 1
                if wasKilled { killedSessions += 1 }
            }
        }
        func sample(_ megabytes: Double) { lock.withLock { samples.append(megabytes) } }

        var counts: (hooks: Int, killed: Int, stdioEvents: Int, slowestAnswer: Double, sessions: Int, killedSessions: Int) {
            lock.withLock { (hooks, killed, stdioEvents, slowestAnswer, sessions, killedSessions) }
        }
        var memory: [Double] { lock.withLock { samples } }
    }

    /// The measure of the union of intervals, worked out here apart from OpenClassKit's own.
    static func union(_ spans: [(Double, Double)]) -> Double {
        var total = 0.0
        var current: (Double, Double)?
        for span in spans.sorted(by: { $0.0 < $1.0 }) {
            guard let open = current else {
                current = span
                continue
            }
            if span.0 <= open.1 {
                current = (open.0, max(open.1, span.1))
            } else {
                total += open.1 - open.0
                current = span
            }
        }
        if let open = current { total += open.1 - open.0 }
        return total
    }

    static func append(_ text: String, to file: URL) {
        guard let handle = try? FileHandle(forWritingTo: file) else { return }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
        try? handle.close()
    }

    static func start(_ executable: URL, _ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { fail("cannot start \(executable.path)") }
        return process
    }

    @discardableResult
    static func run(_ executable: URL, _ arguments: [String]) -> Int32 {
        let process = start(executable, arguments)
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func sqlite(_ store: URL, _ sql: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-readonly", store.path, sql]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { fail("cannot run sqlite3") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The process's anonymous resident memory (`RssAnon`): what it allocated and keeps. Pages of
    /// files it maps (its own code as it first runs, the store's shared WAL index) are left out:
    /// they are the kernel's cache, not kept by the process, and grow with the code paths taken.
    static func residentMegabytes(of pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1024
    }

    static func text(_ name: String) -> String? {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Soak: \(message)\n".utf8))
        exit(1)
    }
}
