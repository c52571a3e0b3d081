import ArgumentParser
import PlainCalls

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
        let status = StatsCall(files: files, json: json, targetWords: targetWords).run()
        if status != 0 { throw ExitCode(status) }
    }
}
