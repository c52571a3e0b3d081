/// HTML and XHTML: `head`, `title`, `script`, `style` and `template` are excluded, entities are
/// decoded, whitespace collapses as a browser shows it, and block elements end paragraphs.
struct HTMLExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var handler = HTMLHandler()
        var tokenizer = MarkupTokenizer(html: true, path: source.path)
        try source.forEachUTF8Chunk { chunk in try tokenizer.feed(chunk, &handler) }
        try tokenizer.finish(&handler)
        handler.writer.paragraph()
        output[.body].counter = handler.writer.counter
        output.ignoredEntities += tokenizer.ignoredEntities
    }
}

struct HTMLHandler: MarkupHandler {
    var writer = ProseWriter()
    private var skipDepth = 0
    private var inHead = false

    private static let skipped: Set<String> = ["script", "style", "template", "title", "noembed", "iframe", "object"]
    private static let blocks: Set<String> = [
        "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
        "table", "caption", "blockquote", "pre", "section", "article", "header", "footer", "aside", "nav", "main",
        "figure", "figcaption", "address", "hr", "body", "html", "form", "fieldset", "legend", "details", "summary"
    ]

    private static func localName(_ name: UnsafeRawBufferPointer) -> String {
        let s = String(decoding: name, as: UTF8.self)
        if let colon = s.lastIndex(of: ":") { return String(s[s.index(after: colon)...]).lowercased() }
        return s.lowercased()
    }

    mutating func start(_ name: UnsafeRawBufferPointer, attributes: UnsafeRawBufferPointer, selfClosing: Bool) throws {
        let local = HTMLHandler.localName(name)
        if local == "head" {
            inHead = !selfClosing
            return
        }
        if local == "body" { inHead = false }
        if HTMLHandler.skipped.contains(local) {
            if !selfClosing { skipDepth += 1 }
            return
        }
        if local == "br" {
            writer.space()
        } else if HTMLHandler.blocks.contains(local) {
            writer.paragraph()
        }
    }

    mutating func end(_ name: UnsafeRawBufferPointer) throws {
        let local = HTMLHandler.localName(name)
        if local == "head" {
            inHead = false
            return
        }
        if HTMLHandler.skipped.contains(local) {
            skipDepth = max(0, skipDepth - 1)
            return
        }
        if HTMLHandler.blocks.contains(local) { writer.paragraph() }
    }

    mutating func text(_ bytes: UnsafeRawBufferPointer) throws {
        if skipDepth == 0 && !inHead { writer.collapsed(bytes) }
    }
}
