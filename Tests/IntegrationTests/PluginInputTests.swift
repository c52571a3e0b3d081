import Foundation
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The characters the editor plugins count as typed and as pasted, in the real editors in tmux
/// (VS Code through the stand-in of its API): words typed one at a time, a bracketed paste from
/// the terminal, and the editor's own put or yank of a register. Most tests run the plugins with a
/// stand-in clsfile that logs its arguments, so the figures they send are checked exactly; under
/// `clsfile open` they write them to `$CLSFILE_SESSION_INPUT` instead. The last two check that the
/// real clsfile records them, from a close and under `clsfile open`.
@Suite(.serialized)
struct PluginInputTests {
    typealias Editor = EditorScenarioTests.Editor

    private static let words = ["rivers", "carry", "water", "from", "the", "hills"]
    /// What the words are once typed, a space before each but the first.
    private static let typed = words.joined(separator: " ").unicodeScalars.count
    /// A bracketed paste of two lines, one character of them two bytes in UTF-8.
    private static let pasted = " pasted café\nsecond line"
    private static let lastLine = "second line"

    /// The figures after the bracketed paste (pasted: text from outside the document) and the
    /// puts of the document's own text (moved, never pasted): Vim and Neovim yank the last line
    /// and put it (`yy p`; an undo and a redo of the put count for nothing), then insert it with
    /// CTRL-R 0 (each the line and its newline); Emacs kills it and yanks it twice (the line alone).
    private static func afterPuts(_ editor: Editor) -> Figures {
        let line = lastLine.unicodeScalars.count
        return Figures(
            typed: typed, pasted: pasted.unicodeScalars.count, largestPaste: pasted.unicodeScalars.count,
            moved: editor == .emacs ? 2 * line : 2 * (line + 1))
    }

    /// Edits and saves carry the figures since those sent before, the close the rest: over the
    /// calls of the open they add up to what was typed and pasted, and the close always has them.
    @Test(arguments: Editor.allCases)
    func typedAndPastedCharactersAddUpOverTheCallsOfTheOpen(_ editor: Editor) async throws {
        let (scratch, file, log, session) = try await editorLogging(editor)
        defer { withExtendedLifetime(scratch) { session.kill() } }
        try await typeAndPaste(in: session, editor)
        try await putTheLastLine(in: session, editor)
        session.keys(editor.writeAndQuit)
        let close = try await call("close", in: log)
        #expect(figures(close) != nil, "\(close)")
        let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(calls.filter { figures($0) != nil }.count > 1, "the figures went with the edits as the typing went on: \(calls)")
        #expect(try sentFigures(in: log) == Self.afterPuts(editor), "\(calls)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix(Self.words.joined(separator: " ") + Self.pasted), "\(text)")
    }

    /// Moving and copying the document's own text with the editor's commands is moved, never
    /// pasted (the issue's moves): Vim and Neovim `dd p` (the line and its newline), `x p` (a
    /// character), `dw P` (a word and its space); Emacs `C-k C-y` (the line), a copy with `M-w`
    /// then `C-y` (the line again), `M-d C-y` (a word).
    @Test(arguments: Editor.allCases)
    func movingOrCopyingOwnTextIsMovedNotPasted(_ editor: Editor) async throws {
        // The scratch folder, which the editor and its log are in, lives as long as the test.
        let (scratch, _, log, session) = try await editorLogging(editor)
        defer { withExtendedLifetime(scratch) { session.kill() } }
        try await Task.sleep(for: .milliseconds(500))
        session.keys(editor.insert)
        _ = try await session.typeSlowly(["rivers", "carry", "water"], pause: 0.3)
        let moved: Int
        if editor == .emacs {
            for keys in [["C-a", "C-k", "C-y"], ["C-a", "C-Space", "C-e", "M-w", "C-e", "C-y"], ["C-a", "M-d", "C-y"]] {
                session.keys(keys)
                try await Task.sleep(for: .milliseconds(500))
            }
            moved = 18 + 18 + 6
        } else {
            session.keys(["Escape"])
            try await Task.sleep(for: .seconds(1))
            for keys in [["dd"], ["p"], ["0", "x"], ["p"], ["0", "dw"], ["P"]] {
                session.keys(keys)
                try await Task.sleep(for: .milliseconds(500))
            }
            moved = 19 + 1 + 7
        }
        session.keys(editor.writeAndQuit)
        _ = try await call("close", in: log)
        let calls = try String(contentsOf: log, encoding: .utf8)
        #expect(try sentFigures(in: log) == Figures(typed: 18, pasted: 0, largestPaste: 0, moved: moved), "\(calls)")
    }

