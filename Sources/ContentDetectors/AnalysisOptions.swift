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

    /// Creates options with the defaults.
    public init(maximumFileSize: Int64 = 1 << 30, zipLimits: ZipLimits = ZipLimits(), maximumNotebookSize: Int64 = 64 << 20) {
        self.maximumFileSize = maximumFileSize
        self.zipLimits = zipLimits
        self.maximumNotebookSize = maximumNotebookSize
    }
}
