/// EPUB: the package document named by `META-INF/container.xml` gives the spine; each spine item
/// is read in order as XHTML into the body.
struct EPUBExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        let zip = try source.zipContainer()
        var container = AttributeCollector(element: "rootfile", attributes: ["full-path"])
        try parse(zip, "META-INF/container.xml", &container, path: source.path)
        guard let opfPath = container.found.first?["full-path"] else {
            throw DetectorError.malformed(source.path, "META-INF/container.xml names no package document")
        }
        var manifest = AttributeCollector(element: "item", attributes: ["id", "href"])
        try parse(zip, opfPath, &manifest, path: source.path)
        var spine = AttributeCollector(element: "itemref", attributes: ["idref"])
        try parse(zip, opfPath, &spine, path: source.path)
        var hrefs: [String: String] = [:]
        for item in manifest.found { if let id = item["id"], let href = item["href"] { hrefs[id] = href } }
        // The folder of the package document, against which its hrefs are resolved.
        let base = opfPath.lastIndex(of: "/").map { String(opfPath[..<$0]) } ?? ""
        var handler = HTMLHandler()
        for ref in spine.found {
            guard let id = ref["idref"], let href = hrefs[id] else { continue }
            let withoutFragment = String(href.prefix { $0 != "#" })
            let decoded = Self.percentDecoded(withoutFragment) ?? withoutFragment
            let full = EPUBExtractor.normalize(base.isEmpty ? decoded : base + "/" + decoded)
            guard zip.contains(full) else { continue }
            var tokenizer = MarkupTokenizer(html: true, path: source.path)
            try zip.read(full) { chunk in try tokenizer.feed(chunk, &handler) }
            try tokenizer.finish(&handler)
            output.ignoredEntities += tokenizer.ignoredEntities
            handler.writer.paragraph()
        }
        output[.body].counter = handler.writer.counter
    }

    private func parse(_ zip: ZipContainer, _ name: String, _ handler: inout AttributeCollector, path: String) throws {
        guard zip.contains(name) else { throw DetectorError.malformed(path, "missing \(name)") }
        var tokenizer = MarkupTokenizer(html: false, path: path)
        try zip.read(name) { chunk in try tokenizer.feed(chunk, &handler) }
        try tokenizer.finish(&handler)
    }

    /// A URL reference with its `%XX` escapes decoded; nil when an escape is malformed or the
    /// bytes it gives are not UTF-8 (the reference is then looked up as written).
    static func percentDecoded(_ reference: String) -> String? {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let encoded = Array(reference.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = 0
        while index < encoded.count {
            guard encoded[index] == UInt8(ascii: "%") else {
                bytes.append(encoded[index])
                index += 1
                continue
            }
            guard index + 2 < encoded.count, let high = hex(encoded[index + 1]), let low = hex(encoded[index + 2]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 3
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return parts.joined(separator: "/")
    }
}

/// Collects chosen attributes of every element with a given local name.
struct AttributeCollector: MarkupHandler {
    let element: String
    let attributes: [String]
    var found: [[String: String]] = []

    init(element: String, attributes: [String]) {
        self.element = element
        self.attributes = attributes
    }

    mutating func start(_ name: UnsafeRawBufferPointer, attributes raw: UnsafeRawBufferPointer, selfClosing: Bool) throws {
        let qualified = String(decoding: name, as: UTF8.self)
        let local = qualified.split(separator: ":").last.map(String.init) ?? qualified
        guard local == element, found.count < 100_000 else { return }
        var values: [String: String] = [:]
        for a in attributes { values[a] = MarkupTokenizer.attribute(a, in: raw) }
        found.append(values)
    }

    mutating func end(_ name: UnsafeRawBufferPointer) throws {}
    mutating func text(_ bytes: UnsafeRawBufferPointer) throws {}
}