    /// An editor killed (`kill -9`: no close) keeps what its last events carried: the figures of
    /// the input before the edit sent a pause after it. (The hook agent ends the session, at its
    /// last input, once it sees the editor gone.)
    @Test(arguments: Editor.allCases)
    func theFiguresOfAnEditorKilledBeforeItsCloseAreKept(_ editor: Editor) async throws {
        try Tool.require(editor.tool, .tmux)
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let session = try EditorInTmux(try editor.command([file]), scratch: scratch)
        defer { session.kill() }
        try await session.waitForOpen(of: file)
        try await typeAndPaste(in: session, editor)
        try await putTheLastLine(in: session, editor)
        // The trailing edit goes a pause (3 s) after the input stops.
        try await Task.sleep(for: .seconds(5))
        try session.killEditor(editor.rawValue)
        var activity: [String: Any] = [:]
        for _ in 0..<40 {
            activity = try await session.show(file)
            if recorded(in: activity) != nil { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(recorded(in: activity) == Self.afterPuts(editor), "\(activity)")
    }

    @Test(arguments: Editor.allCases)
    func theFiguresOfTheFileOfClsfileOpenAreWrittenToItsInputFile(_ editor: Editor) async throws {
        try Tool.require(editor.tool, .tmux)
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let log = scratch.url.appendingPathComponent("calls.log")
        let input = scratch.url.appendingPathComponent("input.json")
        let environment = [
            "env", "CLSFILE_SESSION_FILE=\(file.resolvingSymlinksInPath().path)",
            "CLSFILE_SESSION_INPUT=\(input.path)"
        ]
        let session = try EditorInTmux(
            environment + (try command(editor, [file], logging: log, in: scratch)),
            scratch: scratch)
        defer { session.kill() }
        _ = try await call("view", in: log)
        try await typeAndPaste(in: session, editor)
        // Written while the editor runs, at most 2 s after the input.
        try await Task.sleep(for: .seconds(3))
        let running = Figures(
            typed: Self.typed, pasted: Self.pasted.unicodeScalars.count,
            largestPaste: Self.pasted.unicodeScalars.count)
        #expect(try figures(in: input) == running)
        try await putTheLastLine(in: session, editor)
        session.keys(editor.writeAndQuit)
        for _ in 0..<100 where session.tmux(["has-session", "-t", "editor"]) == 0 {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try figures(in: input) == Self.afterPuts(editor))
        let events = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ")[1] }
        #expect(Set(events) == ["view"], "clsfile open times the file, the plugin sends its views only: \(events)")
    }

    @Test func vscodeExtensionCountsKeysAndClipboardPastesOnly() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let log = scratch.url.appendingPathComponent("calls.log")
        // A paste, a completion (a longer insertion that is not the clipboard's: neither), a
        // paste of two lines (CRLF on the clipboard), then an undo and a redo of it (neither).
        let result = try runEvents(
            file, running: try standIn(logging: log, in: scratch), in: scratch,
            ["--paste", "PASTED TEXT", "--insert", "completion", "--paste", "two\r\nlines", "--undo"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let close = try await call("close", in: log)
        #expect(figures(close) != nil, "\(close)")
        #expect(try sentFigures(in: log) == Figures(typed: Self.typed, pasted: 11 + 9, largestPaste: 11))
    }

    /// A copy of the document's own words pasted again, and a word cut and pasted elsewhere, are
    /// the writer's own text moved, beside a paste from outside.
    @Test func vscodeExtensionCountsOwnTextMovedApartFromPastes() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let log = scratch.url.appendingPathComponent("calls.log")
        let result = try runEvents(
            file, running: try standIn(logging: log, in: scratch), in: scratch,
            ["--paste", "PASTED TEXT", "--copy", "carry water", "--move", "rivers"])
        #expect(result.status == 0, "\(result.errorOutput)")
        _ = try await call("close", in: log)
        #expect(try sentFigures(in: log) == Figures(typed: Self.typed, pasted: 11, largestPaste: 11, moved: 11 + 6))
    }

    @Test func vscodeExtensionWritesTheFiguresOfTheFileOfClsfileOpen() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let log = scratch.url.appendingPathComponent("calls.log")
        let input = scratch.url.appendingPathComponent("input.json")
        let result = try runEvents(
            file, running: try standIn(logging: log, in: scratch), in: scratch, ["--paste", "PASTED TEXT"],
            environment: [
                "CLSFILE_SESSION_FILE": file.resolvingSymlinksInPath().path,
                "CLSFILE_SESSION_INPUT": input.path
            ])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try figures(in: input) == Figures(typed: Self.typed, pasted: 11, largestPaste: 11))
        let events = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ")[1] }
        #expect(!events.contains("close"), "\(events)")
    }

