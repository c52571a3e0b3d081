import Foundation
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile open` with a GUI editor that writes the file only when saved: the desktop's input
/// times the session (LibreOffice Writer on a private Xvfb with openbox, typed into with
/// xdotool), and without a desktop the session says that file changes alone timed it.
@Suite(.serialized)
struct DesktopTimingTests {
    private func show(_ file: URL, store: URL, json: Bool = true) throws -> String {
        try run(try builtExecutable("clsfile"), ["show"] + (json ? ["--json"] : []) + ["--store", store.path, file.path]).output
    }

    private func activity(_ file: URL, store: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(show(file, store: store).utf8)) as? [String: Any])
    }

    private func item(_ identifier: String, in activity: [String: Any]) -> Double? {
        let items = activity["additionalItems"] as? [[String: Any]] ?? []
        return items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double
    }

    /// This process's environment without a desktop.
    private var environmentWithoutDesktop: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key != "DISPLAY" && $0.key != "WAYLAND_DISPLAY" }
    }

    @Test func withoutADesktopTheSessionSaysFileChangesAloneTimedIt() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "The first words.\n")
        let editor = scratch.url.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\nsleep 0.3\nprintf 'More words.\\n' >> \"$1\"\nsleep 0.3\n".utf8).write(to: editor)
        let process = Process()
        process.executableURL = try builtExecutable("clsfile")
        process.arguments = ["open", "--no-pty", "--editor", "/bin/sh \(editor.path)", "--store", scratch.storeURL.path, file.path]
        process.environment = environmentWithoutDesktop
        let errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let endLine = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(endLine)")
        #expect(endLine.contains("essay.txt: active"), "\(endLine)")
        #expect(endLine.contains("time from file changes only"), "\(endLine)")
        #expect(item("timing_source", in: try activity(file, store: scratch.storeURL)) == 3)
        let text = try show(file, store: scratch.storeURL, json: false)
        #expect(text.contains("last session: time from file changes only"), "\(text)")
        #expect(text.contains("Timing Source: file changes only"), "\(text)")
    }

    /// Typing for about 20 s in Writer, with a 15 s pause in the middle and an idle timeout of
    /// 8 s, saved only at the end: the typing counts, the pause does not; also when `clsfile open`
    /// runs in a terminal (`script` gives it one), whose relay sees none of Writer's typing.
    @Test(arguments: [false, true])
    func typingInWriterBetweenSavesIsTimedByTheDesktop(fromTerminal: Bool) throws {
        try Tool.require(.xvfb, .openbox, .xdotool, .xprop, .soffice)
        let scratch = try Scratch()
        let desktop = try VirtualDesktop(logsIn: scratch.url)
        // A profile of its own (another Writer of the same profile would take the file and
        // return at once), seeded so that no Tip of the Day or first-start bar takes the keys.
        let home = scratch.url.appendingPathComponent("home")
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The default profile of this HOME, made as the LibreOffice extension's tests make theirs.
        try #require(
            runQuietly(
                package.appendingPathComponent("Samples/editors/libreoffice/test/seed-profile.sh").path,
                [home.appendingPathComponent(".config/libreoffice/4").path]) == 0)
        let fixtures = package.appendingPathComponent("Tests/ContentDetectorsTests/Fixtures")
        let file = scratch.url.appendingPathComponent("essay.odt")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("english.odt"), to: file)
        let modifiedBefore = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date

        let opened = Date()
        let clsfile = try builtExecutable("clsfile").path
        let arguments = [
            "open", "--idle-timeout", "8", "--editor", "soffice --writer --norestore",
            "--store", scratch.storeURL.path, file.path
        ]
        let environment = [
            "DISPLAY": desktop.display, "HOME": home.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path
        ]
        // From a terminal, clsfile's end line goes to the terminal, which `script` writes out.
        let open =
            fromTerminal
            ? try SpawnedProcess(
                "/usr/bin/script", ["-qec", ([clsfile] + arguments).map { "'\($0)'" }.joined(separator: " "), "/dev/null"],
                environment: environment, in: scratch.url, name: "open")
            : try SpawnedProcess(clsfile, arguments + ["--no-pty"], environment: environment, in: scratch.url, name: "open")
        func endLine() -> String { fromTerminal ? open.output : open.errorOutput }
        let window = try #require(
            desktop.window(named: "essay.odt - LibreOffice Writer", within: 90),
            "Writer showed no window: \(endLine())")
        #expect(desktop.xdotool("windowactivate", "--sync", window).status == 0)
        let ready = Date()

        /// Types words for about `seconds`, one short burst of four after another; returns when it
        /// started and ended.
        var bursts = 0
        func type(for seconds: TimeInterval) -> (start: Date, end: Date) {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                desktop.xdotool("type", "--delay", "90", "these words are typed ")
                bursts += 1
            }
            return (start, Date())
        }
        let first = type(for: 10)
        sleep(15)
        let second = type(for: 10)
        desktop.xdotool("key", "ctrl+s")
        // Saved in place (ODF keeps no "Keep format?" question): the file changes once, now.
        let savedBy = Date().addingTimeInterval(20)
        while Date() < savedBy, (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) == modifiedBefore
        {
            usleep(200_000)
        }
        sleep(1)
        desktop.xdotool("key", "ctrl+q")
        let status = open.waitBlocking(timeout: 60)
        let closed = Date()
        #expect(status == 0, "clsfile open: \(endLine())")

        let recorded = try activity(file, store: scratch.storeURL)
        let active = try #require(recorded["durationSeconds"] as? Double)
        let openTime = try #require(item("open_time", in: recorded))
        let spans = (recorded["spans"] as? [[String: Any]] ?? []).compactMap { span -> (Date, Date)? in
            guard let start = (span["start"] as? String).flatMap(Self.date), let end = (span["end"] as? String).flatMap(Self.date) else {
                return nil
            }
            return (start, end)
        }
        // What a person would count: from the window's readiness (or the open, when Writer was
        // ready within the idle timeout) to the first burst's end, and from the second burst to
        // the quit; the 15 s pause is longer than the idle timeout, so it is not work.
        let typing = first.end.timeIntervalSince(first.start) + second.end.timeIntervalSince(second.start)
        let truth =
            first.end.timeIntervalSince(ready.timeIntervalSince(opened) <= 8 ? opened : first.start)
            + closed.timeIntervalSince(second.start)
        print(
            """
            desktop timing in Writer: typing \(Self.seconds(typing)) (bursts \(Self.seconds(first.end.timeIntervalSince(first.start))) \
            and \(Self.seconds(second.end.timeIntervalSince(second.start))), pause \(Self.seconds(second.start.timeIntervalSince(first.end)))), \
            Writer ready after \(Self.seconds(ready.timeIntervalSince(opened))), truth \(Self.seconds(truth)); recorded active \
            \(Self.seconds(active)), open \(Self.seconds(openTime)), spans \(spans.map { Self.seconds($0.1.timeIntervalSince($0.0)) })
            \(endLine())
            """)
        #expect(active >= 15, "the typing counts: \(active) s recorded for \(typing) s of typing")
        #expect(active <= openTime - 13, "the 15 s pause does not count: \(active) s active of \(openTime) s open")
        // The desktop is read about once a second, and its input is dated to the second.
        #expect(active >= truth - 4 && active <= truth + 2, "recorded \(active) s, a person counts \(truth) s")
        let gaps = zip(spans, spans.dropFirst()).map { $1.0.timeIntervalSince($0.1) }
        #expect(gaps.contains { $0 >= 13 }, "a span ends before the pause and another starts after it: \(spans)")
        #expect(item("timing_source", in: recorded) == 2, "timed by the desktop")
        #expect(!endLine().contains("file changes only"), "\(endLine())")
        let words = (recorded["primaryItem"] as? [String: Any])?["quantity"] as? Double ?? 0
        // The fixture's 73 words and four a burst (a key or two may be lost to the window's focus).
        #expect(
            words >= Double(73 + 4 * bursts - 2) && words <= Double(73 + 4 * bursts),
            "the typed words were saved: \(words) words after \(bursts) bursts of four")
    }

    private static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.1f s", value)
    }

    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
