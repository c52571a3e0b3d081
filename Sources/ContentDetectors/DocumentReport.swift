/// Checklist items found in Markdown or plain text (`- [x]` done, `- [ ]` open).
public struct ChecklistCount: Sendable, Hashable, Codable {
    /// Items marked done.
    public var done: Int
    /// All items.
    public var total: Int

    /// Creates a count.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }
}

/// Cell counts of a Jupyter notebook.
public struct NotebookCells: Sendable, Hashable, Codable {
    /// Code cells.
    public var code: Int
    /// Code cells with a non-null `execution_count`.
    public var executed: Int
    /// Markdown cells.
    public var markdown: Int

    /// Creates counts.
    public init(code: Int, executed: Int, markdown: Int) {
        self.code = code
        self.executed = executed
        self.markdown = markdown
    }
}

/// Everything ``DocumentAnalyzer`` found out about one file.
public struct DocumentReport: Sendable, Hashable, Codable {
    /// What the file is.
    public var kind: FileKind
    /// Statistics of the body text.
    public var statistics: TextStatistics
    /// Statistics of footnotes (DOCX, ODT, RTF, LaTeX).
    public var footnotes: TextStatistics
    /// Statistics of endnotes (DOCX, ODT, RTF).
    public var endnotes: TextStatistics
    /// Statistics of comments and annotations (DOCX, ODT, RTF).
    public var comments: TextStatistics
    /// Statistics of page headers and footers (DOCX: every `header*.xml` and `footer*.xml` part;
    /// ODT: the headers and footers of every master page; each counted once however many pages
    /// repeat it). Like Word's own count, the body leaves them out; LibreOffice's count includes them.
    public var headersAndFooters: TextStatistics
    /// Non-blank lines of code: fenced blocks in Markdown, code cells in notebooks, verbatim in LaTeX.
    public var codeLines: Int
    /// Checklist items in Markdown, plain text and notebook markdown cells.
    public var checklist: ChecklistCount
    /// Cell counts, for notebooks only.
    public var notebookCells: NotebookCells?
    /// Entity references in the markup (`&name;`) left unexpanded: entities a document defines
    /// itself are never expanded, so text held in them is not counted. See ``warnings``.
    public var ignoredEntities = 0

    /// What a reader of the counts should know: text that was present but not counted.
    public var warnings: [String] {
        guard ignoredEntities > 0 else { return [] }
        return [
            "\(ignoredEntities) entity reference\(ignoredEntities == 1 ? "" : "s") (&name;) left unexpanded: entities the document defines itself are never expanded, so text held in them is not counted"
        ]
    }
}
