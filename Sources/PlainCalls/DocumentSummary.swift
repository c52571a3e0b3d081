import ContentDetectors

/// What `stats` prints about one document, as a table row or JSON.
public struct DocumentSummary: Sendable {
    /// A part's figures, rounded as they are shown.
    public struct Figures: Sendable {
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

        /// The figures as a JSON object, their keys sorted.
        func write(to json: inout JSONWriter) {
            json.beginObject()
            json.member("characters", characters)
            json.member("charactersExcludingSpaces", charactersExcludingSpaces)
            json.member("cjkCharacters", cjkCharacters)
            json.member("fleschKincaidGrade", fleschKincaidGrade)
            json.member("fleschReadingEase", fleschReadingEase)
            json.member("paragraphs", paragraphs)
            json.member("readingTimeMinutes", readingTimeMinutes)
            json.member("sentences", sentences)
            json.member("syllables", syllables)
            json.member("words", words)
            json.endObject()
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

    /// The summary of one document's report, with progress toward `targetWords` when given.
    public init(path: String, report: DocumentReport, targetWords: Int?) {
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

    /// The rows as an aligned table, with a total row when there are several.
    public static func table(_ rows: [DocumentSummary]) -> String {
        var lines = [["WORDS", "CHARS", "SENTENCES", "GRADE", "PROGRESS", "FORMAT", "FILE"]]
        for row in rows {
            lines.append([
                "\(row.body.words)", "\(row.body.characters)", "\(row.body.sentences)",
                NumberText.decimal(row.body.fleschKincaidGrade, places: 1),
                row.progress.first.map { NumberText.percent($0.value) } ?? "-",
                DocumentFormat(rawValue: row.format)?.name ?? row.format, row.path
            ])
        }
        if rows.count > 1 {
            lines.append([
                "\(rows.reduce(0) { $0 + $1.body.words })", "\(rows.reduce(0) { $0 + $1.body.characters })",
                "\(rows.reduce(0) { $0 + $1.body.sentences })", "", "", "", "total"
            ])
        }
        let columns = Table(lines, rightAligned: 5).lines
        return columns.dropFirst().reduce(into: columns[0]) { $0 += "\n" + $1 }
    }

    /// The rows as pretty JSON, keys sorted, laid out as `JSONEncoder` lays it out; a part with
    /// no words, and figures that do not apply, are left out.
    public static func json(_ rows: [DocumentSummary]) -> String {
        var json = JSONWriter()
        json.beginArray()
        for row in rows { row.write(to: &json) }
        json.endArray()
        return json.text
    }

    private func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("body")
        body.write(to: &json)
        json.member("charset", charset)
        if let checklist {
            json.key("checklist")
            json.beginObject()
            json.member("done", checklist.done)
            json.member("total", checklist.total)
            json.endObject()
        }
        json.member("codeLines", codeLines)
        for (name, figures) in [("comments", comments), ("endnotes", endnotes), ("footnotes", footnotes)] {
            guard let figures else { continue }
            json.key(name)
            figures.write(to: &json)
        }
        json.member("format", format)
        if let headersAndFooters {
            json.key("headersAndFooters")
            headersAndFooters.write(to: &json)
        }
        json.member("mimeType", mimeType)
        if let notebookCells {
            json.key("notebookCells")
            json.beginObject()
            json.member("code", notebookCells.code)
            json.member("executed", notebookCells.executed)
            json.member("markdown", notebookCells.markdown)
            json.endObject()
        }
        json.member("path", path)
        json.key("progress")
        json.beginArray()
        for estimate in progress {
            json.beginObject()
            json.member("basis", estimate.basis)
            json.member("value", estimate.value)
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }
}
