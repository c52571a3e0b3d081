/// Limits and settings for ``DocumentAnalyzer``.
public struct AnalysisOptions: Sendable, Hashable {
    /// Files larger than this are refused before any read (default 1 GiB). Plain text is counted in
    /// constant memory whatever the size; the limit bounds time, not memory.
    public var maximumFileSize: Int64
    /// Limits for ZIP-based formats (DOCX, ODT, EPUB).
    public var zipLimits: ZipLimits
    /// The largest source of one notebook cell, which is held in memory while it is counted
    /// (default 64 MiB). The rest of a notebook, outputs included, streams by.
    public var maximumNotebookSize: Int64
    /// Whether the body's figures are all that is wanted (false by default). The parts of a
    /// document that hold only notes, comments or page headers and footers (a DOCX's footnotes,
    /// endnotes, comments, headers and footers; an ODT's `styles.xml`) are then not read, and the
    /// report's ``DocumentReport/footnotes``, ``DocumentReport/endnotes``,
    /// ``DocumentReport/comments`` and ``DocumentReport/headersAndFooters`` are empty whatever the
    /// document holds. What is not read is not checked either: a damaged or over-limit part of
    /// those, and the entity references it leaves unexpanded (``DocumentReport/warnings``), go
    /// unreported. `clsfile stats` sets it for its table, which shows the body alone.
    public var measuresBodyOnly: Bool

    /// Creates options with the defaults.
    public init(
        maximumFileSize: Int64 = 1 << 30, zipLimits: ZipLimits = ZipLimits(), maximumNotebookSize: Int64 = 64 << 20,
        measuresBodyOnly: Bool = false
    ) {
        self.maximumFileSize = maximumFileSize
        self.zipLimits = zipLimits
        self.maximumNotebookSize = maximumNotebookSize
        self.measuresBodyOnly = measuresBodyOnly
    }
}
