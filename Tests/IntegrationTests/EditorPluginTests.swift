import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The editor plugins in Samples/editors, run in the real editors (VS Code through a stand-in
/// of its `vscode` module) against the built `clsfile`, with the result read back from the store.
@Suite(.serialized)
struct EditorPluginTests {
    /// Samples/editors in this package.
    static let editors = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/editors")

    private static let words = ["alpha", "beta", "gamma", "delta", "epsilon"]

    @Test func vimRecordsASession() async throws {
        try Tool.require(.vim, .tmux)
        let scratch = try Scratch()
        let file = try scratch.file("vim essay.txt", "")
        let clsfile = try builtExecutable("clsfile")
        let command = [
            "env", "CLSFILE_STORE=\(scratch.storeURL.path)",
            "vim", "-N", "-u", "NONE", "-i", "NONE", "-n",
            "--cmd", "set rtp^=\(Self.editors.appendingPathComponent("vim").path)",
            "--cmd", "let g:clsfile_command = '\(clsfile.path)'",
            "-c", "runtime plugin/clsfile.vim",
            file.path
        ]
        try await typeInTmux(command, file: file, scratch: scratch)
    }

    @Test func neovimRecordsASession() async throws {
        try Tool.require(.nvim, .tmux)
        let scratch = try Scratch()
        let file = try scratch.file("nvim essay.txt", "")
        let clsfile = try builtExecutable("clsfile")
        let command = [
            "env", "CLSFILE_STORE=\(scratch.storeURL.path)",
            "nvim", "-u", "NONE", "-i", "NONE", "-n",
            "--cmd", "set rtp^=\(Self.editors.appendingPathComponent("nvim").path)",
            "--cmd", "let g:clsfile_command = '\(clsfile.path)'",
            "-c", "runtime plugin/clsfile.lua",
            file.path
        ]
        try await typeInTmux(command, file: file, scratch: scratch)
    }

    @Test func emacsRecordsASession() async throws {
        _ = try Tool.emacs.require()
        let scratch = try Scratch()
        let file = try scratch.file("emacs essay.txt", "")
        let clsfile = try builtExecutable("clsfile")
        let script = """
            (progn
              (setq clsfile-command \(lisp(clsfile.path)))
              (clsfile-mode 1)
              (with-temp-buffer (insert "not a file"))
              (find-file \(lisp(file.path)))
              (sleep-for 1)
              (dolist (word '(\(Self.words.map(lisp).joined(separator: " "))))
                (insert word " ")
                (sleep-for 0.05))
              (clsfile--post-command)
              (sleep-for 0.3)
              (save-buffer)
              (sleep-for 0.3)
              (kill-buffer))
            """
        let result = runBounded(
            try Tool.emacs.require(),
            ["--batch", "-Q", "-l", Self.editors.appendingPathComponent("emacs/clsfile.el").path, "--eval", script],
            environment: ["CLSFILE_STORE": scratch.storeURL.path], in: scratch)
        #expect(result.status == 0, "\(result.errorOutput)")
        try await expectSession(of: file, scratch: scratch)
    }

    @Test func vscodeExtensionRecordsASession() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("vscode essay.txt", "")
        let clsfile = try builtExecutable("clsfile")
        let result = runBounded(
            try Tool.node.require(),
            [Self.editors.appendingPathComponent("vscode/test/run-events.js").path, file.path, clsfile.path]
                + Self.words,
            environment: ["CLSFILE_STORE": scratch.storeURL.path], in: scratch)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
        try await expectSession(of: file, scratch: scratch)
    }

    @Test func vscodeTypingBeforeABreakCountsAndTheBreakDoesNot() async throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("new essay.txt")
        let clsfile = try builtExecutable("clsfile")
        let started = Date()
        // Ten words 0.3 s apart in a file that does not exist yet, then 7 s idle (over the 4 s
        // timeout) and an auto-save, which is not input.
        let result = runBounded(
            try Tool.node.require(),
            [
                Self.editors.appendingPathComponent("vscode/test/run-events.js").path, file.path, clsfile.path,
                "--idle", "7"
            ] + Self.words + Self.words,
            environment: ["CLSFILE_STORE": scratch.storeURL.path, "CLSFILE_IDLE_TIMEOUT": "4"], in: scratch)
        #expect(result.status == 0, "\(result.errorOutput)")
        let object = try await poll(file, scratch: scratch) { $0["isStarted"] as? Bool == false }
        let duration = try #require(object["durationSeconds"] as? Double)
        #expect(duration >= 2.5 && duration <= 5, "the typing counts, the idle tail does not: \(object)")
        let span = try #require((object["spans"] as? [[String: Any]])?.first?["start"] as? String)
        #expect(try #require(parseDate(span)) < started.addingTimeInterval(2), "the new file's session starts at its open")
    }

    @Test func vscodeExtensionIsQuietForTheFileOfClsfileOpen() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let result = runBounded(
            try Tool.node.require(),
            [
                Self.editors.appendingPathComponent("vscode/test/run-events.js").path, file.path,
                try builtExecutable("clsfile").path, "word"
            ],
            environment: [
                "CLSFILE_STORE": scratch.storeURL.path,
                "CLSFILE_SESSION_FILE": file.resolvingSymlinksInPath().path
            ], in: scratch)
        #expect(result.status == 0, "\(result.errorOutput)")
        // Views may be sent (they give reading progress); no session is timed by the extension.
        let activity =
            FileManager.default.fileExists(atPath: scratch.storeURL.path)
            ? try await CLSDataStore(storeURL: scratch.storeURL).existingActivity(for: file) : nil
        #expect(activity?.timeSpans.isEmpty ?? true, "clsfile open times this file itself: \(String(describing: activity?.timeSpans))")
        #expect(activity?.additionalActivityItems.isEmpty ?? true, "no open time or figures from the extension")
    }

    @Test func vscodeExtensionSaysOnceWhenClsfileIsMissing() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let result = runBounded(
            try Tool.node.require(),
            [
                Self.editors.appendingPathComponent("vscode/test/run-events.js").path, file.path,
                scratch.url.appendingPathComponent("no-clsfile").path, "word"
            ],
            environment: ["CLSFILE_STORE": scratch.storeURL.path], in: scratch)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.components(separatedBy: "is not executable").count == 2, "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: scratch.storeURL.path))
    }

    // MARK: - Helpers

    /// Runs an editor in a private tmux server, waits for its open event, types the words,
    /// writes, quits, and checks the session.
    private func typeInTmux(_ command: [String], file: URL, scratch: Scratch) async throws {
        let tmux = try Tool.tmux.require()
        let socket = "clsfile-\(UUID().uuidString.prefix(8))"
        let tmuxArguments = ["-L", socket, "-f", "/dev/null"]
        defer { _ = runQuietly(tmux.path, tmuxArguments + ["kill-server"]) }
        let shell = command.map(shellQuoted).joined(separator: " ")
        let started = runQuietly(tmux.path, tmuxArguments + ["new-session", "-d", "-x", "120", "-y", "40", "-s", "editor", shell])
        try #require(started == 0, "tmux did not start")

        let opened = try await poll(file, scratch: scratch) { $0["isStarted"] as? Bool == true }
        try #require(opened["isStarted"] as? Bool == true, "the editor sent no open event: \(opened)")
        try await Task.sleep(for: .milliseconds(1000))
        _ = runQuietly(tmux.path, tmuxArguments + ["send-keys", "-t", "editor", "i"])
        _ = runQuietly(tmux.path, tmuxArguments + ["send-keys", "-t", "editor", "-l", Self.words.joined(separator: " ")])
        _ = runQuietly(tmux.path, tmuxArguments + ["send-keys", "-t", "editor", "Escape"])
        try await Task.sleep(for: .milliseconds(500))
        _ = runQuietly(tmux.path, tmuxArguments + ["send-keys", "-t", "editor", ":w", "Enter"])
        try await Task.sleep(for: .milliseconds(500))
        _ = runQuietly(tmux.path, tmuxArguments + ["send-keys", "-t", "editor", ":q", "Enter"])
        try await expectSession(of: file, scratch: scratch)
        #expect(try String(contentsOf: file, encoding: .utf8).contains(Self.words.joined(separator: " ")))
        // The editor quit (its exit hook did not hang): the tmux session is gone.
        var running = true
        for _ in 0..<50 where running {
            running = runQuietly(tmux.path, tmuxArguments + ["has-session", "-t", "editor"]) == 0
            if running { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(!running, "the editor did not quit")
    }

    /// Waits for the closed session and checks it: one span, stopped, the words counted, time spent.
    private func expectSession(of file: URL, scratch: Scratch) async throws {
        let expected = Double(Self.words.count)
        let object = try await poll(file, scratch: scratch) {
            $0["isStarted"] as? Bool == false
                && ($0["primaryItem"] as? [String: Any])?["quantity"] as? Double == expected
        }
        #expect((object["sessions"] as? [Any])?.count == 1, "\(object)")
        #expect(object["isStarted"] as? Bool == false, "\(object)")
        let primary = try #require(object["primaryItem"] as? [String: Any], "\(object)")
        #expect(primary["identifier"] as? String == "total_word_count")
        #expect(primary["quantity"] as? Double == expected, "\(object)")
        #expect((object["durationSeconds"] as? Double ?? 0) > 0, "\(object)")
        #expect(object["progressBasis"] as? String == "none", "no target: no progress, whatever was viewed: \(object)")
        #expect(object["progress"] as? Double == 0, "\(object)")
        try expectHistory(object, of: file, words: expected, scratch: scratch)
    }

    /// The session's close wrote a history row with its figures, and a snapshot that replays the
    /// saved file byte for byte.
    private func expectHistory(_ object: [String: Any], of file: URL, words: Double, scratch: Scratch) throws {
        let history = try #require(object["history"] as? [[String: Any]], "\(object)")
        let last = try #require(history.last, "no history row: \(object)")
        #expect(last["sessionEnd"] is String, "the row of the session's end: \(last)")
        #expect(last["words"] as? Double == words, "\(last)")
        let saved = try Data(contentsOf: file)
        #expect(last["snapshotBytes"] as? Double == Double(saved.count), "\(last)")
        let replayed = try run(
            try builtExecutable("clsfile"),
            [
                "replay", "--store", scratch.storeURL.path, "--at", ISO8601DateFormatter().string(from: Date().addingTimeInterval(1)),
                file.path
            ])
        #expect(replayed.status == 0, "\(replayed.errorOutput)")
        #expect(Data(replayed.output.utf8) == saved, "the replay of the last snapshot is the saved file")
    }

    /// Reads `clsfile show --json FILE` until `done` holds or 25 s pass; returns the last answer.
    private func poll(
        _ file: URL, scratch: Scratch,
        until done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let clsfile = try builtExecutable("clsfile")
        let deadline = Date().addingTimeInterval(25)
        var last: [String: Any] = [:]
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: scratch.storeURL.path) {
                let result = try run(
                    clsfile, ["show", "--json", file.path],
                    environment: ["CLSFILE_STORE": scratch.storeURL.path])
                if result.status == 0,
                    let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
                {
                    last = object
                    if done(object) { return object }
                }
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        return last
    }

    /// Runs a command for at most 30 s (then kills it), its output in files of the scratch folder.
    private func runBounded(
        _ executable: URL, _ arguments: [String], environment: [String: String],
        in scratch: Scratch
    ) -> ProcessResult {
        let result = TestSupport.runBounded(
            executable.path, arguments, environment: environment, timeout: 30,
            capturingIn: scratch.url)
        if result.timedOut { Issue.record("\(executable.lastPathComponent) did not end within 30 s") }
        return result
    }

}
