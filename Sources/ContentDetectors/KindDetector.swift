import SystemPackage

/// Works out what a file is from its bytes, its name and libmagic.
///
/// libmagic alone misreads common student files (Markdown as a script, a short note as CSV,
/// GB18030 as ISO-8859-1, Shift_JIS and CP1252 as unknown-8bit), so its answer is used only for
/// binary content. Text is classified by byte-order mark, UTF-8 validity and legacy-encoding
/// scoring, then by content and extension; ZIP containers by their entry names.
public struct KindDetector: Sendable {
    /// How many leading bytes are examined.
    public static let sampleSize = 64 * 1024
    /// Files larger than this are refused before any read.
    public var maximumFileSize: Int64

    /// Creates a detector.
    public init(maximumFileSize: Int64 = AnalysisOptions().maximumFileSize) {
        self.maximumFileSize = maximumFileSize
    }

    /// The kind of the file at `path`. Throws ``DetectorError`` for directories, FIFOs, devices,
    /// unreadable or oversized files, and damaged ZIP containers.
    public func kind(of path: FilePath) throws -> FileKind {
        try detect(SafeFile(path: path, maximumSize: maximumFileSize)).kind
    }

    /// The kind of an opened file, and for a ZIP container the central directory that told it.
    func detect(_ file: SafeFile) throws -> (kind: FileKind, zipItems: ZipContainer.Directory?) {
        let head = try file.head(KindDetector.sampleSize)
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
            let items = try ZipContainer.readCentralDirectory(of: file)
            return (try zipKind(file, items: items, head: head), items)
        }
        return (try textOrBinaryKind(file, head: head), nil)
    }

    private func textOrBinaryKind(_ file: SafeFile, head: [UInt8]) throws -> FileKind {
        let ext = file.pathExtension.lowercased()
        if head.isEmpty { return FileKind(format: .plainText, mimeType: "text/plain", charset: "us-ascii") }
        if head.starts(with: Array("{\\rtf".utf8)) {
            return FileKind(format: .rtf, mimeType: "text/rtf", charset: "us-ascii")
        }
        guard let charset = CharsetDetector.detect(head, truncated: file.size > Int64(head.count)) else {
            let mime = try Magic.shared.mimeType(of: head, path: file.path)
            return FileKind(format: .unknown, mimeType: mime, charset: "binary")
        }
        let sample = KindDetector.decodeSample(head, charset: charset)
        var (format, mime) = KindDetector.textFormat(sample, extension: ext)
        if format == .plainText && ext != "txt" && ext != "text" && (head.contains(0x3C) || head.contains(0x5C)) {
            // libmagic is trusted for the few text formats it names reliably. Its HTML rules all
            // look for "<" and its TeX rules for "\" (RTF's "{\rtf" is checked above), so text
            // with neither is not shown to it: its first look at text costs 3-5 ms, mostly
            // faulting in pages of its 8 MB database.
            switch try Magic.shared.mimeType(of: head, path: file.path) {
            case "text/html": (format, mime) = (.html, "text/html")
            case "text/x-tex": (format, mime) = (.latex, "text/x-tex")
            case "text/rtf": (format, mime) = (.rtf, "text/rtf")
            default: break
            }
        }
        if format == .html,
            let declared = KindDetector.declaredHTMLCharset(head, detected: charset, truncated: file.size > Int64(head.count))
        {
            return FileKind(format: format, mimeType: mime, charset: declared)
        }
        return FileKind(format: format, mimeType: mime, charset: charset)
    }

    /// The charset an HTML file declares, when it applies: as in a browser, a byte-order mark
    /// wins over the declaration, and the declaration over what the bytes look like. (A UTF-16
    /// file without a mark shows no ASCII declaration, so it keeps its detected charset.)
    static func declaredHTMLCharset(_ head: [UInt8], detected: String, truncated: Bool) -> String? {
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) || head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
        guard !bom, !detected.hasPrefix("utf-16"), let declared = HTMLCharset.declared(in: head), declared != detected else { return nil }
        // An ASCII-only file reads the same in any ASCII-compatible charset; keep saying so.
        if detected == "us-ascii" && !truncated && (declared == "utf-8" || declared == "windows-1252") {
            return nil
        }
        return declared
    }

    static func decodeSample(_ head: [UInt8], charset: String) -> String {
        let transcoder = Transcoder(charset: charset)
        var utf8: [UInt8] = []
        head.withUnsafeBytes { transcoder.feed($0) { utf8.append(contentsOf: $0) } }
        return String(decoding: utf8, as: UTF8.self)
    }

    static func textFormat(_ sample: String, extension ext: String) -> (DocumentFormat, String) {
        let start = sample.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        let lowerStart = start.prefix(2048).lowercased()
        if lowerStart.contains("<office:document") {
            return (.flatODT, "application/vnd.oasis.opendocument.text-flat-xml")
        }
        if lowerStart.hasPrefix("<!doctype html") || lowerStart.hasPrefix("<html")
            || (lowerStart.hasPrefix("<?xml") && lowerStart.contains("<html"))
            || (lowerStart.hasPrefix("<!--") && lowerStart.contains("<html"))
        {
            return lowerStart.contains("xhtml") ? (.html, "application/xhtml+xml") : (.html, "text/html")
        }
        if start.hasPrefix("{") && sample.contains("\"cells\"") && sample.contains("\"nbformat\"")
            || (ext == "ipynb" && start.hasPrefix("{"))
        {
            return (.notebook, "application/x-ipynb+json")
        }
        switch ext {
        case "md", "markdown", "mdown", "mkd", "mkdn", "rmd", "qmd": return (.markdown, "text/markdown")
        case "tex", "latex", "ltx": return (.latex, "text/x-tex")
        case "htm", "html", "xhtml": return (.html, "text/html")
        case "csv": return (.csv, "text/csv")
        case "txt", "text": return (.plainText, "text/plain")
        default: break
        }
        if sample.contains("\\documentclass") || sample.contains("\\begin{document}") {
            return (.latex, "text/x-tex")
        }
        if looksLikeMarkdown(sample) { return (.markdown, "text/markdown") }
        return (.plainText, "text/plain")
    }

    static func looksLikeMarkdown(_ sample: String) -> Bool {
        var score = 0
        for line in sample.split(separator: "\n", omittingEmptySubsequences: true).prefix(400) {
            let t = line.drop { $0 == " " }
            if t.hasPrefix("# ") || t.hasPrefix("## ") || t.hasPrefix("### ") { score += 2 }
            if t.hasPrefix("```") { score += 2 }
            if t.hasPrefix("- [ ] ") || t.hasPrefix("- [x] ") { score += 2 }
            if t.contains("](") && t.contains("[") { score += 1 }
        }
        return score >= 2
    }

    private func zipKind(_ file: SafeFile, items: ZipContainer.Directory, head: [UInt8]) throws -> FileKind {
        if items["word/document.xml"] != nil {
            return FileKind(
                format: .docx, mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", charset: "binary")
        }
        // Read from the first bytes when stored first, as the formats ask; else through the archive.
        var mimetype: [UInt8] = []
        if let stored = ZipContainer.leadingStoredEntry(named: "mimetype", in: head, limit: 256) {
            mimetype = Array(stored)
        } else if items["mimetype"] != nil, let zip = try? ZipContainer(file: file, items: items, limits: ZipLimits()),
            let bytes = try? zip.readSmall("mimetype", limit: 256)
        {
            mimetype = bytes
        }
        let declared = String(decoding: mimetype, as: UTF8.self).trimmedASCIIWhitespace
        if declared == "application/vnd.oasis.opendocument.text"
            || (declared.isEmpty && items["content.xml"] != nil && items["META-INF/manifest.xml"] != nil)
        {
            return FileKind(format: .odt, mimeType: "application/vnd.oasis.opendocument.text", charset: "binary")
        }
        if declared == "application/epub+zip" || (declared.isEmpty && items["META-INF/container.xml"] != nil) {
            return FileKind(format: .epub, mimeType: "application/epub+zip", charset: "binary")
        }
        return FileKind(format: .zip, mimeType: declared.isEmpty ? "application/zip" : declared, charset: "binary")
    }
}
