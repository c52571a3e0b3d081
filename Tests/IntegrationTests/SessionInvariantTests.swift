import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Random sequences of editor runs on one file, in real processes and real time — plugins that
/// keep `clsfile hook --stdio` running, and `clsfile open` around an editor, some of them killed
/// with SIGKILL — with opens, typing, pastes, saves, pauses past the idle timeout and closes;
/// after each step the figures must agree with each other and with the file:
///
/// - one session per editor run, never one for two runs however close;
/// - the sessions' active times add up to the activity's time, and no session counts more than
///   the time from its run's first input to its last (a run left untouched counts none);
/// - the history's sessions add up to the time of its last row, each with active ≤ open time;
/// - each history row's words are the words of the text it kept.
@Suite(.serialized)
struct SessionInvariantTests {
    /// The idle timeout the runs use: pauses of ``pause`` are past it.
    static let idleTimeout = 1.5
    static let pause = 2.0

    @Test(arguments: [UInt64(7), 2026])
    func figuresAgreeAfterEveryStep(seed: UInt64) async throws {
        var random = SplitMix(seed: seed)
        let world = try World()
        var runs: [Run] = []
        for runIndex in 0..<6 {
            let kind = Int.random(in: 0..<3, using: &random)
            let run: Run = kind == 0 ? try OpenRun(world: world) : try PluginRun(world: world)
            runs.append(run)
            try await Task.sleep(for: .milliseconds(300))
            var ended = false
            // The third run is an editor left open untouched, then closed.
            let steps = runIndex == 2 ? 0 : Int.random(in: 2...5, using: &random)
            if steps == 0 { try await Task.sleep(for: .seconds(1)) }
            for _ in 0..<steps where !ended {
                switch Int.random(in: 0..<10, using: &random) {
                case 0...4: try run.type(Int.random(in: 1...4, using: &random), random: &random)
                case 5: try Bool.random(using: &random) ? run.paste() : run.moveOwnText()
                case 6: try run.save()
                case 7: try await Task.sleep(for: .seconds(Self.pause))
                case 8 where runIndex % 2 == 1:
                    // Only `clsfile open` keeps a session of its own to kill.
                    if let open = run as? OpenRun {
                        try open.kill()
                        ended = true
                    }
                default: try await Task.sleep(for: .milliseconds(400))
                }
                try await Task.sleep(for: .milliseconds(200))
                try await check(world, runs: runs, seed: seed)
            }
            if !ended { try run.close() }
            try await check(world, runs: runs, seed: seed)
            // Less than the idle timeout between runs: the gap must never count.
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...1_200, using: &random)))
        }
    }

    /// Checks every invariant, after a command (`clsfile list`) opened the store as a person's next command would.
    private func check(_ world: World, runs: [Run], seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let listed = try run(world.clsfile, ["list", "--store", world.store.path])
        #expect(listed.status == 0, "\(listed.errorOutput)", sourceLocation: sourceLocation)
        let store = CLSDataStore(storeURL: world.store, configuration: .init(busyTimeout: 30))
        guard let activity = try await store.existingActivity(for: world.file) else {
            Issue.record("seed \(seed): no activity after \(runs.count) runs", sourceLocation: sourceLocation)
            return
        }
        let sessions = activity.workSessions
        let context = "seed \(seed), runs \(runs.map(\.name)), spans \(activity.timeSpans)"
        #expect(sessions.count == runs.count, "one session per editor run: \(context)", sourceLocation: sourceLocation)
        let total = activity.recordedDuration()
        #expect(
            abs(sessions.map(\.activeTime).reduce(0, +) - total) < 0.05,
            "the sessions add up to the total \(total): \(context)", sourceLocation: sourceLocation)
        for (session, run) in zip(sessions, runs) {
            #expect(
                session.activeTime <= run.wallTime + 0.5,
                "a session counts at most its run's \(run.wallTime) s: \(session), \(context)", sourceLocation: sourceLocation)
            let inputTime = run.inputTimes.last.map { $0.timeIntervalSince(run.inputTimes[0]) } ?? 0
            #expect(
                session.activeTime <= inputTime + run.inputLatency,
                "active time only from input: at most the run's \(inputTime) s from its first input to its last: \(session), \(context)",
                sourceLocation: sourceLocation)
        }
        // The typed and pasted characters are those the plugins' closes sent, no more, no less.
        let items = activity.additionalActivityItems.compactMap { $0 as? CLSQuantityItem }
        func quantity(_ identifier: String) -> Int { Int(items.first { $0.identifier == identifier }?.quantity ?? 0) }
        #expect(
            quantity(ItemIdentifier.typedCharacters) == runs.map(\.recordedInput.typed).reduce(0, +),
            "typed: \(context)", sourceLocation: sourceLocation)
        #expect(
            quantity(ItemIdentifier.movedCharacters) == runs.map(\.recordedInput.moved).reduce(0, +),
            "moved: \(context)", sourceLocation: sourceLocation)
        #expect(
            quantity(ItemIdentifier.pastedCharacters) == runs.map(\.recordedInput.pasted).reduce(0, +),
            "pasted: \(context)", sourceLocation: sourceLocation)
        let history = try await store.writingHistory(for: world.file)
        let ended = history.sessions.filter { $0.end != nil }
        #expect(
            ended.count == runs.filter(\.hasEnded).count, "a history session per ended run: \(history.sessions), \(context)",
            sourceLocation: sourceLocation)
        if let last = history.entries.last {
            #expect(
                abs(history.sessions.map(\.activeTime).reduce(0, +) - last.activeTime) < 0.05,
                "the history's sessions add up to its last row: \(history.sessions), \(context)", sourceLocation: sourceLocation)
            if !activity.isStarted {
                #expect(
                    abs(last.activeTime - total) < 0.05, "the last row has the whole time \(total): \(last)",
                    sourceLocation: sourceLocation)
            }
            // Each session's typed, pasted and moved characters are its own: they add up to the whole.
            for (name, whole, share) in [
                ("typed", last.typedCharacters, history.sessions.map(\.typedCharacters)),
                ("pasted", last.pastedCharacters, history.sessions.map(\.pastedCharacters)),
                ("moved", last.movedCharacters, history.sessions.map(\.movedCharacters))
            ] {
                #expect(
                    share.compactMap { $0 }.reduce(0, +) == whole ?? 0,
                    "the sessions' \(name) characters add up to the last row's: \(history.sessions), \(context)",
                    sourceLocation: sourceLocation)
            }
        }
        // A running session's open time comes with its close.
        for session in ended {
            if let open = session.openTime {
                #expect(
                    session.activeTime <= open + 0.5, "active ≤ open in a session: \(session), \(context)",
                    sourceLocation: sourceLocation)
            }
        }
        for try await snapshot in try await store.snapshots(of: world.file) {
            let words = String(decoding: snapshot.content, as: UTF8.self).split(whereSeparator: \.isWhitespace).count
            #expect(
                snapshot.entry.words == words, "a row's words are its text's: \(snapshot.entry), \(context)",
                sourceLocation: sourceLocation)
        }
    }
}

