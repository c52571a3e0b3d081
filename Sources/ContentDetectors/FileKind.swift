/// The document formats this module recognises.
public enum DocumentFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case plainText, markdown, html, latex, docx, odt, flatODT, rtf, epub, notebook
    /// Comma-separated values: recognised, but not extracted.
    case csv
    /// A ZIP archive that is no known document: recognised, but not extracted.
    case zip
    /// Anything else (binary or unrecognised).
    case unknown

    /// The format as people write it: `text`, `Markdown`, `LaTeX`, `DOCX`, `flat ODT`.
    public var name: String {
        switch self {
        case .plainText: "text"
        case .markdown: "Markdown"
        case .html: "HTML"
        case .latex: "LaTeX"
        case .docx: "DOCX"
        case .odt: "ODT"
        case .flatODT: "flat ODT"
        case .rtf: "RTF"
        case .epub: "EPUB"
        case .notebook: "notebook"
        case .csv: "CSV"
        case .zip: "ZIP"
        case .unknown: "unknown"
        }
    }

    /// Whether ``DocumentAnalyzer`` can extract text from this format.
    public var isExtractable: Bool {
        switch self {
        case .csv, .zip, .unknown: return false
        default: return true
        }
    }
}

/// What a file is: its format, MIME type and character set.
public struct FileKind: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The document format.
    public var format: DocumentFormat
    /// The MIME type, such as `text/markdown`.
    public var mimeType: String
    /// The character set of the text (`utf-8`, `gb18030`, …), or `binary` for containers and binary data.
    public var charset: String

    /// Creates a kind.
    public init(format: DocumentFormat, mimeType: String, charset: String) {
        self.format = format
        self.mimeType = mimeType
        self.charset = charset
    }

    public var description: String { "\(mimeType); charset=\(charset)" }
}
