import Foundation
import StoreTestSupport
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The hook agent, run as editors run hooks: the first `clsfile hook` call of a store records its
/// event and starts the agent, the calls after it hand their events over. Each test gives the
/// agent a runtime folder of its own (`XDG_RUNTIME_DIR`), so that tests never share one.
struct HookAgentTests {
    /// A store, a runtime folder and the environment that points the calls at them.
    private struct Setting {
        let scratch: Scratch
        let clsfile: URL
        let environment: [String: String]
        var store: String { scratch.storeURL.path }

        init(agent: Bool = true) throws {
            scratch = try Scratch()
            clsfile = try builtExecutable("clsfile")
            let runtime = scratch.url.appendingPathComponent("runtime")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            environment = ["XDG_RUNTIME_DIR": runtime.path, "CLSFILE_HOOK_AGENT": agent ? "on" : "off"]
        }

        /// Runs `clsfile hook EVENT FILE …` on this store.
        func hook(_ event: String, _ file: String, _ options: [String] = []) throws -> ProcessResult {
            try run(clsfile, ["hook", event, file, "--editor", "vim", "--store", store] + options, environment: environment)
        }

        /// `clsfile show --json` of a file.
        func show(_ file: URL) throws -> [String: Any] {
            let result = try run(clsfile, ["show", "--json", "--store", store, file.path], environment: environment)
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        /// The agents serving this store, by process id.
        func agents() -> [pid_t] {
            HookAgentTests.processes { arguments in
                arguments.starts(with: ["hook", "--agent"]) && arguments.contains(store)
            }
        }

        /// The one agent of this store, once it listens; fails after ten seconds without one.
        func agent() async throws -> pid_t {
            for _ in 0..<200 {
                if let pid = agents().first, FileManager.default.fileExists(atPath: socketFolder.path),
                    try FileManager.default.contentsOfDirectory(atPath: socketFolder.path).contains(where: { $0.hasSuffix(".socket") })
                {
                    return pid
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("no hook agent started for \(store)")
            throw CancellationError()
        }

        var socketFolder: URL { scratch.url.appendingPathComponent("runtime/clsfile") }
    }

    /// The processes whose arguments after the program name satisfy `matches`.
    private static func processes(where matches: ([String]) -> Bool) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            // The agent is clsfile-main (the front, clsfile, runs it for a call no agent takes).
            guard arguments.count > 1, arguments[0].hasSuffix("clsfile") || arguments[0].hasSuffix("clsfile-main") else { return nil }
            return matches(Array(arguments.dropFirst())) ? pid : nil
        }
    }

    /// A value of `show --json` as JSON with its keys sorted, to compare.
    private static func canonical(_ value: Any?) throws -> String {
        guard let value else { return "absent" }
        return String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
    }