    /// The figures a plugin's close carries are what clsfile records; under `clsfile open`, the
    /// plugin's count of the session file, not the relay's (which sees each word tmux sends in one
    /// write as a paste).
    @Test(arguments: Editor.allCases, [false, true])
    func clsfileRecordsThePluginsFigures(_ editor: Editor, underClsfileOpen: Bool) async throws {
        try Tool.require(editor.tool, .tmux)
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let command =
            underClsfileOpen
            ? [
                try builtExecutable("clsfile").path, "open", "--editor", try editor.command([]).map(shellQuoted).joined(separator: " "),
                file.path
            ]
            : try editor.command([file])
        let session = try EditorInTmux(command, scratch: scratch)
        defer { session.kill() }
        try await session.waitForOpen(of: file)
        try await typeAndPaste(in: session, editor)
        try await putTheLastLine(in: session, editor)
        session.keys(editor.writeAndQuit)
        let activity = try await session.waitForClose(of: file)
        #expect(recorded(in: activity) == Self.afterPuts(editor), "\(activity)")
    }

    /// What the VS Code extension sends is what clsfile records; an extension host that dies
    /// after the save (`crashing`) keeps the figures that went with the edits and the save.
    @Test(arguments: [false, true])
    func clsfileRecordsTheFiguresOfTheVSCodeExtension(crashing: Bool) async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let result = try runEvents(
            file, running: try builtExecutable("clsfile"), in: scratch, ["--paste", "PASTED TEXT"] + (crashing ? ["--crash"] : []),
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        // deactivate() waits for the close to be recorded; a crash, for the calls already made.
        let shown = try run(
            try builtExecutable("clsfile"), ["show", "--json", file.path],
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        let activity = try #require(
            try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any],
            "\(shown.errorOutput)")
        #expect(recorded(in: activity) == Figures(typed: Self.typed, pasted: 11, largestPaste: 11), "\(activity)")
    }

    // MARK: - Helpers

    struct Figures: Equatable, CustomStringConvertible {
        var typed: Int, pasted: Int, largestPaste: Int
        /// Characters of the document's own text pasted again.
        var moved = 0
        var description: String { "typed \(typed), pasted \(pasted), largest paste \(largestPaste), moved \(moved)" }

        static let none = Figures(typed: 0, pasted: 0, largestPaste: 0)

        /// The figures of two calls together, as clsfile adds them.
        static func + (left: Figures, right: Figures) -> Figures {
            Figures(
                typed: left.typed + right.typed, pasted: left.pasted + right.pasted,
                largestPaste: max(left.largestPaste, right.largestPaste), moved: left.moved + right.moved)
        }
    }

    /// The editor on a new, empty essay.txt, its plugin running a stand-in clsfile that logs each
    /// call (see ``command(_:_:logging:in:)``), once its open is logged.
    private func editorLogging(_ editor: Editor) async throws -> (scratch: Scratch, file: URL, log: URL, session: EditorInTmux) {
        try Tool.require(editor.tool, .tmux)
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "")
        let log = scratch.url.appendingPathComponent("calls.log")
        let session = try EditorInTmux(try command(editor, [file], logging: log, in: scratch), scratch: scratch)
        do {
            _ = try await call("open", in: log)
        } catch {
            session.kill()
            throw error
        }
        return (scratch, file, log, session)
    }

    /// The editor on files, with the plugin running a stand-in clsfile that appends each call's
    /// arguments, space-separated, as a line of `log`.
    private func command(_ editor: Editor, _ files: [URL], logging log: URL, in scratch: Scratch) throws -> [String] {
        let standIn = try self.standIn(logging: log, in: scratch)
        let quoted = editor == .emacs ? lisp(standIn.path) : "'\(standIn.path)'"
        return try editor.command(files, settings: ["command": quoted])
    }

    private func standIn(logging log: URL, in scratch: Scratch) throws -> URL {
        let script = scratch.url.appendingPathComponent("clsfile-stand-in")
        try Data("#!/bin/sh\nprintf '%s\\n' \"$*\" >> \(shellQuoted(log.path))\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script
    }

    /// Types the words one at a time in insert mode, then pastes `pasted` as the terminal does
    /// (bracketed, its line break kept).
    private func typeAndPaste(in session: EditorInTmux, _ editor: Editor) async throws {
        try await Task.sleep(for: .milliseconds(500))
        session.keys(editor.insert)
        _ = try await session.typeSlowly(Self.words, pause: 0.3)
        session.tmux(["set-buffer", Self.pasted])
        session.tmux(["paste-buffer", "-p", "-r", "-t", "editor"])
        try await Task.sleep(for: .milliseconds(500))
    }

    /// Puts the last line again with the editor's own commands (see `afterPuts`).
    private func putTheLastLine(in session: EditorInTmux, _ editor: Editor) async throws {
        if editor == .emacs {
            session.keys(["C-a", "C-k", "C-y", "C-y"])
        } else {
            session.keys(["Escape"])
            // Vim takes an Escape followed at once by a key for the start of a key code.
            try await Task.sleep(for: .seconds(1))
            session.keys(["yy", "p", "u", "C-r", "A", "C-r", "0", "Escape"])
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// Waits (up to 25 s) for the first call of `event` in the log and returns its line.
    private func call(_ event: String, in log: URL) async throws -> String {
        for _ in 0..<100 {
            let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n") ?? []
            if let line = lines.first(where: { $0.hasPrefix("hook \(event) ") }) { return String(line) }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw CLSTestError("no \(event) call in \(log.path): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// The figures of all the calls in the log together, as clsfile adds them; only edits, saves
    /// and closes may carry them.
    private func sentFigures(in log: URL) throws -> Figures {
        let calls = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let carrying = calls.filter { figures($0) != nil }
        #expect(
            carrying.allSatisfy { ["hook edit ", "hook save ", "hook close "].contains(where: $0.hasPrefix) },
            "only edits, saves and closes carry figures: \(calls)")
        return carrying.compactMap(figures).reduce(Figures.none, +)
    }

    /// The figures of a call's arguments; nil when one is missing.
    private func figures(_ call: String) -> Figures? {
        let words = call.split(separator: " ").map(String.init)
        func value(_ option: String) -> Int? {
            words.firstIndex(of: option).flatMap { $0 + 1 < words.count ? Int(words[$0 + 1]) : nil }
        }
        guard let typed = value("--typed"), let pasted = value("--pasted"), let largest = value("--largest-paste"),
            let moved = value("--moved")
        else {
            return nil
        }
        return Figures(typed: typed, pasted: pasted, largestPaste: largest, moved: moved)
    }

    /// The figures `clsfile show --json` has for the file; nil when one is missing.
    private func recorded(in activity: [String: Any]) -> Figures? {
        let items = activity["additionalItems"] as? [[String: Any]] ?? []
        func quantity(_ identifier: String) -> Int? {
            (items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double).map { Int($0) }
        }
        guard let typed = quantity("typed_characters"), let pasted = quantity("pasted_characters"),
            let largest = quantity("largest_paste")
        else { return nil }
        return Figures(typed: typed, pasted: pasted, largestPaste: largest, moved: quantity("moved_characters") ?? 0)
    }

    /// The figures of a `$CLSFILE_SESSION_INPUT` file.
    private func figures(in input: URL) throws -> Figures? {
        guard let data = try? Data(contentsOf: input) else { return nil }
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        guard let typed = object["typed"], let pasted = object["pasted"], let largest = object["largestPaste"],
            let moved = object["moved"]
        else {
            return nil
        }
        return Figures(typed: typed, pasted: pasted, largestPaste: largest, moved: moved)
    }

    /// Runs the VS Code stand-in on the words with the options, the extension running `clsfile`.
    private func runEvents(
        _ file: URL, running clsfile: URL, in scratch: Scratch, _ options: [String],
        environment: [String: String] = [:]
    ) throws -> ProcessResult {
        let result = TestSupport.runBounded(
            try Tool.node.require().path,
            [
                EditorPluginTests.editors.appendingPathComponent("vscode/test/run-events.js").path, file.path,
                clsfile.path
            ] + options + ["--"] + Self.words,
            environment: environment, timeout: 30, capturingIn: scratch.url)
        if result.timedOut { Issue.record("run-events.js did not end within 30 s") }
        return result
    }
}
