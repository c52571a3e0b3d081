import Foundation
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The LibreOffice extension in Samples/editors/libreoffice, installed into a private profile of
/// the real Writer, which runs under Xvfb with openbox and gets real X keystrokes (xdotool) and a
/// paste from the clipboard (xclip, Ctrl+V); the session is read back from the store, and the
/// events the extension wrote to `clsfile hook --stdio` from a copy of them.
@Suite(.serialized)
struct WriterExtensionTests {
    static let extensionFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/editors/libreoffice")

    @Test func typingAndAPasteMakeOneSessionWithTheirFigures() async throws {
        let writer = try await Writer(environment: [:])
        let typedWords = ["alpha ", "beta ", "gamma ", "delta "]
        let pasted = "pasted words from the clipboard"
        let ending = [" epsilon", " zeta"]

        let firstKey = Date()
        for word in typedWords { try await writer.type(word) }
        try await writer.paste(pasted)
        for word in ending { try await writer.type(word) }
        let lastKey = Date()
        try await Task.sleep(for: .seconds(4))
        try await writer.saveAndQuit()
        let quit = Date()

        let session = try await writer.closedSession()
        #expect(session["primaryItem"].flatMap { ($0 as? [String: Any])?["quantity"] as? Double } == 11, "\(session)")
        #expect((session["sessions"] as? [Any])?.count == 1, "one session: \(session)")
        let duration = try #require(session["durationSeconds"] as? Double, "\(session)")
        // Active from the first key to the last: Writer's start before it and the 4 s after it
        // (then ctrl+s, ctrl+q: no input) are open time only.
        let typing = lastKey.timeIntervalSince(firstKey)
        let open = quit.timeIntervalSince(writer.launched)
        #expect(
            duration >= typing - 0.5 && duration <= typing + 1,
            "active from the first key to the last (\(typing) s typing, \(open) s from Writer's start to its end): \(duration) s")

        let close = try #require(try writer.events().last { $0["event"] as? String == "close" }, "no close event")
        #expect(close["typed"] is Int, "a close always carries the rest of the figures: \(close)")
        #expect(close["openedAt"] is Double && close["inputAt"] is Double, "\(close)")
        try Self.expectFigures(of: writer, in: session, typed: (typedWords + ending).joined().count, pasted: pasted.count)
    }

    /// Writer killed after the input (a crash): what the edits carried is kept.
    @Test func theFiguresSentBeforeACrashAreKept() async throws {
        let writer = try await Writer(environment: [:])
        let typedWords = ["alpha ", "beta ", "gamma "]
        let pasted = "pasted words from the clipboard"
        for word in typedWords { try await writer.type(word) }
        try await writer.paste(pasted)
        try await writer.type(" delta")
        // The trailing edit goes 3 s after the input stops.
        try await Task.sleep(for: .seconds(5))
        try await writer.crash()
        let session = try await writer.session { ($0["additionalItems"] as? [Any])?.isEmpty == false }
        #expect(try writer.events().allSatisfy { $0["event"] as? String != "close" }, "no close came")
        try Self.expectFigures(of: writer, in: session, typed: (typedWords + [" delta"]).joined().count, pasted: pasted.count)
    }

    /// The figures of all the events the extension sent add up to what was typed and pasted, and
    /// to what the store keeps.
    private static func expectFigures(of writer: Writer, in session: [String: Any], typed: Int, pasted: Int) throws {
        let carrying = try writer.events().filter { $0["typed"] != nil }
        #expect(
            carrying.allSatisfy { ["edit", "save", "close"].contains($0["event"] as? String ?? "") },
            "only edits, saves and closes carry figures: \(carrying)")
        let typedCount = carrying.reduce(0) { $0 + ($1["typed"] as? Int ?? 0) }
        let pastedCount = carrying.reduce(0) { $0 + ($1["pasted"] as? Int ?? 0) }
        let largest = carrying.map { $0["largestPaste"] as? Int ?? 0 }.max() ?? 0
        #expect(abs(typedCount - typed) <= 2, "about the \(typed) characters typed: \(carrying)")
        #expect(pastedCount >= pasted && pastedCount <= pasted + 2, "\(carrying)")
        #expect(largest >= pasted, "\(carrying)")
        // What the extension sent is what the store keeps.
        let items = session["additionalItems"] as? [[String: Any]] ?? []
        func quantity(_ identifier: String) -> Int? {
            (items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double).map { Int($0) }
        }
        #expect(quantity("typed_characters") == typedCount, "\(items)")
        #expect(quantity("pasted_characters") == pastedCount, "\(items)")
        #expect(quantity("largest_paste") == largest, "\(items)")
    }

    /// The writer's own words cut and pasted elsewhere, or copied and pasted again, are moved, not
    /// pasted; text from another program (xclip) stays pasted.
    @Test func ownTextCutOrCopiedAndPastedIsMovedNotPasted() async throws {
        let writer = try await Writer(environment: [:])
        for word in ["alpha ", "beta ", "gamma ", "delta "] { try await writer.type(word) }
        // Cut the last word ("delta "), paste it at the start; copy the new last one ("gamma "),
        // paste it at the end.
        try await writer.press(["ctrl+shift+Left", "ctrl+x", "ctrl+Home", "ctrl+v"])
        try await writer.press(["ctrl+End", "ctrl+shift+Left", "ctrl+c", "ctrl+End", "ctrl+v"])
        try await writer.paste("outside words")
        try await writer.saveAndQuit()

        let session = try await writer.closedSession()
        let items = session["additionalItems"] as? [[String: Any]] ?? []
        func quantity(_ identifier: String) -> Int? {
            (items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double).map { Int($0) }
        }
        #expect(quantity("moved_characters") == 12, "\(items)")
        #expect(quantity("pasted_characters") == 13, "\(items)")
        #expect(quantity("largest_paste") == 13, "\(items)")
        #expect(quantity("typed_characters") == 23, "\(items)")
    }

    @Test func aPauseLongerThanTheIdleTimeoutIsNotCounted() async throws {
        let writer = try await Writer(environment: ["CLSFILE_IDLE_TIMEOUT": "8"])
        var typing = 0.0
        for words in [["one ", "two ", "three "], ["four ", "five"]] {
            if typing > 0 { try await Task.sleep(for: .seconds(15)) }
            let start = Date()
            for word in words { try await writer.type(word) }
            typing += Date().timeIntervalSince(start)
        }
        try await Task.sleep(for: .seconds(3))
        try await writer.saveAndQuit()
        let open = Date().timeIntervalSince(writer.launched)

        let session = try await writer.closedSession()
        #expect(session["primaryItem"].flatMap { ($0 as? [String: Any])?["quantity"] as? Double } == 5, "\(session)")
        let duration = try #require(session["durationSeconds"] as? Double, "\(session)")
        // Each burst's time is measured with the 0.3 s wait after its last word, which is no input.
        #expect(duration >= typing - 1, "the typing counts: \(duration) s of \(typing) s typing")
        // Only the typing counts: not the 15 s pause (past the 8 s idle timeout), nor Writer's
        // start before the first key, nor the 3 s after the last (shorter than the idle timeout,
        // but no input follows them).
        #expect(duration <= typing + 0.5, "only the typing counts: \(duration) s of \(open) s from Writer's start to its end")
    }
}