    /// The bytes a process has written so far (`wchar` of /proc/PID/io).
    private static func bytesWritten(by pid: pid_t) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("wchar:") })
        return try #require(Int(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    @Test func theCallsAfterTheFirstAreRecordedByTheAgent() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "one two three four\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let agent = try await setting.agent()
        let before = try Self.bytesWritten(by: agent)
        let edit = try setting.hook("edit", file.path)
        #expect(edit.status == 0 && edit.errorOutput.isEmpty, "\(edit.errorOutput)")
        #expect(try Self.bytesWritten(by: agent) > before, "the agent wrote the edit to the store")
        let written = try Self.bytesWritten(by: agent)
        try Data("one two three four five six\n".utf8).write(to: file)
        #expect(try setting.hook("save", file.path).status == 0)
        #expect(try Self.bytesWritten(by: agent) > written)
        let activity = try setting.show(file)
        #expect(activity["isStarted"] as? Bool == true)
        let items = try #require(activity["primaryItem"] as? [String: Any])
        #expect(items["quantity"] as? Double == 6, "the save through the agent measured the file")
        #expect(setting.agents() == [agent], "one agent serves the store")
    }

    /// Every call, refused or recorded, exits and writes the same through the agent as without it.
    @Test func theAgentAnswersAsTheCallWouldItself() async throws {
        let alone = try Setting(agent: false), served = try Setting()
        func calls(in setting: Setting) throws -> [[String]] {
            let folder = setting.scratch.url.path
            let essay = try setting.scratch.file("essay.txt", "a first line\n").path
            return [
                ["open", essay, "--input-at", "1800000000"],
                ["edit", essay, "--input-at", "1800000010", "--line", "1"],
                ["view", essay, "--view", "1-1", "--total-lines", "1"],
                ["save", essay],
                ["save", folder],
                ["edit", folder + "/no-folder/gone.txt"],
                ["open", folder + "/new.txt"],
                ["close", folder + "/new.txt"],
                ["edit", essay, "--input-at", "-5"],
                ["edit", essay, "--line", "abc"],
                ["close", essay, "--typed", "20", "--pasted", "5", "--largest-paste", "5"]
            ]
        }
        // The first call starts the agent; the others are served once it listens.
        let essay = alone.scratch.url.appendingPathComponent("essay.txt")
        _ = try served.scratch.file("warm.txt")
        #expect(try served.hook("edit", served.scratch.url.appendingPathComponent("warm.txt").path).status == 0)
        let agent = try await served.agent()
        let written = try Self.bytesWritten(by: agent)
        for (left, right) in zip(try calls(in: alone), try calls(in: served)) {
            let expected = try alone.hook(left[0], left[1], Array(left.dropFirst(2)))
            let answered = try served.hook(right[0], right[1], Array(right.dropFirst(2)))
            #expect(answered.status == expected.status, "\(right)")
            #expect(
                answered.errorOutput.replacingOccurrences(of: served.scratch.url.path, with: "FOLDER")
                    == expected.errorOutput.replacingOccurrences(of: alone.scratch.url.path, with: "FOLDER"), "\(right)")
        }
        #expect(alone.agents().isEmpty, "CLSFILE_HOOK_AGENT=off starts none")
        #expect(served.agents() == [agent], "no call fell back and started another")
        #expect(try Self.bytesWritten(by: agent) > written, "the agent recorded the calls")
        let left = try alone.show(essay), right = try served.show(served.scratch.url.appendingPathComponent("essay.txt"))
        for key in ["isStarted", "progress", "progressBasis", "primaryItem"] {
            #expect(try Self.canonical(left[key]) == Self.canonical(right[key]), "\(key)")
        }
        // Every item but the open time, which is as long as the calls took.
        func items(_ activity: [String: Any]) -> [[String: Any]] {
            (activity["additionalItems"] as? [[String: Any]] ?? []).filter { $0["identifier"] as? String != "open_time" }
        }
        #expect(try Self.canonical(items(left)) == Self.canonical(items(right)), "typed, pasted and the measures agree")
        #expect(items(right).contains { $0["identifier"] as? String == "typed_characters" })
        #expect((left["sessions"] as? [Any])?.count == (right["sessions"] as? [Any])?.count)
    }

    @Test func aCallsRelativeNamesAreReadInItsOwnFolder() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("notes.txt", "some notes here\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let agent = try await setting.agent()
        let written = try Self.bytesWritten(by: agent)
        // From the scratch folder, with the file and the store named relative to it.
        var environment = setting.environment
        environment["PATH"] = "/usr/bin:/bin"
        let result = runBounded(
            "/bin/sh", ["-c", "cd '\(setting.scratch.url.path)' && '\(setting.clsfile.path)' hook save notes.txt --store store.sqlite"],
            environment: environment)
        #expect(result.status == 0, "\(result.errorOutput)")
        let activity = try setting.show(file)
        let item = try #require(activity["primaryItem"] as? [String: Any])
        #expect(item["quantity"] as? Double == 3)
        #expect(try Self.bytesWritten(by: agent) > written, "the call's agent recorded it")
    }

    @Test func aKilledAgentIsReplacedAndNoEventIsLost() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "words and more words\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let first = try await setting.agent()
        #expect(kill(first, SIGKILL) == 0)
        while setting.agents().contains(first) { try await Task.sleep(for: .milliseconds(20)) }
        // Its socket is left behind: the next call records its event itself and starts another.
        try Data("words and more words and then some\n".utf8).write(to: file)
        let save = try setting.hook("save", file.path)
        #expect(save.status == 0 && save.errorOutput.isEmpty, "\(save.errorOutput)")
        let second = try await setting.agent()
        #expect(second != first)
        let item = try #require(try setting.show(file)["primaryItem"] as? [String: Any])
        #expect(item["quantity"] as? Double == 7)
        #expect(try setting.hook("close", file.path).status == 0)
        #expect(try setting.show(file)["isStarted"] as? Bool == false)
    }

    @Test func theAgentEndsWhenItsStoreIsRemoved() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "a b c\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let agent = try await setting.agent()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: setting.store + suffix) }
        // A call at once is not recorded in the removed store: it makes the store anew.
        #expect(try setting.hook("edit", file.path).status == 0)
        #expect(FileManager.default.fileExists(atPath: setting.store))
        #expect(try setting.show(file)["isStarted"] as? Bool == true)
        for _ in 0..<100 where setting.agents().contains(agent) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!setting.agents().contains(agent), "the agent of the removed store ended")
    }

    /// An update replaces the program: the agent of the old one ends, and the calls after it start
    /// the new one's. So does an agent whose socket was removed (a runtime folder emptied).
    @Test func theAgentEndsWhenItsProgramIsReplacedOrItsSocketRemoved() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "a b c\n")
        let folder = setting.scratch.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let installed = folder.appendingPathComponent("clsfile")
        let installedMain = folder.appendingPathComponent("clsfile-main")
        try FileManager.default.copyItem(at: setting.clsfile, to: installed)
        try FileManager.default.copyItem(at: try builtExecutable("clsfile-main"), to: installedMain)
        let open = try run(
            installed, ["hook", "open", file.path, "--editor", "vim", "--store", setting.store], environment: setting.environment)
        #expect(open.status == 0, "\(open.errorOutput)")
        let old = try await setting.agent()
        // The agent is clsfile-main, which the front ran for the first call.
        #expect(try String(contentsOfFile: "/proc/\(old)/cmdline", encoding: .utf8).hasPrefix(installedMain.path))
        // The update: a new clsfile-main in the old one's place.
        try FileManager.default.removeItem(at: installedMain)
        try FileManager.default.copyItem(at: try builtExecutable("clsfile-main"), to: installedMain)
        for _ in 0..<100 where setting.agents().contains(old) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!setting.agents().contains(old), "the agent of the replaced program ended")
        let edit = try run(
            installed, ["hook", "edit", file.path, "--editor", "vim", "--store", setting.store], environment: setting.environment)
        #expect(edit.status == 0 && edit.errorOutput.isEmpty, "\(edit.errorOutput)")
        let new = try await setting.agent()
        #expect(new != old)

        let socket = try #require(
            try FileManager.default.contentsOfDirectory(atPath: setting.socketFolder.path).first { $0.hasSuffix(".socket") })
        try FileManager.default.removeItem(at: setting.socketFolder.appendingPathComponent(socket))
        for _ in 0..<100 where setting.agents().contains(new) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!setting.agents().contains(new), "the agent whose socket was removed ended")
        #expect(try setting.hook("close", file.path).status == 0)
        #expect(try setting.show(file)["isStarted"] as? Bool == false, "the close after it was recorded")
    }

    /// A call the agent took and never answered (the agent was killed while recording) says so,
    /// names the file, and exits 74: it does not record the event again.
    @Test func aCallTakenAndNeverAnsweredSaysSo() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "a b c\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let agent = try await setting.agent()
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: setting.socketFolder.path).first { $0.hasSuffix(".socket") })
        let path = setting.socketFolder.appendingPathComponent(name).path
        #expect(kill(agent, SIGKILL) == 0)
        while setting.agents().contains(agent) { try await Task.sleep(for: .milliseconds(20)) }
        // A stand-in at the agent's socket that takes the call and ends without answering.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        let call = Task.detached { try setting.hook("edit", file.path) }
        let connection = accept(listener, nil, nil)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(connection, &buffer, buffer.count) > 0 {}
        #expect(write(connection, "+", 1) == 1)
        close(connection)
        let result = try await call.value
        #expect(result.status == 74)
        #expect(result.errorOutput.contains("edit event of \(file.path)"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("may not be recorded"), "\(result.errorOutput)")
        #expect(setting.agents().isEmpty, "a call the agent took starts no other")
    }

    /// A call the agent has not taken five seconds after it was made is recorded by the call; the
    /// agent, free again, does not record it too.
    @Test func aCallTheAgentDidNotTakeInTimeIsRecordedOnce() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "one two three\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let agent = try await setting.agent()
        #expect(kill(agent, SIGSTOP) == 0)
        let started = ContinuousClock.now
        let close = try setting.hook("close", file.path, ["--typed", "7", "--pasted", "0", "--largest-paste", "0"])
        #expect(close.status == 0, "\(close.errorOutput)")
        #expect(started.duration(to: .now) >= .seconds(4), "the call waited for the agent to take it")
        #expect(kill(agent, SIGCONT) == 0)
        try await Task.sleep(for: .milliseconds(500))
        #expect(setting.agents() == [agent], "the agent goes on")
        let activity = try setting.show(file)
        let items = activity["additionalItems"] as? [[String: Any]] ?? []
        #expect(items.first { $0["identifier"] as? String == "typed_characters" }?["quantity"] as? Double == 7, "\(items)")
        #expect((activity["sessions"] as? [Any])?.count == 1)
    }

    /// The agent ends, within a second or two, the session of an editor killed before its close,
    /// as the next hook process would when it opened the store.
    @Test func theAgentEndsTheSessionOfAKilledEditor() async throws {
        let sqlite3 = try Tool.sqlite3.require()
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "one two three\n")
        #expect(try setting.hook("open", try setting.scratch.file("warm.txt").path).status == 0)
        _ = try await setting.agent()
        // An "editor" (perl, not a shell) that runs the open hook and stays.
        let marker = setting.scratch.url.appendingPathComponent("opened").path
        var environment = setting.environment
        environment["MARK"] = marker
        let editor = try SpawnedProcess(
            "/usr/bin/perl",
            [
                "-e", #"system(@ARGV) == 0 or die; open(my $f, ">", $ENV{MARK}); close $f; sleep 60"#, "--",
                setting.clsfile.path, "hook", "open", file.path, "--editor", "vim", "--store", setting.store
            ], environment: environment, in: nil, name: "editor")
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: marker) { try await Task.sleep(for: .milliseconds(50)) }
        // The editor run is named by boot, process id and start time.
        let running = [setting.store, "SELECT count(*) FROM time_span WHERE ended_at IS NULL AND editor_run LIKE '%/\(editor.pid)/%'"]
        func count() -> String {
            runBounded(sqlite3.path, running, capturingIn: setting.scratch.url).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(count() == "1", "the editor's session runs")
        editor.signal(SIGKILL)
        _ = await editor.wait(timeout: 5)
        var left = "1"
        for _ in 0..<60 where left != "0" {
            try await Task.sleep(for: .milliseconds(100))
            left = count()
        }
        #expect(left == "0", "the agent ended the killed editor's session")
    }

    /// A setting that changes what is recorded is never served by an agent started without it.
    @Test func aCallWithOtherSettingsHasAnAgentOfItsOwn() async throws {
        let setting = try Setting()
        let file = try setting.scratch.file("essay.txt", "private words\n")
        #expect(try setting.hook("open", file.path).status == 0)
        let first = try await setting.agent()
        var environment = setting.environment
        environment["CLSFILE_SNAPSHOTS"] = "off"
        let arguments = ["hook", "edit", file.path, "--editor", "vim", "--store", setting.store]
        #expect(try run(setting.clsfile, arguments, environment: environment).status == 0)
        for _ in 0..<200 where setting.agents().count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(setting.agents().count == 2, "the call without snapshots started an agent of its own")
        #expect(setting.agents().contains(first))
    }

    /// A runtime folder others may enter is not used: the calls record their events themselves.
    @Test func aFolderOthersMayEnterIsNotUsed() async throws {
        let setting = try Setting()
        try FileManager.default.createDirectory(at: setting.socketFolder, withIntermediateDirectories: false)
        #expect(chmod(setting.socketFolder.path, 0o777) == 0)
        let file = try setting.scratch.file("essay.txt", "a b\n")
        for event in ["open", "edit", "save"] {
            #expect(try setting.hook(event, file.path).status == 0)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(setting.agents().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setting.socketFolder.path).isEmpty)
        #expect(try setting.show(file)["isStarted"] as? Bool == true)
    }

    @Test func manyCallsAtOnceAreAllRecorded() async throws {
        let setting = try Setting()
        let total = 200
        let file = try setting.scratch.file("book.txt", String(repeating: "a line of the book\n", count: total))
        #expect(try setting.hook("open", file.path, ["--reading"]).status == 0)
        _ = try await setting.agent()
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for line in 1...total {
                group.addTask {
                    try setting.hook("view", file.path, ["--view", "\(line)-\(line)", "--total-lines", "\(total)", "--reading"]).status == 0
                        ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(failures == 0)
        #expect(try setting.show(file)["progress"] as? Double == 1.0, "every line's view was recorded")
        #expect(setting.agents().count == 1)
    }
}
