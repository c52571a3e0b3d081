import ContentDetectors
import ProgramBasics

/// One `clsfile stats FILE…` call in its plainest form, which the `clsfile` front runs itself,
/// without ArgumentParser, Foundation or the store (see ``PlainArguments``); `clsfile-main`'s
/// `stats` command runs the others the same way.
public struct StatsCall: Sendable {
    /// The files, as `CommandLine.arguments` gives them (their bytes are looked up in `argv`).
    public var files: [String]
    /// Whether to print JSON instead of a table.
    public var json: Bool
    /// The number of words progress is reported toward, if any.
    public var targetWords: Int?

    public init(files: [String], json: Bool, targetWords: Int?) {
        self.files = files
        self.json = json
        self.targetWords = targetWords
    }

    /// Reads `stats FILE… [--json] [--target-words N]` (the arguments after the program name);
    /// nil for anything that ArgumentParser should parse and report.
    public init?(arguments: [String]) {
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

    /// Counts the files and prints their table or JSON on standard output; files that cannot be
    /// counted are reported on standard error and the others are still counted.
    /// - Returns: The exit status: 0; 66 when a file is missing, unreadable or not a regular
    ///   file; else 65 when one cannot be counted.
    public func run() -> Int32 {
        let analyzer = DocumentAnalyzer()
        // The table shows the body alone: the parts of notes, comments, headers and footers go unread.
        let options = AnalysisOptions(measuresBodyOnly: !json)
        var rows: [DocumentSummary] = []
        var status: Int32 = 0
        let progress = ProgressLine()
        let paths = ProcessArguments.bytes(ofEach: files)
        for (index, file) in files.enumerated() {
            progress.show("counting \(index + 1) of \(files.count): \(file)")
            do {
                let report = try analyzer.analyze(fileSystemPath: paths[index], options: options)
                rows.append(DocumentSummary(path: file, report: report, targetWords: targetWords))
                for warning in report.warnings {
                    progress.clear()
                    StandardError.write(StandardError.line("\(file): \(warning)").utf8)
                }
            } catch let error as DetectorError {
                progress.clear()
                StandardError.write(StandardError.line(error.message).utf8)
                status = status == 66 ? 66 : DetectorError.exitCodes[error.code] ?? 65
            } catch {
                // DocumentAnalyzer throws DetectorError alone; anything else is still reported.
                progress.clear()
                StandardError.write(StandardError.line("\(file): \(error)").utf8)
                status = status == 66 ? 66 : 65
            }
        }
        progress.clear()
        if json {
            print(DocumentSummary.json(rows))
        } else if !rows.isEmpty {
            print(DocumentSummary.table(rows))
        }
        return status
    }
}
