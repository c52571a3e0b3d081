import Foundation

/// OpenDocument text, zipped (`content.xml` of an ODT) or flat (`.fodt`). Only `office:body` counts;
/// footnotes, endnotes and annotations are reported apart; tracked deletions are excluded.
struct OpenDocumentExtractor: TextExtractor {
    let flat: Bool

    static let text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    static let office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let meta = "urn:oasis:names:tc:opendocument:xmlns:meta:1.0"
    static let svg = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"

    static let vocabulary = XMLProseWalker.Vocabulary(
        namespaces: [text: "text", office: "office", dc: "dc", meta: "meta", svg: "svg"],
        rules: [
            (office, "body", .body), (text, "p", .paragraph), (text, "h", .paragraph),
            (text, "s", .separator), (text, "tab", .separator), (text, "line-break", .separator),
            (text, "note", .note), (office, "annotation", .annotation),
            (text, "note-citation", .skipped), (text, "tracked-changes", .skipped), (dc, "creator", .skipped),
            (dc, "date", .skipped), (meta, "date-string", .skipped), (svg, "title", .skipped), (svg, "desc", .skipped),
        ],
        textOnlyInRuns: false, needsBody: true, collapsesWhitespace: true, noteClass: (text, "note-class"))

    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var walker = XMLProseWalker(OpenDocumentExtractor.vocabulary)
        var tokenizer = MarkupTokenizer(html: false, path: source.path)
        if flat {
            try source.forEachUTF8Chunk { chunk in try tokenizer.feed(chunk, &walker) }
        } else {
            let zip = try ZipContainer(url: source.url, limits: source.options.zipLimits)
            try zip.read("content.xml") { chunk in try tokenizer.feed(chunk, &walker) }
        }
        try tokenizer.finish(&walker)
        walker.finish()
        for target in [ProseTarget.body, .footnotes, .endnotes, .comments] {
            output[target] = walker.output[target]
        }
    }
}
