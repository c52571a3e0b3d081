/// Office Open XML documents: body from `word/document.xml`; footnotes, endnotes, comments and
/// headers and footers (`word/header*.xml`, `word/footer*.xml`) from their parts, reported apart,
/// as Word's own count leaves them out of the body. Deleted and moved-from revisions and fallback
/// copies are excluded.
struct DocxExtractor: TextExtractor {
    static let w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    static let mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"

    static let vocabulary = XMLProseWalker.Vocabulary(
        namespaces: [w: "w", mc: "mc"],
        rules: [
            (w, "t", .run), (w, "p", .paragraph), (w, "tab", .separator), (w, "br", .separator), (w, "cr", .separator),
            (w, "noBreakHyphen", .literal("-")), (w, "del", .skipped), (w, "moveFrom", .skipped), (mc, "Fallback", .skipped)
        ],
        textOnlyInRuns: true, needsBody: false, collapsesWhitespace: false)

    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        let zip = try source.zipContainer()
        var parts: [(String, ProseTarget)] = [("word/document.xml", .body)]
        if !source.options.measuresBodyOnly {
            parts += [("word/footnotes.xml", .footnotes), ("word/endnotes.xml", .endnotes), ("word/comments.xml", .comments)]
            parts += DocxExtractor.headerAndFooterParts(zip.items.names).map { ($0, .headersAndFooters) }
        }
        for (part, target) in parts where zip.contains(part) || part == "word/document.xml" {
            var walker = XMLProseWalker(DocxExtractor.vocabulary, target: target)
            // Several header and footer parts add up in one writer.
            walker.output[target] = output[target]
            var tokenizer = MarkupTokenizer(html: false, path: source.path)
            try zip.read(part) { chunk in try tokenizer.feed(chunk, &walker) }
            try tokenizer.finish(&walker)
            output.ignoredEntities += tokenizer.ignoredEntities
            walker.output[target].paragraph()
            output[target] = walker.output[target]
        }
    }

    /// `word/header1.xml`, `word/footer2.xml`, …, in number order.
    static func headerAndFooterParts<S: Sequence>(_ names: S) -> [String] where S.Element == String {
        names.filter { name in
            guard name.hasPrefix("word/"), name.hasSuffix(".xml") else { return false }
            let stem = name.dropFirst(5).dropLast(4)
            for kind in ["header", "footer"] where stem.hasPrefix(kind) {
                return stem.dropFirst(kind.count).allSatisfy { $0.isASCIIDigit }
            }
            return false
        }
        .sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
    }
}

/// Qualified names resolved against the prefixes a document declares on its root element.
struct QualifiedNames {
    /// Pairs searched in order, not hashed: a root element declares tens of namespaces, and a
    /// dictionary keyed by strings has the runtime scan the binary's conformance records on its
    /// first use in a process (about 0.1 ms of a `clsfile stats`).
    private var prefixes: [(uri: String, prefix: String)] = []

    init(root attributes: UnsafeRawBufferPointer, defaults: KeyValuePairs<String, String>) {
        let declared = MarkupTokenizer.namespaces(in: attributes)
        for (uri, fallback) in defaults {
            prefixes.append((uri, declared.last { $0.uri == uri }?.prefix ?? fallback))
        }
    }

    func name(_ uri: String, _ local: String) -> [UInt8] {
        Array("\(prefixes.first { $0.uri == uri }?.prefix ?? ""):\(local)".utf8)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
