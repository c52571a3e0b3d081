#if canImport(Glibc)
internal import Glibc
#endif

/// Rich Text Format: a streaming control-word parser. Font, colour and style tables, pictures,
/// headers, footers, field instructions and ignorable destinations are skipped; `\footnote` goes to
/// footnotes (`\ftnalt` to endnotes) and `\annotation` to comments; text marked `\deleted` (a
/// tracked deletion) is excluded; `\'hh` bytes are decoded with the document's `\ansicpg` code
/// page and `\uN` with its `\ucN` fallback count.
struct RTFExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var parser = RTFParser()
        try source.file.forEachChunk { chunk in parser.feed(chunk) }
        parser.finish()
        for target in [ProseTarget.body, .footnotes, .endnotes, .comments] {
            parser.output[target].paragraph()
            output[target].counter = parser.output[target].counter
        }
    }
}

struct RTFParser {
    private struct Group {
        var skip = false
        /// Inside a tracked deletion (`\deleted`, a character property: it ends with its group,
        /// `\deleted0` or `\plain`).
        var deleted = false
        var target = ProseTarget.body
        var fallbackCount = 1
    }

    var output = ExtractionOutput()
    private var stack: [Group] = [Group()]
    private var state = 0 // 0 text, 1 after backslash, 2 control word, 3 parameter, 4 hex digit 1, 5 hex digit 2
    private var word: [UInt8] = []
    private var parameter: [UInt8] = []
    private var hex: UInt8 = 0
    private var pendingBytes: [UInt8] = []
    private var skipFallback = 0
    private var codePage = 1252
    private var text: [UInt8] = []
    private var destinationStart = false // just after "{": the next control word may be a destination
    private static let skippedDestinations: Set<String> = [
        "fonttbl", "colortbl", "stylesheet", "info", "pict", "object", "header", "footer", "headerl", "headerr",
        "headerf", "footerl", "footerr", "footerf", "listtable", "listoverridetable", "rsidtbl", "generator",
        "xmlnstbl", "themedata", "colorschememapping", "datastore", "latentstyles", "fldinst", "pgdsctbl",
        "revtbl", "filetbl", "bkmkstart", "bkmkend", "atnid", "atnauthor", "atndate", "atnref", "nonshppict",
        "shppict", "mmathPr", "xe", "tc", "template", "userprops", "docvar", "operator", "author", "title"
    ]

    private var current: Group {
        get { stack[stack.count - 1] }
        set { stack[stack.count - 1] = newValue }
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        for c in chunk { byte(c) }
        flushText()
    }

    mutating func finish() {
        flushBytes()
        flushText()
    }

    private mutating func emit(_ bytes: [UInt8]) {
        // A `\uN` fallback character is used up even where text is not kept.
        if skipFallback > 0 {
            skipFallback -= 1
            return
        }
        if current.skip || current.deleted { return }
        text.append(contentsOf: bytes)
    }

    private mutating func flushText() {
        guard !text.isEmpty else { return }
        let target = current.target
        text.withUnsafeBytes { output[target].exact($0) }
        text.removeAll(keepingCapacity: true)
    }

    private mutating func flushBytes() {
        guard !pendingBytes.isEmpty else { return }
        let bytes = pendingBytes
        pendingBytes.removeAll()
        if current.skip { return }
        let decoded = RTFParser.decode(bytes, codePage: codePage)
        text.append(contentsOf: decoded)
    }

    /// Decodes a run of `\'hh` bytes in the document's code page; an unknown code page is read as UTF-8.
    static func decode(_ bytes: [UInt8], codePage: Int) -> [UInt8] {
        Transcoder.convertWhole(
            bytes, from: "CP\(codePage)", to: "UTF-8", replacement: Transcoder.replacement,
            truncatedEndIsInvalid: true)?.output
            ?? Array(String(decoding: bytes, as: UTF8.self).utf8)
    }

