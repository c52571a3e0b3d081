import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// Runs the built `clsfile` binary, the way a person or a script does.
struct CommandLineTests {
    private func clsfile(_ arguments: [String], store: URL) throws -> ProcessResult {
        try run(try builtExecutable("clsfile"), arguments, environment: ["CLSFILE_STORE": store.path])
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func showPrintsWhatTheLibraryRecorded() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three\n")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.start()
        activity.stop()
        activity.progress = 0.8
        let words = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        words.quantity = 558
        activity.primaryActivityItem = words
        activity.addAdditionalActivityItem(CLSScoreItem(identifier: "grade", title: "Readability Grade", score: 7, maxScore: 18))
        activity.addAdditionalActivityItem(CLSBinaryItem(identifier: "done", title: "Done", type: .yesNo))
        try await store.save()

        let text = try clsfile(["show", file.path], store: scratch.storeURL)
        #expect(text.status == 0, "\(text.errorOutput)")
        #expect(text.output.contains("File:       \(file.path)"))
        #expect(text.output.contains("Progress:   80%"))
        #expect(text.output.contains("Primary:    Word Count: 558"))
        #expect(text.output.contains("Additional: Readability Grade: 7 / 18"))
        #expect(text.output.contains("            Done: no"))
        #expect(text.output.contains("in 1 session"))

        let result = try clsfile(["show", "--json", file.path], store: scratch.storeURL)
        let object = try json(result.output)
        #expect(object["progress"] as? Double == 0.8)
        #expect(object["recorded"] as? Bool == true)
        let primary = try #require(object["primaryItem"] as? [String: Any])
        #expect(primary["quantity"] as? Double == 558)
        #expect(primary["kind"] as? String == "quantity")
        #expect((object["additionalItems"] as? [Any])?.count == 2)
        #expect((object["spans"] as? [Any])?.count == 1)
    }

