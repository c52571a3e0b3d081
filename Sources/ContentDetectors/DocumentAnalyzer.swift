import SystemPackage

/// Detects a file's kind, extracts its prose with the matching streaming extractor and counts it.
///
/// ```swift
/// let report = try DocumentAnalyzer().analyze("essay.docx")
/// print(report.statistics.words, report.footnotes.words)
/// ```
public struct DocumentAnalyzer: Sendable {
    /// Creates an analyzer.
    public init() {}

    /// Analyzes the file at `path`.
    ///
    /// Throws ``DetectorError`` when the path is not a regular file, is too large, cannot be read,
    /// is of an unsupported MIME type, or is a damaged, encrypted or over-expanding container.
    public func analyze(_ path: FilePath, options: AnalysisOptions = AnalysisOptions()) throws -> DocumentReport {
        try analyze(SafeFile(path: path, maximumSize: options.maximumFileSize), options: options)
    }

    /// Analyzes the file a path's bytes name, as given (see ``analyze(_:options:)``): for the
    /// package's programs, whose names come from `argv` and the store, need not be UTF-8, and keep
    /// what a `FilePath` would tidy (a trailing slash, a double one).
    package func analyze(fileSystemPath bytes: some Collection<UInt8>, options: AnalysisOptions = AnalysisOptions()) throws
        -> DocumentReport
    {
        try analyze(SafeFile(fileSystemPath: bytes, maximumSize: options.maximumFileSize), options: options)
    }

    private func analyze(_ file: SafeFile, options: AnalysisOptions) throws -> DocumentReport {
        let (kind, zipItems) = try KindDetector(maximumFileSize: options.maximumFileSize).detect(file)
        let extractor: TextExtractor
        switch kind.format {
        case .plainText: extractor = PlainTextExtractor()
        case .markdown: extractor = MarkdownExtractor()
        case .html: extractor = HTMLExtractor()
        case .latex: extractor = LaTeXExtractor()
        case .docx: extractor = DocxExtractor()
        case .odt: extractor = OpenDocumentExtractor(flat: false)
        case .flatODT: extractor = OpenDocumentExtractor(flat: true)
        case .rtf: extractor = RTFExtractor()
        case .epub: extractor = EPUBExtractor()
        case .notebook: extractor = NotebookExtractor()
        case .csv, .zip, .unknown: throw DetectorError.unsupported(file.path, mimeType: kind.mimeType)
        }
        var output = ExtractionOutput()
        try extractor.extract(DocumentSource(file: file, kind: kind, zipItems: zipItems, options: options), into: &output)
        // With the body only, notes kept in the body's own part (an ODT's) were read and those in parts
        // of their own (a DOCX's) were not: none is reported rather than some.
        func reportedApart(_ target: ProseTarget) -> TextStatistics {
            options.measuresBodyOnly ? TextStatistics() : output[target].counter.statistics
        }
        return DocumentReport(
            kind: kind,
            statistics: output.bodyOverride ?? output[.body].counter.statistics,
            footnotes: reportedApart(.footnotes),
            endnotes: reportedApart(.endnotes),
            comments: reportedApart(.comments),
            headersAndFooters: reportedApart(.headersAndFooters),
            codeLines: output.codeLines,
            checklist: ChecklistCount(done: output.checklistDone, total: output.checklistTotal),
            notebookCells: output.isNotebook
                ? NotebookCells(code: output.codeCells, executed: output.executedCells, markdown: output.markdownCells) : nil,
            ignoredEntities: output.ignoredEntities
        )
    }
}
