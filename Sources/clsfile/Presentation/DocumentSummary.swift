import ContentDetectors
import Foundation

/// What `stats` prints about one document, as a table row or JSON.
struct DocumentSummary: Encodable {
    struct Figures: Encodable {
        var words: Int
        var characters: Int
        var charactersExcludingSpaces: Int
        var sentences: Int
        var paragraphs: Int
        var syllables: Int
        var cjkCharacters: Int
        var fleschKincaidGrade: Double
        var fleschReadingEase: Double
        var readingTimeMinutes: Double

        init(_ statistics: TextStatistics) {
            words = statistics.words
            characters = statistics.characters
            charactersExcludingSpaces = statistics.charactersExcludingSpaces
            sentences = statistics.sentences
            paragraphs = statistics.paragraphs
            syllables = statistics.syllables
            cjkCharacters = statistics.cjkCharacters
            // The formula goes below 0 for very plain text; no one reads at a negative grade.
            fleschKincaidGrade = Self.rounded(max(0, statistics.fleschKincaidGrade))
            fleschReadingEase = Self.rounded(statistics.fleschReadingEase)
            readingTimeMinutes = Self.rounded(statistics.readingTimeMinutes)
        }

        private static func rounded(_ value: Double) -> Double {
            value.isFinite ? (value * 100).rounded() / 100 : 0
        }
    }

    var path: String
    var format: String
    var mimeType: String
    var charset: String
    var body: Figures
    var footnotes: Figures?
    var endnotes: Figures?
    var comments: Figures?
    var headersAndFooters: Figures?
    var codeLines: Int
    var checklist: ChecklistCount?
    var notebookCells: NotebookCells?
    var progress: [ProgressEstimate]

    init(path: String, report: DocumentReport, targetWords: Int?) {
        self.path = path
        format = report.kind.format.rawValue
        mimeType = report.kind.mimeType
        charset = report.kind.charset
        body = Figures(report.statistics)
        footnotes = report.footnotes.words > 0 ? Figures(report.footnotes) : nil
        endnotes = report.endnotes.words > 0 ? Figures(report.endnotes) : nil
        comments = report.comments.words > 0 ? Figures(report.comments) : nil
        headersAndFooters = report.headersAndFooters.words > 0 ? Figures(report.headersAndFooters) : nil
        codeLines = report.codeLines
        checklist = report.checklist.total > 0 ? report.checklist : nil
        notebookCells = report.notebookCells
        var estimators: [ProgressEstimator] = []
        if let targetWords { estimators.append(.targetWordCount(targetWords)) }
        if checklist != nil { estimators.append(.checklist) }
        if notebookCells.map({ $0.code > 0 }) == true { estimators.append(.executedCells) }
        progress = estimators.map { $0.estimate(report) }
    }

    static func table(_ rows: [DocumentSummary]) -> String {
        var lines = [["WORDS", "CHARS", "SENTENCES", "GRADE", "PROGRESS", "FORMAT", "FILE"]]
        for row in rows {
            lines.append([
                "\(row.body.words)", "\(row.body.characters)", "\(row.body.sentences)",
                Formatting.decimal(row.body.fleschKincaidGrade, places: 1),
                row.progress.first.map { Formatting.percent($0.value) } ?? "-",
                DocumentFormat(rawValue: row.format)?.name ?? row.format, row.path
            ])
        }
        if rows.count > 1 {
            lines.append([
                "\(rows.reduce(0) { $0 + $1.body.words })", "\(rows.reduce(0) { $0 + $1.body.characters })",
                "\(rows.reduce(0) { $0 + $1.body.sentences })", "", "", "", "total"
            ])
        }
        let columns = Formatting.columns(lines, rightAligned: 5)
        return columns.dropFirst().reduce(into: columns[0]) { $0 += "\n" + $1 }
    }

    static func json(_ rows: [DocumentSummary]) throws -> String {
        try Formatting.json(rows)
    }
}
