import Foundation
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile open` with a scripted stand-in editor, and with real vim in tmux.
@Suite(.serialized)
struct OpenCommandTests {
    private func show(_ file: URL, store: URL) throws -> [String: Any] {
        let result = try run(try builtExecutable("clsfile"), ["show", "--json", "--store", store.path, file.path])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// `clsfile open --no-pty --editor EDITOR FILE` with the scratch store.
    private func clsfileOpen(_ file: URL, editor: String, in scratch: Scratch) throws -> ProcessResult {
        try run(try builtExecutable("clsfile"), ["open", "--no-pty", "--editor", editor, "--store", scratch.storeURL.path, file.path])
    }

    private func item(_ identifier: String, in activity: [String: Any]) -> Double? {
        let items = activity["additionalItems"] as? [[String: Any]] ?? []
        return items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double
    }

    /// A SIGTERM sent the moment the editor process exists reaches the editor, and clsfile still
    /// records the session and exits with the editor's status instead of dying and orphaning it.
    @Test func aSigtermAsSoonAsTheEditorExistsIsPassedOn() throws {
        let scratch = try Scratch()
        let editor = try scriptedEditor(in: scratch, "while :; do sleep 0.05; done")
        let file = try scratch.file("essay.txt", "words here")
        let process = try startOpen(file, editor: editor, scratch: scratch)
        let pid = process.processIdentifier
        var child: Int32?
        // The first process whose parent is clsfile, found in /proc the moment it appears.
        let deadline = Date().addingTimeInterval(20)
        while child == nil, process.isRunning, Date() < deadline {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            child =
                entries.lazy.compactMap { Int32($0) }.filter { candidate in
                    guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                        let close = stat.lastIndex(of: ")")
                    else { return false }
                    return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first == "\(pid)"
                }.first
            if child == nil { usleep(1000) }
        }
        let editorPID = try #require(
            child, "the editor never started (clsfile exited \(process.isRunning ? "-" : "\(process.terminationStatus)"))")
        kill(pid, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "clsfile itself was killed by the signal")
        #expect(process.terminationStatus == 128 + SIGTERM, "the editor got the SIGTERM")
        #expect(kill(editorPID, 0) != 0, "the editor is not left running")
        #expect(try show(file, store: scratch.storeURL)["isStarted"] as? Bool == false)
    }

    /// `clsfile open FILE` with the editor, without a terminal, left running.
    private func startOpen(_ file: URL, editor: String, scratch: Scratch) throws -> Process {
        let process = Process()
        process.executableURL = try builtExecutable("clsfile")
        process.arguments = ["open", "--no-pty", "--editor", editor, "--store", scratch.storeURL.path, file.path]
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// A stand-in editor: a shell script that writes words to the file it is given, run by `sh`
    /// (executing a script written a moment ago fails with ETXTBSY while a parallel test forks
    /// with its write descriptor open).
    private func scriptedEditor(in scratch: Scratch, _ body: String) throws -> String {
        let url = scratch.url.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
        return "/bin/sh \(url.path)"
    }

    @Test func aScriptedEditorSessionIsRecorded() throws {
        let scratch = try Scratch()
        let editor = try scriptedEditor(
            in: scratch,
            """
            sleep 0.4
            printf 'The first words of the essay.\\n' >> "$1"
            sleep 0.4
            printf 'Two more.\\n' >> "$1"
            exit 7
            """)
        let file = scratch.url.appendingPathComponent("new-essay.txt")
        let started = Date()
        let result = try run(
            try builtExecutable("clsfile"),
            [
                "open", "--no-pty", "--editor", editor, "--target-words", "16",
                "--store", scratch.storeURL.path, file.path
            ])
        #expect(result.status == 7, "clsfile exits with the editor's code: \(result.errorOutput)")
        #expect(result.errorOutput.contains("new-essay.txt: active"))
        #expect(result.errorOutput.contains("8 words"))
        #expect(result.errorOutput.contains("gaps over 5 min without input are not counted"))

        let activity = try show(file, store: scratch.storeURL)
        #expect(activity["isStarted"] as? Bool == false)
        #expect((activity["sessions"] as? [Any])?.count == 1, "\(activity)")
        // From the first write (the editor's first input) to the last, 0.4 s apart: not from the
        // editor's start, nor to its exit.
        let duration = try #require(activity["durationSeconds"] as? Double)
        #expect(duration >= 0.3 && duration <= 0.75, "\(activity)")
        #expect(duration <= Date().timeIntervalSince(started))
        #expect((activity["primaryItem"] as? [String: Any])?["quantity"] as? Double == 8)
        #expect(activity["progress"] as? Double == 0.5)
        #expect(try #require(item("open_time", in: activity)) >= 0.7)
        #expect(item("largest_growth_between_pulses", in: activity) ?? 0 > 0)
    }

    @Test func aStoreLockedWhenTheEditorQuitsKeepsTheSessionInTheSpool() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "words here")
        // The editor leaves another process holding the store's write lock for 7 s, past the 5 s
        // that clsfile open waits, and quits once that process says it holds it (its `SELECT 1`
        // answers only after `BEGIN IMMEDIATE` took the lock).
        let locked = scratch.url.appendingPathComponent("locked")
        let editor = try scriptedEditor(
            in: scratch,
            """
            (printf 'BEGIN IMMEDIATE;\\nSELECT 1;\\n'; sleep 7) | '\(try Tool.sqlite3.require().path)' '\(scratch.storeURL.path)' >'\(locked.path)' 2>&1 &
            while [ ! -s '\(locked.path)' ]; do sleep 0.02; done
            """)
        let result = try run(
            try builtExecutable("clsfile"),
            ["open", "--no-pty", "--editor", editor, "--store", scratch.storeURL.path, file.path])
        #expect(result.status == 75, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("waits in \(scratch.storeURL.path).spool"), "\(result.errorOutput)")
        // Once the lock is gone, any clsfile call records the waiting close.
        let deadline = Date().addingTimeInterval(15)
        var activity: [String: Any] = [:]
        repeat {
            usleep(500_000)
            _ = try run(try builtExecutable("clsfile"), ["hook", "view", file.path, "--store", scratch.storeURL.path])
            activity = (try? show(file, store: scratch.storeURL)) ?? [:]
        } while activity["isStarted"] as? Bool != false && Date() < deadline
        #expect(activity["isStarted"] as? Bool == false, "\(activity)")
        #expect((activity["primaryItem"] as? [String: Any])?["quantity"] as? Double == 2)
    }

    /// The session is recorded before the editor starts: a store that cannot be written stops
    /// `open` with its path, and no editor is left running.
    @Test func aStoreThatCannotBeWrittenStartsNoEditor() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "words here")
        let clsfile = try builtExecutable("clsfile")
        for event in ["open", "close"] {
            #expect(try run(clsfile, ["hook", event, file.path, "--store", scratch.storeURL.path]).status == 0)
        }
        // Another process holds the write lock past the 5 s that clsfile waits.
        let holder = try WriteLockHolder(store: scratch.storeURL)
        defer { holder.release() }
        let marker = scratch.url.appendingPathComponent("editor-ran")
        let result = try run(clsfile, ["open", "--no-pty", "--editor", "touch \(marker.path)", "--store", scratch.storeURL.path, file.path])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains(scratch.storeURL.path), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "an editor started though the session could not be recorded")
    }

    /// A file whose name is not UTF-8 opens and records as any other.
    @Test func aFileNameThatIsNotUTF8Opens() throws {
        let scratch = try Scratch()
        let nameBytes = Array(scratch.url.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".txt".utf8)
        let descriptor = (nameBytes + [0]).withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        // The shell passes the name's bytes on; the editor writes two words into the file it is given.
        let editor = try scriptedEditor(in: scratch, "printf 'two words\\n' > \"$1\"")
        let script =
            "exec '\(try builtExecutable("clsfile").path)' open --no-pty --editor \"$0\" --store '\(scratch.storeURL.path)' \"$(printf '\(scratch.url.path)/caf\\351.txt')\""
        let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, editor])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("2 words"), "\(result.errorOutput)")
    }

    @Test func anEditorThatCannotStartLeavesNoOpenSpan() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "words")
        let result = try run(
            try builtExecutable("clsfile"),
            [
                "open", "--no-pty", "--editor", "/nonexistent/editor --flag",
                "--store", scratch.storeURL.path, file.path
            ])
        #expect(result.status == 69)
        #expect(result.errorOutput.contains("cannot start the editor '/nonexistent/editor --flag'"))
        let activity = try show(file, store: scratch.storeURL)
        #expect((activity["spans"] as? [Any])?.isEmpty == true, "\(activity)")
    }

    /// A file `open` made for an editor that could not start is removed again (empty), a file
    /// that was there stays; and `show --json` of it then has no date of change.
    @Test func anEditorThatCannotStartLeavesNoFileItMade() throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("new.txt")
        let result = try clsfileOpen(file, editor: "nosucheditor", in: scratch)
        #expect(result.status == 69, "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: file.path), "the empty file made for the editor is gone")
        let other = try scratch.file("kept.txt", "")
        #expect(try clsfileOpen(other, editor: "nosucheditor", in: scratch).status == 69)
        #expect(FileManager.default.fileExists(atPath: other.path), "a file that was there stays")
        let never = try scratch.file("never.txt", "three words here\n")
        let shown = try show(never, store: scratch.storeURL)
        #expect(shown["recorded"] as? Bool == false && shown["modified"] == nil, "\(shown)")
        let forgot = try run(try builtExecutable("clsfile"), ["forget", "--store", scratch.storeURL.path, never.path])
        #expect(forgot.status == 0 && forgot.output.contains("nothing is recorded for"), "\(forgot.output)")
        #expect(!forgot.output.contains("are kept"), "\(forgot.output)")
    }

    /// A file no detector reads (binary) has no progress figure: not measured, never "0%".
    @Test func aFileThatCannotBeMeasuredShowsNoProgressFigure() throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("data.bin")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 197 &+ 13) }).write(to: file)
        let result = try clsfileOpen(file, editor: "true", in: scratch)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("progress not measured") && !result.errorOutput.contains("0%"), "\(result.errorOutput)")
    }

    @Test func aMissingFolderIsAClearError() throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("no-such-folder/essay.txt")
        let result = try clsfileOpen(file, editor: "true", in: scratch)
        #expect(result.status == 66)
        #expect(result.errorOutput.contains("the folder \(scratch.url.path)/no-such-folder does not exist"))
    }

    @Test func sigtermReachesTheEditor() throws {
        let scratch = try Scratch()
        let marker = scratch.url.appendingPathComponent("got-term")
        let ready = scratch.url.appendingPathComponent("trap-set")
        let editor = try scriptedEditor(
            in: scratch,
            """
            trap 'echo term > "\(marker.path)"; exit 42' TERM
            : > "\(ready.path)"
            while :; do sleep 0.1; done
            """)
        let file = try scratch.file("essay.txt", "words here")
        let process = try startOpen(file, editor: editor, scratch: scratch)
        // The signal goes once the editor says its trap is set, not after a guessed pause.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: ready.path), process.isRunning, Date() < deadline { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: ready.path), "the editor never set its trap")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: marker.path))
        #expect(process.terminationStatus == 42)
        #expect(try show(file, store: scratch.storeURL)["isStarted"] as? Bool == false)
    }
}

/// Real vim, driven through tmux, wrapped by `clsfile open`.
@Suite(.serialized)
struct OpenCommandInTerminalTests {
    @Test func typingInVimIsRecordedAndTheTerminalIsRestored() throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("vim-essay.txt")
        let after = scratch.url.appendingPathComponent("stty-after")
        let tmux = try Tmux(
            command: """
                '\(try builtExecutable("clsfile").path)' open --editor 'vim -N -u NONE -i NONE' \
                --store '\(scratch.storeURL.path)' '\(file.path)'; echo "exit=$?" > '\(after.path)'; \
                stty -a >> '\(after.path)'; sleep 60
                """)
        defer { tmux.kill() }
        try tmux.waitFor("~", timeout: 10)
        tmux.type("i")
        tmux.type("Words typed in vim one key at a time", delay: 0.03)
        tmux.keys("Escape")
        tmux.type(":wq")
        tmux.keys("Enter")
        try tmux.waitForFile(after, timeout: 15)

        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(written == "Words typed in vim one key at a time\n")
        let terminal = try String(contentsOf: after, encoding: .utf8)
        #expect(terminal.hasPrefix("exit=0"))
        #expect(terminal.contains(" icanon") && terminal.contains(" echo"), "the terminal is back in cooked mode")
        let result = try run(
            try builtExecutable("clsfile"),
            ["show", "--json", "--store", scratch.storeURL.path, file.path])
        let activity = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect((activity["primaryItem"] as? [String: Any])?["quantity"] as? Double == 9)
        #expect((activity["sessions"] as? [Any])?.count == 1, "\(activity)")
        #expect(activity["isStarted"] as? Bool == false)
        let items = activity["additionalItems"] as? [[String: Any]] ?? []
        // No plugin counted what reached the text: the relay's count is of keys (i, Esc, :wq
        // included), and says so; it never claims typed characters.
        #expect(!items.contains { $0["identifier"] as? String == "typed_characters" }, "\(items)")
        let keys = try #require(items.first { $0["identifier"] as? String == "keys_pressed" }?["quantity"] as? Double)
        let pasted = try #require(items.first { $0["identifier"] as? String == "pasted_characters" }?["quantity"] as? Double)
        // Every key arrives; on a loaded machine a few reads may bundle keys into a burst.
        #expect(keys + pasted >= 38)
        #expect(keys > pasted, "keys sent one at a time count mostly as keys")
    }

    @Test func aPasteInVimShowsInTheHistoryAndEachSessionReplaysByteForByte() throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("history.txt")
        let clsfile = try builtExecutable("clsfile")
        let pasted = "A sentence pasted from somewhere else, much longer than anyone types between two reads."
        var saved: [Data] = []
        for session in 0..<2 {
            let done = scratch.url.appendingPathComponent("done-\(session)")
            let tmux = try Tmux(
                command: """
                    '\(clsfile.path)' open --editor 'vim -N -u NONE -i NONE' --store '\(scratch.storeURL.path)' \
                    '\(file.path)'; echo done > '\(done.path)'; sleep 60
                    """)
            defer { tmux.kill() }
            try tmux.waitFor("~", timeout: 10)
            tmux.type(session == 0 ? "i" : "A")
            tmux.type(session == 0 ? "Typed first. " : "Typed again. ", delay: 0.05)
            if session == 1 {
                tmux.paste(pasted)
                Thread.sleep(forTimeInterval: 0.5)
            }
            tmux.keys("Escape")
            tmux.type(":wq")
            tmux.keys("Enter")
            try tmux.waitForFile(done, timeout: 15)
            saved.append(try Data(contentsOf: file))
        }
        #expect(String(decoding: saved[1], as: UTF8.self) == "Typed first. Typed again. \(pasted)\n")

        let shown = try run(clsfile, ["show", "--json", "--store", scratch.storeURL.path, file.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
        let rows = try #require(object["history"] as? [[String: Any]], "\(object)")
        // The first session's start, then a row at each session's end.
        #expect(rows.first?["isSessionStart"] as? Bool == true, "\(rows)")
        let history = rows.filter { $0["sessionEnd"] is String }
        try #require(history.count == 2, "a row per session: \(rows)")
        #expect(
            history[0]["typedCharacters"] == nil && history[0]["pastedCharacters"] as? Double == 0,
            "without a plugin the relay claims no typed characters: \(history[0])")
        let pastedNow = (history[1]["pastedCharacters"] as? Double ?? 0) - (history[0]["pastedCharacters"] as? Double ?? 0)
        #expect(pastedNow >= Double(pasted.count), "the paste is a paste: \(history[1])")
        #expect(history[1]["largestPaste"] as? Double ?? 0 >= Double(pasted.count), "\(history[1])")
        #expect(history[1]["words"] as? Double == 18, "\(history[1])")

        // Each session's snapshot is the file as that session saved it.
        for (row, expected) in zip(history, saved) {
            let date = try #require(row["date"] as? String)
            let version = try run(clsfile, ["replay", "--store", scratch.storeURL.path, "--at", date, file.path])
            #expect(version.status == 0, "\(version.errorOutput)")
            #expect(Data(version.output.utf8) == expected, "the version of \(date)")
        }
        let replay = try run(clsfile, ["replay", "--store", scratch.storeURL.path, file.path])
        #expect(replay.status == 0, "\(replay.errorOutput)")
        // The empty file the first session began from, then each session's end.
        #expect(replay.output.contains("Step 1 of 3") && replay.output.contains("Step 3 of 3"), "\(replay.output)")
        #expect(replay.output.contains("the first session began from an empty file"), "\(replay.output)")
        #expect(replay.output.contains("{+Typed first. +}"), "\(replay.output)")
        #expect(replay.output.contains("Typed first. {+Typed again. \(pasted)+}"), "\(replay.output)")
        let steps = replay.output.components(separatedBy: "── Step")
        #expect(
            steps.count == 4 && !steps[2].contains("pasted:") && steps[3].contains("pasted:"),
            "the last step is marked pasted: \(replay.output)")
        #expect(replay.output.contains("The file is now as the last snapshot holds it"), "\(replay.output)")

        let tooEarly = try run(clsfile, ["replay", "--store", scratch.storeURL.path, "--at", "2001-01-01", file.path])
        #expect(tooEarly.status == 66 && tooEarly.errorOutput.contains("no snapshot of"), "\(tooEarly.errorOutput)")
        let badDate = try run(clsfile, ["replay", "--store", scratch.storeURL.path, "--at", "yesterday", file.path])
        #expect(badDate.status == 64 && badDate.errorOutput.contains("--at takes a day"), "\(badDate.errorOutput)")
        let unrecorded = try scratch.file("never.txt")
        let nothing = try run(clsfile, ["replay", "--store", scratch.storeURL.path, unrecorded.path])
        #expect(nothing.status == 66 && nothing.errorOutput.contains("nothing was recorded"), "\(nothing.errorOutput)")
    }

    @Test func killingClsfileEndsTheSpanAtTheLastPulseAndRestoresTheTerminal() throws {
        let scratch = try Scratch()
        let file = scratch.url.appendingPathComponent("killed.txt")
        let pidFile = scratch.url.appendingPathComponent("pid")
        let after = scratch.url.appendingPathComponent("stty-after")
        let tmux = try Tmux(
            command: """
                '\(try builtExecutable("clsfile").path)' open --editor 'vim -N -u NONE -i NONE' \
                --store '\(scratch.storeURL.path)' '\(file.path)' </dev/tty & echo $! > '\(pidFile.path)'; wait; \
                sleep 1; stty -a > '\(after.path)'; exec sh -i
                """)
        defer { tmux.kill() }
        try tmux.waitFor("~", timeout: 10)
        tmux.type("i")
        tmux.type("some words", delay: 0.03)
        tmux.keys("Escape")
        tmux.type(":w")
        tmux.keys("Enter")
        try tmux.waitFor("written", timeout: 5)
        let lastTyping = Date()
        // Past the flush interval (a second) so the pulse is in the store, then idle a little.
        Thread.sleep(forTimeInterval: 3)
        let pid = try #require(
            Int32(
                try String(contentsOf: pidFile, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, SIGKILL)
        let killed = Date()
        try tmux.waitForFile(after, timeout: 15)
        let terminal = try String(contentsOf: after, encoding: .utf8)
        #expect(terminal.contains(" icanon") && terminal.contains(" echo"), "the guardian restores the terminal")
        // The screen modes vim turned on are off again: the shell is usable without `reset`.
        #expect(tmux.modes() == "alternate 0, keypad 0, cursor keys 0", "\(tmux.screen())")
        tmux.type("echo typed-$((6*7))")
        tmux.keys("Enter")
        try tmux.waitFor("typed-42", timeout: 5)
        #expect(tmux.screen().contains("echo typed-$((6*7))"), "typing at the prompt echoes")

        let result = try run(
            try builtExecutable("clsfile"),
            ["show", "--json", "--store", scratch.storeURL.path, file.path])
        let activity = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(activity["isStarted"] as? Bool == false, "the dead session's span is ended")
        // The span of the input (the one before it, of no length, is the open's).
        let span = try #require((activity["spans"] as? [[String: Any]])?.last)
        #expect(span["end"] as? String == span["lastPulse"] as? String)
        // The span ends at the last keystroke, not at the kill 7 s later (a second of slack for
        // the keys tmux had yet to deliver).
        let end = try #require((span["end"] as? String).flatMap(parseDate))
        #expect(end <= lastTyping.addingTimeInterval(1), "idle time before the kill is not counted: \(span)")
        #expect(killed.timeIntervalSince(end) > 2, "\(span)")
        #expect(try #require(activity["durationSeconds"] as? Double) > 0.3, "the typing before the kill counts")
        // The next command measured the file as vim wrote it: the killed session keeps its words.
        #expect((activity["primaryItem"] as? [String: Any])?["quantity"] as? Double == 2, "\(activity)")
        // The ended session has its history row, ending where the span ends.
        let history = try #require(activity["history"] as? [[String: Any]], "\(activity)").filter { $0["sessionEnd"] is String }
        #expect(history.count == 1 && history.first?["sessionEnd"] as? String == span["end"] as? String, "\(history)")
    }
}

/// A tmux session for one test.
struct Tmux {
    let name = "clsfile-test-\(UUID().uuidString.prefix(8))"

    /// Starts a session running `command`, a shell command line that runs vim.
    init(command: String) throws {
        try Tool.require(.tmux, .vim)
        // The tmux server keeps inherited pipes open, so it gets no pipes to inherit.
        guard tmux(["new-session", "-d", "-s", name, "-x", "100", "-y", "30", command]) == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "tmux could not start a session"])
        }
    }

    @discardableResult
    private func tmux(_ arguments: [String]) -> Int32 {
        runQuietly(Tool.tmux.path, arguments)
    }

    func keys(_ keys: String...) {
        tmux(["send-keys", "-t", name] + keys)
    }

    /// Pastes text as a terminal does: in bracketed-paste markers when the program asked for them.
    func paste(_ text: String) {
        tmux(["set-buffer", "-b", name, "--", text])
        tmux(["paste-buffer", "-p", "-d", "-b", name, "-t", name])
    }

    func type(_ text: String, delay: TimeInterval = 0) {
        guard delay > 0 else {
            tmux(["send-keys", "-t", name, "-l", text])
            return
        }
        for character in text {
            tmux(["send-keys", "-t", name, "-l", String(character)])
            Thread.sleep(forTimeInterval: delay)
        }
    }

    /// Whether the pane is on the alternate screen, in application keypad mode and in
    /// application cursor-keys mode, as tmux tracks them.
    func modes() -> String {
        let flags =
            (try? run(
                URL(fileURLWithPath: Tool.tmux.path),
                ["display-message", "-p", "-t", name, "#{alternate_on} #{keypad_flag} #{keypad_cursor_flag}"]))?
            .output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? []
        guard flags.count == 3 else { return "unknown: \(flags)" }
        return "alternate \(flags[0]), keypad \(flags[1]), cursor keys \(flags[2])"
    }

    func screen() -> String {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).screen")
        defer { try? FileManager.default.removeItem(at: capture) }
        guard tmux(["capture-pane", "-t", name, "-b", name]) == 0,
            tmux(["save-buffer", "-b", name, capture.path]) == 0
        else { return "" }
        return (try? String(contentsOf: capture, encoding: .utf8)) ?? ""
    }

    func waitFor(_ text: String, timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !screen().contains(text) {
            guard Date() < deadline else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "screen never showed \(text):\n\(screen())"])
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    func waitForFile(_ url: URL, timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: url.path) || ((try? Data(contentsOf: url))?.isEmpty ?? true) {
            guard Date() < deadline else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(url.path) never appeared; screen:\n\(screen())"])
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.3)
    }

    func kill() {
        tmux(["kill-session", "-t", name])
    }
}
