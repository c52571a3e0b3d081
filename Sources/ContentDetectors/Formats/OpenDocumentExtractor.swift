/// OpenDocument text, zipped (`content.xml` and `styles.xml` of an ODT) or flat (`.fodt`). The body
/// is `office:body`; footnotes, endnotes and annotations are reported apart, and so are the page
/// headers and footers of the master pages (`styles.xml`), each counted once, as for DOCX (with the
/// value a page number field held when the file was saved, as LibreOffice counts it); tracked
/// deletions are excluded.
struct OpenDocumentExtractor: TextExtractor {
    let flat: Bool

    static let text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    static let office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let meta = "urn:oasis:names:tc:opendocument:xmlns:meta:1.0"
    static let svg = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
    static let style = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"

    static let vocabulary = XMLProseWalker.Vocabulary(
        namespaces: [text: "text", office: "office", dc: "dc", meta: "meta", svg: "svg", style: "style"],
        rules: [
            (office, "body", .body), (text, "p", .paragraph), (text, "h", .paragraph),
            (style, "header", .region(.headersAndFooters)), (style, "footer", .region(.headersAndFooters)),
            (style, "header-left", .region(.headersAndFooters)), (style, "footer-left", .region(.headersAndFooters)),
            (style, "header-first", .region(.headersAndFooters)), (style, "footer-first", .region(.headersAndFooters)),
            (text, "s", .separator), (text, "tab", .separator), (text, "line-break", .separator),
            (text, "note", .note), (office, "annotation", .annotation),
            (text, "note-citation", .skipped), (text, "tracked-changes", .skipped), (dc, "creator", .skipped),
            (dc, "date", .skipped), (meta, "date-string", .skipped), (svg, "title", .skipped), (svg, "desc", .skipped),
            // Most of styles.xml, and the start of content.xml: read past, not parsed.
            (office, "font-face-decls", .unread), (office, "styles", .unread), (office, "automatic-styles", .unread),
            (office, "scripts", .unread)
        ],
        textOnlyInRuns: false, needsBody: true, collapsesWhitespace: true, noteClass: (text, "note-class"))

    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var walker = XMLProseWalker(OpenDocumentExtractor.vocabulary)
        if flat {
            var tokenizer = MarkupTokenizer(html: false, path: source.path)
            try source.forEachUTF8Chunk { chunk in try tokenizer.feed(chunk, &walker) }
            try tokenizer.finish(&walker)
            output.ignoredEntities += tokenizer.ignoredEntities
        } else {
            let zip = try source.zipContainer()
            // styles.xml holds the master pages' headers and footers, and nothing of the body.
            for part in ["content.xml", "styles.xml"]
            where part == "content.xml" || (!source.options.measuresBodyOnly && zip.contains(part)) {
                // Each part has its own root element and namespace declarations: a walker of its
                // own, writing on where the last one left off.
                var partWalker = XMLProseWalker(OpenDocumentExtractor.vocabulary)
                partWalker.output = walker.output
                var tokenizer = MarkupTokenizer(html: false, path: source.path)
                try zip.read(part) { chunk in try tokenizer.feed(chunk, &partWalker) }
                try tokenizer.finish(&partWalker)
                output.ignoredEntities += tokenizer.ignoredEntities
                walker = partWalker
            }
        }
        walker.finish()
        for target in [ProseTarget.body, .footnotes, .endnotes, .comments, .headersAndFooters] {
            output[target] = walker.output[target]
        }
    }
}
