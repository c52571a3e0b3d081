import Foundation

/// Office Open XML documents: body from `word/document.xml`; footnotes, endnotes and comments from
/// their parts, reported apart. Deleted and moved-from revisions and fallback copies are excluded.
struct DocxExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        let zip = try ZipContainer(url: source.url, limits: source.options.zipLimits)
        let parts: [(String, ProseTarget)] = [
            ("word/document.xml", .body), ("word/footnotes.xml", .footnotes),
            ("word/endnotes.xml", .endnotes), ("word/comments.xml", .comments),
        ]
        for (part, target) in parts where zip.contains(part) || part == "word/document.xml" {
            var handler = WordprocessingHandler()
            var tokenizer = MarkupTokenizer(html: false, path: source.path)
            try zip.read(part) { chunk in try tokenizer.feed(chunk, &handler) }
            try tokenizer.finish(&handler)
            handler.writer.paragraph()
            output[target].counter = handler.writer.counter
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

struct WordprocessingHandler: MarkupHandler {
    static let w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    static let mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    var writer = ProseWriter()
    private var ready = false
    private var t: [UInt8] = [], p: [UInt8] = [], tab: [UInt8] = [], br: [UInt8] = [], cr: [UInt8] = []
    private var del: [UInt8] = [], moveFrom: [UInt8] = [], fallback: [UInt8] = [], hyphen: [UInt8] = []
    private var inText = false
    private var skipDepth = 0

    private mutating func setUp(_ attributes: UnsafeRawBufferPointer) {
        let names = QualifiedNames(root: attributes, defaults: [Self.w: "w", Self.mc: "mc"])
        t = names.name(Self.w, "t")
        p = names.name(Self.w, "p")
        tab = names.name(Self.w, "tab")
        br = names.name(Self.w, "br")
        cr = names.name(Self.w, "cr")
        del = names.name(Self.w, "del")
        moveFrom = names.name(Self.w, "moveFrom")
        hyphen = names.name(Self.w, "noBreakHyphen")
        fallback = names.name(Self.mc, "Fallback")
        ready = true
    }

    mutating func start(_ name: UnsafeRawBufferPointer, attributes: UnsafeRawBufferPointer, selfClosing: Bool) throws {
        if !ready { setUp(attributes) }
        if MarkupTokenizer.equals(name, del) || MarkupTokenizer.equals(name, moveFrom) || MarkupTokenizer.equals(name, fallback) {
            if !selfClosing { skipDepth += 1 }
            return
        }
        guard skipDepth == 0 else { return }
        if MarkupTokenizer.equals(name, t) {
            inText = !selfClosing
        } else if MarkupTokenizer.equals(name, tab) || MarkupTokenizer.equals(name, br) || MarkupTokenizer.equals(name, cr) {
            writer.space()
        } else if MarkupTokenizer.equals(name, hyphen) {
            writer.text("-")
        }
    }

    mutating func end(_ name: UnsafeRawBufferPointer) throws {
        if MarkupTokenizer.equals(name, del) || MarkupTokenizer.equals(name, moveFrom) || MarkupTokenizer.equals(name, fallback) {
            skipDepth = max(0, skipDepth - 1)
            return
        }
        if MarkupTokenizer.equals(name, t) {
            inText = false
        } else if skipDepth == 0 && MarkupTokenizer.equals(name, p) {
            writer.paragraph()
        }
    }

    mutating func text(_ bytes: UnsafeRawBufferPointer) throws {
        if inText && skipDepth == 0 { writer.exact(bytes) }
    }
}
