import Foundation
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile stats`, run as a built binary on real files.
struct StatsCommandTests {
    private func clsfile(_ arguments: [String]) throws -> ProcessResult {
        try run(try builtExecutable("clsfile"), arguments)
    }

    @Test func theTableAgreesWithWcOnPlainASCII() throws {
        let scratch = try Scratch()
        let text = (0..<500).map { "Sentence number \($0) has six words." }.joined(separator: " ") + "\n"
        let file = try scratch.file("plain.txt", text)
        let wc = try run(URL(fileURLWithPath: "/usr/bin/wc"), ["-w", file.path])
        let expected = try #require(Int(wc.output.split(separator: " ").first ?? ""))
        let result = try clsfile(["stats", file.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let row = try #require(result.output.split(separator: "\n").last)
        let columns = row.split(separator: " ", omittingEmptySubsequences: true)
        #expect(Int(columns[0]) == expected)
        #expect(Int(columns[2]) == 500)
        #expect(row.hasSuffix(file.path))
        #expect(!result.errorOutput.contains("\u{1B}"), "no progress line when standard error is not a terminal")
    }

    @Test func jsonCarriesTheKindStatisticsAndProgress() throws {
        let scratch = try Scratch()
        let file = try scratch.file(
            "todo.md",
            """
            ---
            title: Plan
            ---
            # Plan for the essay

            - [x] Read the sources
            - [ ] Write the draft

            ```swift
            let ignored = "code is not prose"
            ```
            """)
        let result = try clsfile(["stats", "--json", "--target-words", "20", file.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        let row = try #require(rows.first)
        #expect(row["format"] as? String == "markdown")
        let body = try #require(row["body"] as? [String: Any])
        #expect(body["words"] as? Int == 10)
        #expect(row["codeLines"] as? Int == 1)
        let progress = try #require(row["progress"] as? [[String: Any]])
        #expect(progress.map { $0["basis"] as? String } == ["10 of 20 words", "1 of 2 checklist items done"])
    }

    @Test func badFilesAreReportedWhileTheOthersAreCounted() throws {
        let scratch = try Scratch()
        let good = try scratch.file("good.txt", "three small words\n")
        let missing = scratch.url.appendingPathComponent("missing.txt").path
        let fifo = scratch.url.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let junk = scratch.url.appendingPathComponent("junk.bin")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: junk)

        let started = Date()
        let result = try clsfile(["stats", good.path, missing, fifo, junk.path])
        #expect(Date().timeIntervalSince(started) < 10, "a FIFO must be refused without blocking")
        #expect(result.status == 66)
        #expect(result.output.contains("good.txt"))
        let errors = result.errorOutput.split(separator: "\n")
        #expect(errors.count == 3)
        #expect(errors.contains { $0.contains(missing) })
        #expect(errors.contains { $0.contains(fifo) })
        #expect(errors.contains { $0.contains(junk.path) && $0.contains("application/octet-stream") })

        let unsupported = try clsfile(["stats", junk.path])
        #expect(unsupported.status == 65)
    }

    /// The table shows the body alone, and reads no part that holds only page headers and footers,
    /// notes or comments; the JSON has them all. An ODT whose styles.xml (the master pages' headers
    /// and footers) is damaged is therefore counted in the table and refused in JSON.
    @Test func theTableReadsOnlyTheBodysPart() throws {
        let scratch = try Scratch()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ContentDetectorsTests/Fixtures/header-footer.odt")
        let file = scratch.url.appendingPathComponent("essay.odt")
        try FileManager.default.copyItem(at: fixture, to: file)
        let whole = try clsfile(["stats", "--json", file.path])
        #expect(whole.status == 0, "\(whole.errorOutput)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(whole.output.utf8)) as? [[String: Any]])
        let body = try #require(rows.first?["body"] as? [String: Any])
        #expect(body["words"] as? Int == 19)
        #expect((rows.first?["headersAndFooters"] as? [String: Any])?["words"] as? Int == 9)

        try DamagedZipEntry.damage("styles.xml", inZipAt: file)
        let table = try clsfile(["stats", file.path])
        #expect(table.status == 0, "\(table.errorOutput)")
        let row = try #require(table.output.split(separator: "\n").last)
        #expect(row.split(separator: " ", omittingEmptySubsequences: true).first == "19")
        let json = try clsfile(["stats", "--json", file.path])
        #expect(json.status == 65)
        #expect(json.errorOutput.contains("styles.xml"), "\(json.errorOutput)")
    }

    @Test func aTargetOfZeroWordsIsAUsageError() throws {
        let scratch = try Scratch()
        let result = try clsfile(["stats", "--target-words", "0", try scratch.file("a.txt").path])
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("--target-words"))
    }

    /// `-5` is the option's value, refused as a count, not taken for an option and reported missing.
    @Test(arguments: [["stats"], ["open", "--editor", "true"], ["hook", "open"]])
    func aNegativeTargetIsRefusedAsACount(command: [String]) throws {
        let scratch = try Scratch()
        let file = try scratch.file("a.txt").path
        let result = try clsfile(command + ["--target-words", "-5", file, "--store", scratch.storeURL.path])
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("--target-words must be a positive number of words, not -5"), "\(result.errorOutput)")
    }

    /// A plain `stats FILE… [--json] [--target-words N]` is read without ArgumentParser; any other
    /// form goes through it. Both must print the same thing, and `--help` must still work.
    @Test func theDirectReadingAndArgumentParserAgree() throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.md", "# Essay\n\nIt was a bright cold day in April. The clocks struck.\n")
        let notes = try scratch.file("notes.txt", "- [x] read\n- [ ] write the middle part of it\n")
        let forms: [(plain: [String], parsed: [String])] = [
            (["stats", essay.path, notes.path], ["stats", "--", essay.path, notes.path]),
            (
                ["stats", "--json", essay.path, "--target-words=20"],
                ["stats", "--target-words", "20", "--json", "--", essay.path]
            )
        ]
        for (plain, parsed) in forms {
            let direct = try clsfile(plain), viaParser = try clsfile(parsed)
            #expect(direct.status == 0 && viaParser.status == 0, "\(direct.errorOutput) \(viaParser.errorOutput)")
            #expect(direct.output == viaParser.output, "\(plain) and \(parsed) differ")
        }
        let table = try clsfile(["stats", essay.path, notes.path]).output.split(separator: "\n").map(String.init)
        #expect(table.count == 4)
        // Numbers are aligned right under their headings, the format left.
        let gradeEnd = try #require(table[0].range(of: "GRADE")).upperBound
        for line in table.dropFirst() where !line.contains("total") {
            #expect(line.index(before: gradeEnd) < line.endIndex && line[line.index(before: gradeEnd)] != " ", "\(line)")
        }
        #expect(table[1].contains("  Markdown ") && table[2].contains("  text "))

        let help = try clsfile(["stats", "--help"])
        #expect(help.status == 0 && help.output.contains("--target-words") && help.output.contains("--json"))
        // A repeated flag is left to ArgumentParser, which accepts it.
        let repeated = try clsfile(["stats", "--json", "--json", essay.path])
        let single = try clsfile(["stats", "--json", essay.path])
        #expect(repeated.status == 0 && repeated.output == single.output)
    }

    /// libmagic is loaded only when a file needs it. Without it (hidden here by a bind mount in a
    /// mount namespace of its own, which needs root), a file that needs it gets a clear error and
    /// the others are still counted.
    @Test(.enabled(if: getuid() == 0, "hiding libmagic needs a mount namespace, so root"))
    func aMissingLibmagicIsAClearErrorForTheFilesThatNeedIt() throws {
        let scratch = try Scratch()
        let junk = scratch.url.appendingPathComponent("junk.bin")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: junk)
        let text = try scratch.file("plain.txt", "four plain words here\n")
        let library = try #require(
            realpath("/usr/lib/x86_64-linux-gnu/libmagic.so.1", nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            }, "libmagic1 is installed")
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/unshare"),
            [
                "-m", "/bin/sh", "-c",
                "mount --bind /dev/null \"$0\" && exec \"$1\" stats \"$2\" \"$3\"",
                library, try builtExecutable("clsfile").path, junk.path, text.path
            ])
        #expect(result.status == 65, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("cannot tell what \(junk.path) is: libmagic cannot be loaded"))
        #expect(result.errorOutput.contains("apt-get install libmagic1"))
        #expect(result.output.contains("plain.txt"))
    }
}