    @Test func theStoreOptionWinsOverTheEnvironment() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let other = scratch.url.appendingPathComponent("other.sqlite")
        let store = CLSDataStore(storeURL: other)
        try await store.fetchActivity(for: file).progress = 0.5
        try await store.save()
        let result = try clsfile(["show", "--store", other.path, "--json", file.path], store: scratch.storeURL)
        #expect(try json(result.output)["progress"] as? Double == 0.5)
        let fromEnvironment = try clsfile(["show", "--json", file.path], store: scratch.storeURL)
        #expect(try json(fromEnvironment.output)["recorded"] as? Bool == false)
    }

    @Test func listShowsEveryFileMostRecentFirst() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        for name in ["a.txt", "b.txt", "c.txt"] {
            try await store.fetchActivity(for: try scratch.file(name)).progress = 0.25
            try await store.save()
            try await Task.sleep(for: .milliseconds(20))
        }
        let table = try clsfile(["list"], store: scratch.storeURL)
        #expect(table.status == 0)
        let lines = table.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("TIME") == true)
        #expect(lines.count == 4)
        #expect(lines[1].hasSuffix("c.txt") && lines[3].hasSuffix("a.txt"))
        let listed = try clsfile(["list", "--json"], store: scratch.storeURL)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(array.count == 3)
    }

    @Test func anEmptyStoreListsNothing() throws {
        let scratch = try Scratch()
        let result = try clsfile(["list"], store: scratch.storeURL)
        #expect(result.status == 0)
        #expect(result.output == "No activity recorded yet.\n")
    }

    @Test func aMissingFileExitsWith66AndNamesIt() throws {
        let scratch = try Scratch()
        let missing = scratch.url.appendingPathComponent("gone.txt").path
        let result = try clsfile(["show", missing], store: scratch.storeURL)
        #expect(result.status == 66)
        #expect(
            result.errorOutput.hasPrefix("clsfile: \(missing) does not exist and nothing was recorded at that path"),
            "a missing path is not advice to create it: \(result.errorOutput)")
    }

    @Test func anUnusableStoreExitsWith74AndNamesIt() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        try Data("not a database, just text that someone left here".utf8).write(to: scratch.storeURL)
        let result = try clsfile(["show", file.path], store: scratch.storeURL)
        #expect(result.status == 74)
        #expect(result.errorOutput.contains(scratch.storeURL.path))
        #expect(result.errorOutput.contains("left untouched"))
        // A plugin's event is not lost: it waits in the spool, and the message says where.
        let hook = try clsfile(["hook", "edit", file.path], store: scratch.storeURL)
        #expect(hook.status == 74)
        #expect(
            hook.errorOutput.contains("the event waits in \(scratch.storeURL.path).spool until the store can be written"),
            "\(hook.errorOutput)")
        let spooled = try String(contentsOf: URL(fileURLWithPath: scratch.storeURL.path + ".spool"), encoding: .utf8)
        #expect(spooled.split(separator: "\n").count == 1 && spooled.contains("\"edit\""), "\(spooled)")
    }

    /// `--verbose`, after the command or before it, adds what failed underneath (SQLite's own
    /// error) on a second line; without it the one line is all.
    @Test func verboseShowsWhatFailedUnderneath() throws {
        let scratch = try Scratch()
        try Data("not a database, just text that someone left here".utf8).write(to: scratch.storeURL)
        let plain = try clsfile(["list"], store: scratch.storeURL)
        #expect(plain.status == 74)
        #expect(plain.errorOutput.split(separator: "\n").count == 1 && plain.errorOutput.contains("left untouched"), "\(plain.errorOutput)")
        #expect(!plain.errorOutput.contains("underlying error") && !plain.errorOutput.contains("SQLite error"))
        for arguments in [["list", "--verbose"], ["--verbose", "list"]] {
            let verbose = try clsfile(arguments, store: scratch.storeURL)
            #expect(verbose.status == 74)
            let lines = verbose.errorOutput.split(separator: "\n")
            #expect(lines.count == 2 && verbose.errorOutput.hasPrefix(plain.errorOutput), "\(verbose.errorOutput)")
            #expect(
                lines.last?.hasPrefix("clsfile: underlying error: SQLite error 26: file is not a database") == true,
                "\(verbose.errorOutput)")
        }
    }

    @Test func aBadOptionIsAUsageError() throws {
        let scratch = try Scratch()
        let result = try clsfile(["show", "--colour", "x"], store: scratch.storeURL)
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("--colour"))
    }

    @Test func helpDocumentsTheCommandsAndExitCodes() throws {
        let scratch = try Scratch()
        let result = try clsfile(["--help"], store: scratch.storeURL)
        #expect(result.status == 0)
        for word in ["show", "list", "CLSFILE_STORE", "66", "74", "libmagic"] {
            #expect(result.output.contains(word), "help lacks \(word)")
        }
        let show = try clsfile(["show", "--help"], store: scratch.storeURL)
        #expect(show.output.contains("--store <path>"))
        #expect(show.output.contains("--json"))
    }

    @Test func aFileNameThatIsNotUTF8WorksFromTheCommandLine() async throws {
        let scratch = try Scratch()
        let url = try #require(URL(string: "file://" + scratch.url.path + "/notes-%FF.txt"))
        let path = Array(scratch.url.path.utf8) + Array("/notes-".utf8) + [0xFF] + Array(".txt".utf8)
        let descriptor = open(path.map { CChar(bitPattern: $0) } + [0], O_CREAT | O_WRONLY, 0o644)
        #expect(descriptor >= 0)
        close(descriptor)
        let store = scratch.store()
        try await store.fetchActivity(for: url).progress = 0.6
        try await store.save()
        // Pass the raw bytes as the argument through the shell's printf.
        let result = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$0\" show --json \"$(printf '%s/notes-\\377.txt' \"$1\")\"",
                try builtExecutable("clsfile").path, scratch.url.path
            ],
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try json(result.output)["progress"] as? Double == 0.6)
        // Its history page is titled with the name's bytes.
        let page = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "exec \"$0\" show --html \"$(printf '%s/notes-\\377.txt' \"$1\")\"", try builtExecutable("clsfile").path,
                scratch.url.path
            ],
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(page.status == 0, "\(page.errorOutput)")
        #expect(page.output.contains("<title>notes-\\xFF.txt · writing history</title>"), "\(page.output.prefix(600))")
        // A name that is not UTF-8 and not there: the message names its bytes.
        let missing = try run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "exec \"$0\" show \"$(printf '%s/notes-\\376.txt' \"$1\")\"", try builtExecutable("clsfile").path, scratch.url.path],
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(missing.status == 66)
        #expect(missing.errorOutput.hasPrefix("clsfile: \(scratch.url.path)/notes-\\xFE.txt does not exist"), "\(missing.errorOutput)")
        // There and not recorded yet: named by its bytes too, not by Foundation's empty path.
        let unrecorded = try run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", "f=\"$(printf '%s/new-\\375.txt' \"$1\")\"; : > \"$f\"; exec \"$0\" show \"$f\"", try builtExecutable("clsfile").path,
                scratch.url.path
            ],
            environment: ["CLSFILE_STORE": scratch.storeURL.path])
        #expect(unrecorded.output == "No activity recorded for \(scratch.url.path)/new-\\xFD.txt.\n", "\(unrecorded.output)")
    }

    @Test func serveWithoutItsProgramSaysWhatIsMissing() throws {
        let scratch = try Scratch()
        let lone = scratch.url.appendingPathComponent("clsfile")
        try FileManager.default.copyItem(at: try builtExecutable("clsfile"), to: lone)
        try FileManager.default.copyItem(at: try builtExecutable("clsfile-main"), to: scratch.url.appendingPathComponent("clsfile-main"))
        let result = try run(lone, ["serve", "--port", "0"])
        #expect(result.status == 69)
        #expect(result.errorOutput.contains("cannot run \(scratch.url.path)/clsfile-serve"))
        #expect(result.errorOutput.contains("needs clsfile-serve installed beside clsfile"))
    }
}