/// One Writer on a new, empty essay.odt, with its own display, window manager, profile (the
/// extension installed into it), store and copy of the events the extension sent.
private final class Writer {
    let scratch: Scratch
    let file: URL
    let eventsLog: URL
    let launched: Date
    private let desktop: VirtualDesktop
    private var soffice: SpawnedProcess?

    init(environment: [String: String]) async throws {
        try Tool.require(.soffice, .unopkg, .pythonUNO, .xvfb, .openbox, .xdotool, .xprop, .xclip)
        scratch = try Scratch()
        let clsfile = try builtExecutable("clsfile")
        let folder = WriterExtensionTests.extensionFolder

        // A display of its own, with a window manager, which xdotool activates windows through.
        desktop = try VirtualDesktop(logsIn: scratch.url)

        // The profile, seeded so that no first-start dialog takes the shortcuts, and the extension.
        let profile = scratch.url.appendingPathComponent("profile")
        try #require(runQuietly(folder.appendingPathComponent("test/seed-profile.sh").path, [profile.path]) == 0)
        try #require(runQuietly(folder.appendingPathComponent("build-oxt.sh").path, [scratch.url.path]) == 0)
        let userInstallation = "-env:UserInstallation=\(profile.absoluteURL.absoluteString)"
        let add = [Tool.unopkg.path, "add", "--force", userInstallation, scratch.url.appendingPathComponent("clsfile.oxt").path]
        // unopkg refuses to install for a user as root: run it as another user id in a user namespace.
        let installed =
            geteuid() == 0
            ? runBounded("/usr/bin/unshare", ["--user", "--map-user=1000", "--map-group=1000"] + add, timeout: 60, capturingIn: scratch.url)
            : runBounded(add[0], Array(add.dropFirst()), timeout: 60, capturingIn: scratch.url)
        try #require(installed.status == 0, "unopkg add failed: \(installed.output)\(installed.errorOutput)")

        // clsfile, behind a copy of every line the extension writes to it.
        eventsLog = scratch.url.appendingPathComponent("events.jsonl")
        let command = scratch.url.appendingPathComponent("clsfile-tee")
        try "#!/bin/sh\ntee -a '\(eventsLog.path)' | '\(clsfile.path)' \"$@\"\n".write(to: command, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: command.path)

        file = scratch.url.appendingPathComponent("essay.odt")
        try #require(runQuietly(folder.appendingPathComponent("test/empty-odt.py").path, [file.path]) == 0)
        launched = Date()
        soffice = try SpawnedProcess(
            Tool.soffice.path, [userInstallation, "--norestore", "--nologo", file.path],
            environment: environment.merging([
                "DISPLAY": desktop.display, "HOME": scratch.url.path,
                "CLSFILE_STORE": scratch.storeURL.path, "CLSFILE_COMMAND": command.path
            ]) { $1 }, in: scratch.url, name: "soffice")
        let found = desktop.xdotool(["search", "--sync", "--onlyvisible", "--name", "^essay\\.odt"], timeout: 60)
        try #require(found.status == 0, "Writer showed no window: \(soffice?.errorOutput ?? "")")
        let window = found.output.split(separator: "\n").first.map(String.init) ?? ""
        try #require(desktop.xdotool(["windowactivate", "--sync", window]).status == 0, "could not activate Writer's window")
        // The open event comes from the extension's job on load.
        var opened = false
        for _ in 0..<100 where !opened {
            opened = try events().contains { $0["event"] as? String == "open" }
            if !opened { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(opened, "the extension sent no open event")
    }

    // When a test fails before quitting Writer, the processes are killed as they go (SpawnedProcess),
    // and Writer ends with its display.

    /// Types a few words as real keystrokes, then lets Writer take them.
    func type(_ text: String) async throws {
        #expect(desktop.xdotool(["type", "--delay", "40", text]).status == 0)
        try await Task.sleep(for: .milliseconds(300))
    }

    /// Presses keys (xdotool's names) one after another, as a person does.
    func press(_ keys: [String]) async throws {
        for key in keys {
            #expect(desktop.xdotool(["key", key]).status == 0)
            try await Task.sleep(for: .milliseconds(300))
        }
    }

    /// Puts `text` on the clipboard and pastes it with Ctrl+V.
    func paste(_ text: String) async throws {
        let source = scratch.url.appendingPathComponent("clipboard.txt")
        try text.write(to: source, atomically: true, encoding: .utf8)
        // xclip forks a process that owns the clipboard until the display ends.
        let copied = desktop.run(Tool.xclip.path, ["-selection", "clipboard", source.path])
        #expect(copied.status == 0, "\(copied.errorOutput)")
        #expect(desktop.xdotool(["key", "ctrl+v"]).status == 0)
        try await Task.sleep(for: .milliseconds(500))
    }

    /// Saves with Ctrl+S (an .odt: no "Keep current format" question), waits for the file, quits
    /// with Ctrl+Q and waits for Writer to end.
    func saveAndQuit() async throws {
        let size = { (try? FileManager.default.attributesOfItem(atPath: self.file.path)[.size]) as? Int }
        let before = size()
        #expect(desktop.xdotool(["key", "ctrl+s"]).status == 0)
        for _ in 0..<100 where size() == before {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(desktop.xdotool(["key", "ctrl+q"]).status == 0)
        let status = await soffice?.wait(timeout: 20)
        #expect(status == 0, "Writer did not quit: \(soffice?.errorOutput ?? "")")
    }

    /// The lines the extension wrote to `clsfile hook --stdio`, decoded.
    func events() throws -> [[String: Any]] {
        guard FileManager.default.fileExists(atPath: eventsLog.path) else { return [] }
        return try String(contentsOf: eventsLog, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Kills Writer's processes at once (`kill -9`), as a crash ends them: nothing of the extension
    /// runs after, and its `clsfile hook --stdio` reads what was written to it, then the end.
    func crash() async throws {
        // oosplash and soffice.bin, whose command lines name this test's profile.
        let profile = scratch.url.appendingPathComponent("profile").path
        let writer = RunningProcess.all().filter { $0.arguments.contains { $0.contains(profile) } }
        #expect(!writer.isEmpty, "no Writer process to kill")
        for process in writer { kill(process.pid, SIGKILL) }
        _ = await soffice?.wait(timeout: 20)
    }

    /// `clsfile show --json` of the file once `done` says so of it (at most 20 s).
    func session(until done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let clsfile = try builtExecutable("clsfile")
        var last: [String: Any] = [:]
        for _ in 0..<80 {
            let shown = try run(clsfile, ["show", "--json", file.path, "--store", scratch.storeURL.path])
            if shown.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any] {
                last = object
                if done(object) { return object }
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        return last
    }

    /// `clsfile show --json` of the file once its session is closed (at most 20 s after Writer quit).
    func closedSession() async throws -> [String: Any] {
        let closed = try await session { $0["isStarted"] as? Bool == false }
        if closed["isStarted"] as? Bool != false { Issue.record("the session was not closed: \(closed)") }
        return closed
    }

}