/// The file, the store and the programs the runs share.
private final class World: Sendable {
    let scratch: Scratch
    let file: URL
    let store: URL
    let clsfile: URL

    init() throws {
        scratch = try Scratch()
        file = try scratch.file("essay.txt", "")
        store = scratch.storeURL
        clsfile = try builtExecutable("clsfile")
        // The `clsfile open` runs' editor: it writes what it is told to the file, until told to quit.
        try scratch.file(
            "editor.sh",
            """
            while read -r command text; do
              case "$command" in
                append) printf '%s\\n' "$text" >> "$1" ;;
                quit) exit 0 ;;
              esac
            done < "$CLSFILE_TEST_COMMANDS"
            """)
    }
}

/// One run of an editor on the file.
private protocol Run: AnyObject {
    var name: String { get }
    /// Seconds from its start to its end (or to now).
    var wallTime: Double { get }
    var hasEnded: Bool { get }
    func type(_ words: Int, random: inout SplitMix) throws
    func paste() throws
    /// Pastes again text the document already holds: its own text, copied.
    func moveOwnText() throws
    func save() throws
    func close() throws
    /// The typed and pasted characters its close recorded (none for `clsfile open` without a plugin).
    var recordedInput: (typed: Int, pasted: Int, moved: Int) { get }
    /// When it gave input (typed, pasted, saved), oldest first.
    var inputTimes: [Date] { get }
    /// How late its input may reach the session, in seconds.
    var inputLatency: Double { get }
}

