import Foundation
import Testing
import StoreTestSupport
import TestSupport

/// `clsfile hook` and `clsfile report`, run as built binaries.
struct HookCommandTests {
    private func show(_ file: URL, store: URL) throws -> [String: Any] {
        let result = try run(try builtExecutable("clsfile"), ["show", "--json", "--store", store.path, file.path])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// A `clsfile hook --stdio` on the store, started, with the pipes of its input and output.
    private func startStdioHook(store: URL) throws -> (process: Process, input: Pipe, output: Pipe) {
        let process = Process()
        process.executableURL = try builtExecutable("clsfile")
        process.arguments = ["hook", "--stdio", "--store", store.path]
        let input = Pipe(), output = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, FileHandle.nullDevice)
        try process.run()
        return (process, input, output)
    }

    @Test func aThousandHookCallsInParallelAreAllRecorded() async throws {
        let scratch = try Scratch()
        let total = 1000
        let file = try scratch.file("book.txt", String(repeating: "a line of the book\n", count: total))
        let clsfile = try builtExecutable("clsfile")
        let store = scratch.storeURL.path
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 1, failed = 0
            // 32 processes at a time, each viewing one line of its own.
            for _ in 0..<32 where next <= total {
                let line = next
                next += 1
                group.addTask {
                    try run(
                        clsfile,
                        [
                            "hook", "view", file.path, "--view", "\(line)-\(line)",
                            "--total-lines", "\(total)", "--reading", "--store", store
                        ]
                    ).status == 0 ? 0 : 1
                }
            }
            while let result = try await group.next() {
                failed += result
                if next <= total {
                    let line = next
                    next += 1
                    group.addTask {
                        try run(
                            clsfile,
                            [
                                "hook", "view", file.path, "--view", "\(line)-\(line)",
                                "--total-lines", "\(total)", "--reading", "--store", store
                            ]
                        ).status == 0 ? 0 : 1
                    }
                }
            }
            return failed
        }
        #expect(failures == 0)
        // Events spooled while the store was busy are recorded by the next call.
        #expect(try run(clsfile, ["hook", "close", file.path, "--store", store]).status == 0)
        let activity = try show(file, store: scratch.storeURL)
        #expect(activity["progress"] as? Double == 1.0, "every line's view must be recorded")
        #expect(activity["isStarted"] as? Bool == false)
    }

    /// `clsfile hook --stdio` reading `input` from a file, as one read can take it all.
    /// - Returns: Its answers, a line each; it must exit 0.
    private func stdio(_ input: String, in scratch: Scratch) throws -> [String] {
        try stdioRun(input, in: scratch).answers
    }

    /// `clsfile hook --stdio` reading `input` from a file: its answers and what it said on
    /// standard error; it must exit 0.
    private func stdioRun(_ input: String, in scratch: Scratch) throws -> (answers: [String], errorOutput: String) {
        let script = scratch.url.appendingPathComponent("input.jsonl")
        try Data(input.utf8).write(to: script)
        let result = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$0\" hook --stdio --store \"$1\" < \"$2\"",
                try builtExecutable("clsfile").path, scratch.storeURL.path, script.path
            ])
        #expect(result.status == 0, "\(result.errorOutput)")
        return (result.output.split(separator: "\n").map(String.init), result.errorOutput)
    }

    @Test func stdioAnswersEveryLine() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        let input = """
            {"event":"open","file":"\(file.path)","editor":"test"}
            {"event":"edit","file":"\(file.path)","line":1}
            not json
            {"event":"close","file":"\(file.path)"}
            {"event":"close","file":"\(scratch.url.path)/no-folder/missing.txt"}

            """
        let answers = try stdio(input, in: scratch)
        #expect(answers.count == 5)
        #expect(answers[0] == #"{"ok":true}"# && answers[1] == #"{"ok":true}"# && answers[3] == #"{"ok":true}"#)
        #expect(answers[2].contains(#""ok":false"#) && answers[2].contains("not an event line"))
        #expect(answers[4].contains(#""ok":false"#) && answers[4].contains("missing.txt"))
        let activity = try show(file, store: scratch.storeURL)
        #expect((activity["primaryItem"] as? [String: Any])?["quantity"] as? Double == 4)
        #expect(activity["isStarted"] as? Bool == false)
    }

    /// Lines a plugin wrote faster than they were recorded arrive together and are recorded
    /// together: each still gets its own answer, in order, and every event counts once.
    @Test func stdioLinesThatArriveTogetherAreEachAnsweredAndRecorded() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", String(repeating: "a line of the essay\n", count: 400))
        var lines = [#"{"event":"open","file":"\#(file.path)","editor":"test"}"#]
        lines += (1...400).map { #"{"event":"view","file":"\#(file.path)","view":[\#($0),\#($0)],"totalLines":400,"reading":true}"# }
        lines.insert(#"{"event":"edit"}"#, at: 200)
        lines.append(#"{"event":"close","file":"\#(file.path)","typed":12,"pasted":30,"largestPaste":30}"#)
        // A file that cannot be recorded, after the close: refused alone, and the close counted once.
        lines.append(#"{"event":"close","file":"\#(scratch.url.path)/no-folder/missing.txt","typed":5}"#)
        // The last line without its newline: the end of the input ends it.
        let answers = try stdio(lines.joined(separator: "\n"), in: scratch)
        #expect(answers.count == lines.count)
        let refused = [200, lines.count - 1]
        #expect(answers.enumerated().allSatisfy { refused.contains($0.offset) != ($0.element == #"{"ok":true}"#) }, "\(answers)")
        #expect(answers[200].contains(#""ok":false"#) && answers[lines.count - 1].contains("missing.txt"))
        let activity = try show(file, store: scratch.storeURL)
        #expect(activity["progress"] as? Double == 1.0, "every line's view must be recorded")
        #expect(activity["isStarted"] as? Bool == false)
        let items = try #require(activity["additionalItems"] as? [[String: Any]])
        let quantity = { (identifier: String) in items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double }
        #expect(quantity("typed_characters") == 12 && quantity("pasted_characters") == 30)
        #expect((activity["sessions"] as? [Any])?.count == 1)
    }

    /// Lines that arrived together while the store cannot be used at all are each answered with
    /// the store's failure, and wait in the spool together, said once on standard error.
    @Test func stdioLinesTheStoreCannotTakeWaitInTheSpool() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        try Data("not a database, just text that someone left here".utf8).write(to: scratch.storeURL)
        let (answers, errorOutput) = try stdioRun(
            #"{"event":"open","file":"\#(file.path)","editor":"test"}"# + "\n" + #"{"event":"edit","file":"\#(file.path)"}"# + "\n",
            in: scratch)
        #expect(answers.count == 2)
        for answer in answers {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            #expect(object["ok"] as? Bool == false, "\(answer)")
            #expect((object["error"] as? String)?.contains("\(scratch.storeURL.path) is not an OpenClassKit store") == true, "\(answer)")
        }
        #expect(
            errorOutput.contains("left untouched")
                && errorOutput.contains("(the 2 events wait in \(scratch.storeURL.path).spool until the store can be written)"),
            "\(errorOutput)")
        let spooled = try String(contentsOf: URL(fileURLWithPath: scratch.storeURL.path + ".spool"), encoding: .utf8)
        #expect(spooled.split(separator: "\n").count == 2 && spooled.contains("\"open\"") && spooled.contains("\"edit\""), "\(spooled)")
    }

    /// When neither the store nor its spool can take the events, each line read is still answered,
    /// saying the event was not recorded, before the hook stops with the spool's failure.
    @Test func stdioLinesNeitherTheStoreNorTheSpoolCanTakeAreAnsweredBeforeTheHookStops() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        try Data("not a database, just text that someone left here".utf8).write(to: scratch.storeURL)
        let spool = scratch.storeURL.path + ".spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false)
        let input = scratch.url.appendingPathComponent("input.jsonl")
        try Data((#"{"event":"open","file":"\#(file.path)"}"# + "\nnot json\n" + #"{"event":"edit","file":"\#(file.path)"}"# + "\n").utf8)
            .write(to: input)
        let result = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$0\" hook --stdio --store \"$1\" < \"$2\"", try builtExecutable("clsfile").path, scratch.storeURL.path,
                input.path
            ])
        #expect(result.status == 74, "\(result.errorOutput)")
        let answers = result.output.split(separator: "\n").map(String.init)
        #expect(answers.count == 3, "\(result.output)")
        for (index, answer) in answers.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            #expect(object["ok"] as? Bool == false, "\(answer)")
            let error = object["error"] as? String ?? ""
            #expect(index == 1 ? !error.contains("not recorded") : error.contains("not recorded") && error.contains(spool), "\(answer)")
        }
        #expect(result.errorOutput.contains(spool), "\(result.errorOutput)")
    }

    /// A line that arrives in pieces, apart in time, is read whole; blank lines are skipped.
    @Test func stdioReadsALineThatArrivesInPieces() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        let open = #"{"event":"open","file":"\#(file.path)","editor":"test"}"#
        let close = #"{"event":"close","file":"\#(file.path)"}"#
        let middle = open.index(open.startIndex, offsetBy: open.count / 2)
        let result = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                #"{ printf '%s' "$1"; sleep 0.3; printf '%s\n\n  \n%s' "$2" "$3"; sleep 0.3; printf '\n'; } | exec "$0" hook --stdio --store "$4""#,
                try builtExecutable("clsfile").path, String(open[..<middle]), String(open[middle...]), close,
                scratch.storeURL.path
            ])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == #"{"ok":true}"# + "\n" + #"{"ok":true}"# + "\n", "\(result.output)")
        let activity = try show(file, store: scratch.storeURL)
        #expect((activity["primaryItem"] as? [String: Any])?["quantity"] as? Double == 4)
        #expect(activity["isStarted"] as? Bool == false)
    }

    /// Events that waited in the spool while another process held the store are recorded once:
    /// their first try, applied in memory before the store said busy, is not counted again.
    @Test func stdioEventsSpooledWhileTheStoreIsBusyCountOnce() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "four words in here\n")
        let (process, input, output) = try startStdioHook(store: scratch.storeURL)
        var answers = Data()
        /// Sends a line and waits for its answer.
        func send(_ line: String) -> String {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            while !answers.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                answers += chunk
            }
            let end = answers.firstIndex(of: UInt8(ascii: "\n")) ?? answers.endIndex
            defer { answers = Data(answers[min(end + 1, answers.endIndex)...]) }
            return String(decoding: answers[..<end], as: UTF8.self)
        }
        let open = #"{"event":"open","file":"\#(file.path)","editor":"test"}"#
        #expect(send(open) == #"{"ok":true}"#)
        let holder = try WriteLockHolder(store: scratch.storeURL)
        #expect(send(#"{"event":"close","file":"\#(file.path)","typed":12,"pasted":3,"largestPaste":3}"#) == #"{"ok":true}"#)
        holder.release()
        #expect(send(open) == #"{"ok":true}"#)
        #expect(send(#"{"event":"close","file":"\#(file.path)"}"#) == #"{"ok":true}"#)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let activity = try show(file, store: scratch.storeURL)
        let items = try #require(activity["additionalItems"] as? [[String: Any]])
        let quantity = { (identifier: String) in items.first { $0["identifier"] as? String == identifier }?["quantity"] as? Double }
        #expect(quantity("typed_characters") == 12 && quantity("pasted_characters") == 3, "\(items)")
        #expect(activity["isStarted"] as? Bool == false)
    }

    /// A `hook --stdio` serves an editor for hours: its threads share glibc's main heap, and make
    /// none of the 64 MiB heaps (arenas) glibc gives threads by default, each keeping the memory
    /// freed in it (the soak's process held 7 MB more with them).
    @Test func theLongLivedHookMakesNoHeapForItsThreads() throws {
        #if os(Linux)
        let scratch = try Scratch()
        let file = try scratch.file("essay.md", "# An essay\n")
        let (process, input, output) = try startStdioHook(store: scratch.storeURL)
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // Enough events for the threads that answer and write to allocate: without the setting,
        // the process had three heaps of its threads by then.
        var answered = 0
        for index in 0..<200 {
            let event = ["open", "edit", "save", "close"][index % 4]
            if event == "edit" {
                let handle = try FileHandle(forWritingTo: file)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(" more words".utf8))
                try handle.close()
            }
            input.fileHandleForWriting.write(Data(#"{"event":"\#(event)","file":"\#(file.path)"}"#.utf8 + [0x0A]))
            while answered <= index {
                let chunk = output.fileHandleForReading.availableData
                try #require(!chunk.isEmpty, "hook --stdio stopped answering")
                answered += chunk.filter { $0 == 0x0A }.count
            }
        }
        // A thread's heap is a 64 MiB reservation at a 64 MiB boundary: the part in use, then the
        // rest without access, one mapping after the other.
        let maps = try String(contentsOfFile: "/proc/\(process.processIdentifier)/maps", encoding: .utf8)
        let regions = maps.split(separator: "\n").compactMap { line -> (start: UInt64, end: UInt64, anonymous: Bool)? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let bounds = fields.first?.split(separator: "-").compactMap { UInt64($0, radix: 16) } ?? []
            guard bounds.count == 2 else { return nil }
            return (bounds[0], bounds[1], fields.count == 5)
        }
        let heapSize: UInt64 = 64 << 20
        var heaps = 0
        for (index, region) in regions.enumerated() where region.anonymous && region.start % heapSize == 0 {
            var end = region.end
            if index + 1 < regions.count, regions[index + 1].start == end, regions[index + 1].anonymous { end = regions[index + 1].end }
            if end - region.start == heapSize { heaps += 1 }
        }
        #expect(heaps == 0, "hook --stdio made \(heaps) heaps for its threads:\n\(maps)")
        #endif
    }

    @Test func hookErrorsAreClear() throws {
        let scratch = try Scratch()
        let clsfile = try builtExecutable("clsfile")
        let missing = try run(clsfile, ["hook", "edit", scratch.url.path + "/no-folder/gone.txt", "--store", scratch.storeURL.path])
        #expect(missing.status == 66)
        #expect(missing.errorOutput.contains("gone.txt"))
        // A file not written yet, in a folder that exists, is waited for; closed unwritten, it is said.
        let unwritten = scratch.url.path + "/new.txt"
        let waiting = try run(clsfile, ["hook", "open", unwritten, "--store", scratch.storeURL.path])
        #expect(waiting.status == 0 && waiting.errorOutput.isEmpty, "\(waiting.errorOutput)")
        let abandoned = try run(clsfile, ["hook", "close", unwritten, "--store", scratch.storeURL.path])
        #expect(abandoned.status == 0)
        #expect(abandoned.errorOutput.contains("new.txt was closed without ever being written"), "\(abandoned.errorOutput)")
        let badTime = try run(
            clsfile,
            [
                "hook", "edit", try scratch.file("c.txt").path, "--input-at", "-5",
                "--store", scratch.storeURL.path
            ])
        #expect(badTime.status == 64)
        #expect(badTime.errorOutput.contains("--input-at"), "\(badTime.errorOutput)")
        let badView = try run(
            clsfile,
            [
                "hook", "view", try scratch.file("a.txt").path, "--view", "9-3",
                "--total-lines", "10", "--store", scratch.storeURL.path
            ])
        #expect(badView.status == 64)
        #expect(badView.errorOutput.contains("--view"))
        let badEvent = try run(clsfile, ["hook", "scroll", try scratch.file("b.txt").path])
        #expect(badEvent.status == 64)
        let twoBases = try run(
            clsfile,
            [
                "hook", "open", try scratch.file("d.txt").path, "--target-words", "50",
                "--reading", "--store", scratch.storeURL.path
            ])
        #expect(twoBases.status == 64)
        #expect(twoBases.errorOutput.contains("give one of them"), "\(twoBases.errorOutput)")
    }

    /// Plugins spell options either way and in any order; the direct reading of a plain call and
    /// ArgumentParser must agree on what they mean.
    @Test func hookOptionsWorkInAnyOrderAndSpelling() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "ten lines\n")
        let clsfile = try builtExecutable("clsfile")
        let store = scratch.storeURL.path
        let calls: [[String]] = [
            ["hook", "open", file.path, "--store", store],
            ["hook", "--store=\(store)", "view", "--view=1-2", file.path, "--total-lines", "10", "--reading"],
            ["hook", "--editor", "vim", "view", "--total-lines=10", "--view", "3-4", "--store", store, file.path],
            // A repeated option is left to ArgumentParser, which takes the last value.
            ["hook", "view", file.path, "--view", "9-9", "--view", "5-6", "--total-lines", "10", "--store", store]
        ]
        for arguments in calls {
            let result = try run(clsfile, arguments)
            #expect(result.status == 0, "\(arguments): \(result.errorOutput)")
        }
        let activity = try show(file, store: scratch.storeURL)
        #expect(abs((activity["progress"] as? Double ?? 0) - 0.6) < 1e-9)
        #expect(activity["isStarted"] as? Bool == true, "the views go on with the session the open started")

        let unknown = try run(clsfile, ["hook", "edit", file.path, "--bogus", "--store", store])
        #expect(unknown.status == 64)
        #expect(unknown.errorOutput.contains("Unknown option '--bogus'"))
        let help = try run(clsfile, ["hook", "--help"])
        #expect(help.status == 0)
        for option in [
            "--store", "--idle-timeout", "--stdio", "--line", "--view", "--total-lines", "--editor",
            "--input-at", "--opened-at", "--target-words", "--reading"
        ] {
            #expect(help.output.contains(option), "hook --help lacks \(option)")
        }
    }

    @Test func theReportStatesTheIdleRule() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "five words are in here\n")
        let clsfile = try builtExecutable("clsfile")
        for event in ["open", "edit", "close"] {
            #expect(try run(clsfile, ["hook", event, file.path, "--store", scratch.storeURL.path]).status == 0)
        }
        let table = try run(clsfile, ["report", "--store", scratch.storeURL.path, "--idle-timeout", "120"])
        #expect(table.status == 0)
        #expect(table.output.contains("gaps over 2 min without input are not counted"))
        let row = try #require(table.output.split(separator: "\n").dropFirst().first)
        #expect(row.hasSuffix(file.path))
        // ACTIVE, OPEN, WORDS, …: the third column is the five words.
        #expect(row.split(separator: " ").dropFirst(2).first == "5", "\(row)")
        let csv = try run(clsfile, ["report", "--csv", "--store", scratch.storeURL.path])
        #expect(csv.output.hasPrefix("file,active_seconds,open_seconds,words,progress,progress_basis,sessions,last_opened,context\n"))
        #expect(csv.output.contains("\(file.path),"))
        let json = try run(clsfile, ["report", "--json", "--since", "2000-01-01", "--store", scratch.storeURL.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect((object["files"] as? [Any])?.count == 1)
        let future = try run(clsfile, ["report", "--since", "2999-01-01", "--store", scratch.storeURL.path])
        #expect(future.output.contains("No activity"))
        let badDate = try run(clsfile, ["report", "--since", "yesterday"])
        #expect(badDate.status == 64)
    }

    @Test func textJSONAndCSVReportsAgreeToTheSecond() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "five words are in here\n")
        let clsfile = try builtExecutable("clsfile")
        let store = scratch.storeURL.path
        #expect(try run(clsfile, ["hook", "open", file.path, "--store", store]).status == 0)
        // A session of about 1.7 s of input, from an edit to a save: rounded, it would read 2 s
        // in one form and 1 s in another.
        #expect(try run(clsfile, ["hook", "edit", file.path, "--store", store]).status == 0)
        try await Task.sleep(for: .milliseconds(1700))
        #expect(try run(clsfile, ["hook", "save", file.path, "--store", store]).status == 0)
        #expect(try run(clsfile, ["hook", "close", file.path, "--store", store]).status == 0)
        let table = try run(clsfile, ["report", "--store", store]).output
        let row = try #require(table.split(separator: "\n").dropFirst().first)
        let csvRow = try #require(
            try run(clsfile, ["report", "--csv", "--store", store]).output
                .split(separator: "\n").dropFirst().first)
        let json = try run(clsfile, ["report", "--json", "--store", store]).output
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        let shown = try show(file, store: scratch.storeURL)
        let seconds = try #require(shown["durationSeconds"] as? Double)
        let whole = Int(seconds.rounded())
        #expect(seconds.rounded(.down) != seconds, "a session of whole seconds would prove nothing: \(seconds)")
        #expect(files.first?["activeSeconds"] as? Double == Double(whole), "\(files)")
        #expect(row.hasPrefix("\(whole)s "), "\(row)")
        #expect(csvRow.split(separator: ",")[1] == "\(whole)", "\(csvRow)")
        let openSeconds = try #require(files.first?["openSeconds"] as? Double)
        #expect(csvRow.split(separator: ",")[2] == "\(Int(openSeconds))", "\(csvRow)")
        #expect(row.split(separator: " ", omittingEmptySubsequences: true)[1] == "\(Int(openSeconds))s", "\(row)")
    }

    /// A file whose name is not UTF-8, as an editor plugin names it: its events are recorded
    /// (not held as a file never written), and `show` and `list` find it by its bytes.
    @Test(arguments: ["off", "on"])
    func aFileNameThatIsNotUTF8IsRecordedByTheHook(agent: String) throws {
        let scratch = try Scratch()
        let runtime = scratch.url.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path)
        // The name's bytes come from the shell's printf: `caf\351.txt` is Latin-1 for "café.txt".
        let script = """
            f="$(printf '%s/caf\\351.txt' "$1")"; printf 'three words here\\n' > "$f"
            "$0" hook open "$f" && "$0" hook edit "$f" && sleep 1.2 && printf 'and two more\\n' >> "$f" && "$0" hook save "$f" && "$0" hook close "$f" || exit $?
            "$0" show --json "$f"
            """
        let result = try run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script, try builtExecutable("clsfile").path, scratch.url.path],
            environment: [
                "CLSFILE_STORE": scratch.storeURL.path, "CLSFILE_HOOK_AGENT": agent, "XDG_RUNTIME_DIR": runtime.path,
                "HOME": scratch.url.path
            ])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("never being written"), "\(result.errorOutput)")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)")
        let words = (shown["primaryItem"] as? [String: Any])?["quantity"] as? Double
        #expect(words == 6, "\(shown)")
        #expect((shown["durationSeconds"] as? Double ?? 0) >= 1, "\(shown)")
        #expect((shown["path"] as? String)?.hasSuffix("/caf\\xE9.txt") == true, "\(shown)")
        let list = try run(try builtExecutable("clsfile"), ["list"], environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(list.output.contains("caf\\xE9.txt") && list.output.contains("6 word count"), "\(list.output)")
    }
}
