import Foundation

/// OpenDocument text, zipped (`content.xml` of an ODT) or flat (`.fodt`). Only `office:body` counts;
/// footnotes, endnotes and annotations are reported apart; tracked deletions are excluded.
struct OpenDocumentExtractor: TextExtractor {
    let flat: Bool

    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var handler = OpenDocumentHandler()
        var tokenizer = MarkupTokenizer(html: false, path: source.path)
        if flat {
            try source.forEachUTF8Chunk { chunk in try tokenizer.feed(chunk, &handler) }
        } else {
            let zip = try ZipContainer(url: source.url, limits: source.options.zipLimits)
            try zip.read("content.xml") { chunk in try tokenizer.feed(chunk, &handler) }
        }
        try tokenizer.finish(&handler)
        for target in [ProseTarget.body, .footnotes, .endnotes, .comments] {
            handler.output[target].paragraph()
            output[target].counter = handler.output[target].counter
        }
    }
}

struct OpenDocumentHandler: MarkupHandler {
    static let text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    static let office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    static let dc = "http://purl.org/dc/elements/1.1/"
    static let meta = "urn:oasis:names:tc:opendocument:xmlns:meta:1.0"
    static let svg = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"

    var output = ExtractionOutput()
    private var ready = false
    private var body: [UInt8] = [], p: [UInt8] = [], h: [UInt8] = [], s: [UInt8] = [], tab: [UInt8] = []
    private var lineBreak: [UInt8] = [], note: [UInt8] = [], citation: [UInt8] = [], annotation: [UInt8] = []
    private var skipped: [[UInt8]] = []
    private var noteClassAttribute = ""
    private var bodyDepth = 0
    private var skipDepth = 0
    private var targets: [ProseTarget] = [.body]

    private mutating func setUp(_ attributes: UnsafeRawBufferPointer) {
        let names = QualifiedNames(root: attributes, defaults: [Self.text: "text", Self.office: "office", Self.dc: "dc", Self.meta: "meta", Self.svg: "svg"])
        body = names.name(Self.office, "body")
        p = names.name(Self.text, "p")
        h = names.name(Self.text, "h")
        s = names.name(Self.text, "s")
        tab = names.name(Self.text, "tab")
        lineBreak = names.name(Self.text, "line-break")
        note = names.name(Self.text, "note")
        citation = names.name(Self.text, "note-citation")
        annotation = names.name(Self.office, "annotation")
        skipped = [citation, names.name(Self.text, "tracked-changes"), names.name(Self.dc, "creator"), names.name(Self.dc, "date"),
                   names.name(Self.meta, "date-string"), names.name(Self.svg, "title"), names.name(Self.svg, "desc")]
        noteClassAttribute = String(decoding: names.name(Self.text, "note-class"), as: UTF8.self)
        ready = true
    }

    private func isSkipped(_ name: UnsafeRawBufferPointer) -> Bool {
        skipped.contains { MarkupTokenizer.equals(name, $0) }
    }

    mutating func start(_ name: UnsafeRawBufferPointer, attributes: UnsafeRawBufferPointer, selfClosing: Bool) throws {
        if !ready { setUp(attributes) }
        if MarkupTokenizer.equals(name, body) { bodyDepth += 1; return }
        guard bodyDepth > 0 else { return }
        if isSkipped(name) { if !selfClosing { skipDepth += 1 }; return }
        guard skipDepth == 0 else { return }
        let target = targets.last ?? .body
        if MarkupTokenizer.equals(name, s) || MarkupTokenizer.equals(name, tab) || MarkupTokenizer.equals(name, lineBreak) {
            output[target].space()
        } else if MarkupTokenizer.equals(name, note) {
            let kind = MarkupTokenizer.attribute(noteClassAttribute, in: attributes)
            targets.append(kind == "endnote" ? .endnotes : .footnotes)
        } else if MarkupTokenizer.equals(name, annotation) {
            targets.append(.comments)
        }
    }

    mutating func end(_ name: UnsafeRawBufferPointer) throws {
        if MarkupTokenizer.equals(name, body) { bodyDepth -= 1; return }
        guard bodyDepth > 0 else { return }
        if isSkipped(name) { skipDepth = max(0, skipDepth - 1); return }
        guard skipDepth == 0 else { return }
        if MarkupTokenizer.equals(name, p) || MarkupTokenizer.equals(name, h) {
            output[targets.last ?? .body].paragraph()
        } else if MarkupTokenizer.equals(name, note) || MarkupTokenizer.equals(name, annotation) {
            if targets.count > 1 { targets.removeLast() }
        }
    }

    mutating func text(_ bytes: UnsafeRawBufferPointer) throws {
        if bodyDepth > 0 && skipDepth == 0 { output[targets.last ?? .body].collapsed(bytes) }
    }
}