    private mutating func byte(_ c: UInt8) {
        switch state {
        case 0:
            switch c {
            case 0x5C: state = 1
            case 0x7B:
                flushBytes()
                flushText()
                stack.append(current)
                if stack.count > 10_000 { stack.removeLast() }
                destinationStart = true
            case 0x7D:
                flushBytes()
                flushText()
                if stack.count > 1 { stack.removeLast() }
                destinationStart = false
            case 0x0A, 0x0D: break
            default:
                flushBytes()
                destinationStart = false
                emit([c])
            }
        case 1:
            if (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) {
                word = [c]
                parameter = []
                state = 2
            } else if c == 0x27 {
                state = 4
            } else {
                state = 0
                controlSymbol(c)
            }
        case 2:
            if (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) {
                if word.count < 64 { word.append(c) }
            } else if c == 0x2D || (c >= 0x30 && c <= 0x39) {
                parameter = [c]
                state = 3
            } else {
                state = 0
                controlWord()
                if c != 0x20 { byte(c) }
            }
        case 3:
            if c >= 0x30 && c <= 0x39 {
                if parameter.count < 12 { parameter.append(c) }
            } else {
                state = 0
                controlWord()
                if c != 0x20 { byte(c) }
            }
        case 4:
            hex = RTFParser.hexValue(c) << 4
            state = 5
        default:
            hex |= RTFParser.hexValue(c)
            state = 0
            destinationStart = false
            if skipFallback > 0 { skipFallback -= 1 } else if !current.skip && !current.deleted { pendingBytes.append(hex) }
        }
    }

    private static func hexValue(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return 0
        }
    }

    private mutating func controlSymbol(_ c: UInt8) {
        flushBytes()
        switch c {
        case 0x2A: current.skip = true // \* ignorable destination
        case 0x7E: emit([0x20]) // non-breaking space: a separator here
        case 0x5F: emit([0x2D])
        case 0x5C, 0x7B, 0x7D: emit([c])
        case 0x0A, 0x0D:
            flushText()
            output[current.target].paragraph()
        default: break
        }
        if c != 0x2A { destinationStart = false }
    }

    private mutating func controlWord() {
        let name = String(decoding: word, as: UTF8.self)
        // RTF's numeric parameters are signed 16-bit numbers (Word writes 32-bit ones); a longer
        // one is damage, read as no parameter.
        let value = Int32(String(decoding: parameter, as: UTF8.self)).map(Int.init)
        let atStart = destinationStart
        destinationStart = false
        if name != "u" { flushBytes() }
        if atStart && RTFParser.skippedDestinations.contains(name) {
            current.skip = true
            return
        }
        switch name {
        case "ansicpg": codePage = value ?? 1252
        case "uc": current.fallbackCount = max(0, value ?? 1)
        case "deleted":
            flushText()
            current.deleted = (value ?? 1) != 0
        case "plain":
            flushText()
            current.deleted = false
        case "u":
            flushBytes()
            var v = value ?? 0x3F
            if v < 0 { v += 65536 }
            if let code = UInt32(exactly: v), let s = Unicode.Scalar(code) { emit(Array(String(Character(s)).utf8)) }
            skipFallback = current.fallbackCount
        case "par", "sect", "page", "row":
            flushText()
            if !current.skip { output[current.target].paragraph() }
        case "line", "tab", "cell": emit([0x20])
        case "emdash": emit([0xE2, 0x80, 0x94])
        case "endash": emit([0xE2, 0x80, 0x93])
        case "lquote": emit([0xE2, 0x80, 0x98])
        case "rquote": emit([0xE2, 0x80, 0x99])
        case "ldblquote": emit([0xE2, 0x80, 0x9C])
        case "rdblquote": emit([0xE2, 0x80, 0x9D])
        case "bullet": emit([0xE2, 0x80, 0xA2])
        case "footnote":
            flushText()
            current.target = .footnotes
        case "ftnalt":
            if current.target == .footnotes { current.target = .endnotes }
        case "annotation":
            flushText()
            current.skip = false // arrives as the ignorable destination {\*\annotation …}
            current.target = .comments
        default: break
        }
    }
}