private let vocabulary = ["river", "stone", "water", "light", "north", "field", "quiet", "green", "storm", "bridge"]

/// A plugin's editor: keeps the text and one `clsfile hook --stdio` process, as the LibreOffice
/// extension does; the file changes only when saved. The hook runs under a process of its own
/// (`timeout`, which waits for it), so that each run is another editor process, as two launches of
/// an editor are; a shell would not do, since a hook takes the process above its shell for the editor.
private final class PluginRun: Run {
    let world: World
    let process = Process()
    let input = Pipe(), output = Pipe()
    var text: String
    let opened = Date()
    var closedAt: Date?
    var typed = 0, pasted = 0, moved = 0, largestPaste = 0
    var inputTimes: [Date] = []
    var inputLatency: Double { 0.05 }
    /// Whether the text changed since it was last saved.
    var isModified = false

    var name: String { "plugin" }
    var wallTime: Double { (closedAt ?? Date()).timeIntervalSince(opened) }
    var hasEnded: Bool { closedAt != nil }

    init(world: World) throws {
        self.world = world
        text = (try? String(contentsOf: world.file, encoding: .utf8)) ?? ""
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = [
            "1h", world.clsfile.path, "hook", "--stdio", "--store", world.store.path,
            "--idle-timeout", "\(SessionInvariantTests.idleTimeout)"
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        try send(["event": "open"])
    }

    deinit { if process.isRunning { process.terminate() } }

    private func send(_ fields: [String: Any]) throws {
        var line = fields
        line["file"] = world.file.path
        line["editor"] = "test"
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: line) + Data("\n".utf8))
        var answer = Data()
        while !answer.contains(UInt8(ascii: "\n")) {
            // A hook that answers nothing in 30 s fails the test instead of hanging the suite.
            var ready = [pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&ready, 1, 30_000) > 0 else { throw CLSError(.invalidArgument, "the hook answered nothing in 30 s: \(fields)") }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw CLSError(.invalidArgument, "the hook process ended") }
            answer += chunk
        }
        let reply = String(decoding: answer, as: UTF8.self)
        #expect(reply.contains("\"ok\":true"), "\(fields): \(reply)")
    }

    func type(_ words: Int, random: inout SplitMix) throws {
        for _ in 0..<words {
            let word = vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)] + " "
            text += word
            typed += word.count
        }
        isModified = true
        try sendInput("edit")
    }

    /// Sends an event of input now.
    private func sendInput(_ event: String) throws {
        let now = Date()
        inputTimes.append(now)
        try send(["event": event, "inputAt": now.timeIntervalSince1970])
    }

    func paste() throws {
        let chunk = "a pasted line of seven words here\n"
        text += chunk
        pasted += chunk.count
        largestPaste = max(largestPaste, chunk.count)
        isModified = true
        try sendInput("edit")
    }

    func moveOwnText() throws {
        guard let own = text.split(separator: " ").first.map({ " " + $0 }) else { return try paste() }
        text += own
        moved += own.count
        isModified = true
        try sendInput("edit")
    }

    func save() throws {
        try Data(text.utf8).write(to: world.file)
        isModified = false
        try sendInput("save")
    }

    /// Saves what changed, as an editor asks to, and closes; the close itself is no input.
    func close() throws {
        if isModified { try save() }
        try send([
            "event": "close", "openedAt": opened.timeIntervalSince1970, "typed": typed, "pasted": pasted,
            "moved": moved, "largestPaste": largestPaste
        ])
        closedAt = Date()
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
    }

    var recordedInput: (typed: Int, pasted: Int, moved: Int) { closedAt == nil ? (0, 0, 0) : (typed, pasted, moved) }
}

