import Foundation

/// Office Open XML documents: body from `word/document.xml`; footnotes, endnotes and comments from
/// their parts, reported apart. Deleted and moved-from revisions and fallback copies are excluded.
struct DocxExtractor: TextExtractor {
    static let w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    static let mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"

    static let vocabulary = XMLProseWalker.Vocabulary(
        namespaces: [w: "w", mc: "mc"],
        rules: [
            (w, "t", .run), (w, "p", .paragraph), (w, "tab", .separator), (w, "br", .separator), (w, "cr", .separator),
            (w, "noBreakHyphen", .literal("-")), (w, "del", .skipped), (w, "moveFrom", .skipped), (mc, "Fallback", .skipped),
        ],
        textOnlyInRuns: true, needsBody: false, collapsesWhitespace: false)

    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        let zip = try ZipContainer(url: source.url, limits: source.options.zipLimits)
        let parts: [(String, ProseTarget)] = [
            ("word/document.xml", .body), ("word/footnotes.xml", .footnotes),
            ("word/endnotes.xml", .endnotes), ("word/comments.xml", .comments),
        ]
        for (part, target) in parts where zip.contains(part) || part == "word/document.xml" {
            var walker = XMLProseWalker(DocxExtractor.vocabulary, target: target)
            var tokenizer = MarkupTokenizer(html: false, path: source.path)
            try zip.read(part) { chunk in try tokenizer.feed(chunk, &walker) }
            try tokenizer.finish(&walker)
            walker.output[target].paragraph()
            output[target] = walker.output[target]
        }
    }
}

/// Qualified names resolved against the prefixes a document declares on its root element.
struct QualifiedNames {
    private var prefixes: [String: String] = [:]

    init(root attributes: UnsafeRawBufferPointer, defaults: [String: String]) {
        let declared = MarkupTokenizer.namespaces(in: attributes)
        for (uri, fallback) in defaults { prefixes[uri] = declared[uri] ?? fallback }
    }

    func name(_ uri: String, _ local: String) -> [UInt8] {
        Array("\(prefixes[uri] ?? ""):\(local)".utf8)
    }
}
