import ArgumentParser
import CommandSupport
import ContentDetectors
import Foundation

/// `clsfile stats FILE…`: counts words and more, like `wc`, for every document format.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count words, characters and sentences, and grade readability, of documents.",
        discussion: """
            Reads plain text in any common encoding, Markdown, HTML, LaTeX, DOCX, ODT, RTF, EPUB \
            and Jupyter notebooks; the format comes from the content, not the name. The table \
            shows each document's body; the JSON also has its footnotes, endnotes, comments and \
            page headers and footers, counted apart. Files that cannot be counted are reported \
            on standard error and the others are still counted; the exit code is then 66 \
            (missing, unreadable or not a regular file) or 65 (unsupported format, damaged, over \
            a safety limit, or needing libmagic when it cannot be loaded).
            """)

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    // Unconditional, so that `--target-words -5` is refused as a count rather than as a missing value.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Report progress toward this many words.", valueName: "n"))
    var targetWords: Int?

    @Argument(help: ArgumentHelp("The documents.", valueName: "file"))
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one file.") }
        if let targetWords, targetWords <= 0 {
            throw ValidationError("--target-words must be a positive number of words, not \(targetWords).")
        }
    }

    func run() async throws {
        try Self.count(files, json: json, targetWords: targetWords)
    }

    /// Counts the files and prints their table or JSON; files that cannot be counted are reported
    /// on standard error and the others are still counted.
    /// - Throws: `ExitCode` 66 when a file is missing, unreadable or not a regular file, else 65
    ///   when one cannot be counted.
    static func count(_ files: [String], json: Bool, targetWords: Int?) throws {
        let analyzer = DocumentAnalyzer()
        // The table shows the body alone: the parts of notes, comments, headers and footers go unread.
        let options = AnalysisOptions(measuresBodyOnly: !json)
        var rows: [DocumentSummary] = []
        var exitCode: Int32 = 0
        let progress = ProgressLine()
        for (index, file) in files.enumerated() {
            progress.show("counting \(index + 1) of \(files.count): \(file)")
            do {
                let report = try analyzer.analyze(FileArgument.path(for: file), options: options)
                rows.append(DocumentSummary(path: file, report: report, targetWords: targetWords))
                for warning in report.warnings {
                    progress.clear()
                    Diagnostics.warn("\(file): \(warning)")
                }
            } catch let error as DetectorError {
                progress.clear()
                Diagnostics.warn(error.message)
                exitCode = exitCode == 66 ? 66 : error.exitCode
            }
        }
        progress.clear()
        if json {
            print(try DocumentSummary.json(rows))
        } else if !rows.isEmpty {
            print(DocumentSummary.table(rows))
        }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }
}

/// One `clsfile stats FILE…` call in its plainest form, which the entry point runs without
/// ArgumentParser (see ``PlainArguments``).
struct StatsCall {
    var files: [String]
    var json: Bool
    var targetWords: Int?

    /// Reads `stats FILE… [--json] [--target-words N]`; nil for anything that ArgumentParser should
    /// parse and report.
    init?(arguments: [String]) {
        guard let call = PlainArguments(arguments, command: "stats", valued: ["--target-words"], flags: ["--json"]),
            !call.positionals.isEmpty
        else { return nil }
        if let text = call.value(of: "--target-words") {
            guard let target = Int(text), target > 0 else { return nil }
            targetWords = target
        }
        files = call.positionals
        json = call.has("--json")
    }
}