/// `clsfile open --no-pty` around a scripted editor that writes the file as it goes.
private final class OpenRun: Run {
    let world: World
    let process: SpawnedProcess
    let commands: URL
    var writer: FileHandle?
    let opened = Date()
    var endedAt: Date?
    var wasKilled = false
    var inputTimes: [Date] = []
    /// The file's change is seen at once, the pulse saved within the flush interval; the
    /// editor's write comes a moment after the command.
    var inputLatency: Double { 0.5 }

    var name: String { wasKilled ? "open (killed)" : "open" }
    var wallTime: Double { (endedAt ?? Date()).timeIntervalSince(opened) }
    var hasEnded: Bool { endedAt != nil }

    init(world: World) throws {
        self.world = world
        commands = world.scratch.url.appendingPathComponent("commands-\(UUID().uuidString).fifo")
        guard mkfifo(commands.path, 0o600) == 0 else { throw POSIXError(.EIO) }
        let editor = world.scratch.url.appendingPathComponent("editor.sh").path
        process = try SpawnedProcess(
            world.clsfile.path,
            [
                "open", "--no-pty", "--store", world.store.path,
                "--idle-timeout", "\(SessionInvariantTests.idleTimeout)", "--editor", "sh \(editor)",
                world.file.path
            ],
            environment: ["CLSFILE_TEST_COMMANDS": commands.path], in: world.scratch.url, name: "open")
        writer = try Self.openWhenRead(commands, process: process)
    }

    /// Opens the FIFO to write once the editor reads it, so the editor runs when this returns;
    /// fails after 20 s.
    private static func openWhenRead(_ fifo: URL, process: SpawnedProcess) throws -> FileHandle {
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline {
            let descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            }
            guard errno == ENXIO else { break }
            usleep(50_000)
        }
        throw CLSError(.invalidArgument, "the editor of clsfile open never started: \(process.errorOutput)")
    }

    private func tell(_ line: String) {
        writer?.write(Data((line + "\n").utf8))
    }

    func type(_ words: Int, random: inout SplitMix) throws {
        let text = (0..<words).map { _ in vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)] }.joined(separator: " ")
        inputTimes.append(Date())
        tell("append \(text)")
    }

    func paste() throws {
        inputTimes.append(Date())
        tell("append a pasted line of seven words here")
    }

    /// A line the file holds, written again: no relay runs (`--no-pty`), so nothing counts it.
    func moveOwnText() throws {
        inputTimes.append(Date())
        tell("append \(vocabulary[0]) \(vocabulary[1])")
    }

    /// The scripted editor writes as it types.
    func save() throws {}

    func close() throws {
        tell("quit")
        writer?.closeFile()
        writer = nil
        let status = process.waitBlocking(timeout: 30)
        endedAt = Date()
        #expect(status == 0, "clsfile open: \(process.errorOutput)")
    }

    /// No plugin runs in the scripted editor, and `--no-pty` relays no keys.
    var recordedInput: (typed: Int, pasted: Int, moved: Int) { (0, 0, 0) }

    func kill() throws {
        process.signal(SIGKILL)
        _ = process.waitBlocking(timeout: 10)
        endedAt = Date()
        wasKilled = true
        // The editor, orphaned, reads the end of its commands and exits.
        writer?.closeFile()
        writer = nil
    }
}
