/// Jupyter notebooks: markdown cells are prose (read with the Markdown rules), code cells count as
/// code lines, and code cells with a non-null `execution_count` count as executed.
///
/// The JSON is read as a stream (``NotebookReader``): outputs, often megabytes of images, pass by
/// unkept, and only one cell's source is held at a time, capped at
/// ``AnalysisOptions/maximumNotebookSize``.
struct NotebookExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var reader = NotebookReader(source)
        var markdown = MarkdownState()
        try reader.forEachCell { cell in
            switch cell.type {
            case "markdown":
                output.markdownCells += 1
                for line in cell.source.split(separator: 0x0A, omittingEmptySubsequences: false) {
                    markdown.line(Array(line), &output)
                }
                output[.body].paragraph()
                markdown.endBlock()
            case "code":
                output.codeCells += 1
                if cell.isExecuted { output.executedCells += 1 }
                output.codeLines +=
                    cell.source.split(separator: 0x0A).filter { line in
                        !String(decoding: line, as: UTF8.self).allSatisfy(\.isWhitespace)
                    }.count
            default:
                break
            }
        }
        output.isNotebook = true
    }
}

/// A pull parser for the parts of a notebook's JSON that count: the `cells` array, and in each cell
/// `cell_type`, `source` (a string or an array of strings) and `execution_count`. Everything else
/// is skipped without being kept, with an explicit depth count rather than recursion, so deep
/// nesting cannot exhaust the stack.
struct NotebookReader {
    struct Cell {
        var type = ""
        /// The source as UTF-8, lines joined as the notebook stores them.
        var source: [UInt8] = []
        var isExecuted = false
    }

    private let file: SafeFile
    private let path: String
    private let limit: Int64
    private let transcoder: Transcoder
    private var buffer: [UInt8] = []
    private var position = 0
    private var offset: Int64 = 0
    private var finished = false
    private static let blockSize = 64 * 1024

    init(_ source: DocumentSource) {
        file = source.file
        path = source.path
        limit = source.options.maximumNotebookSize
        transcoder = Transcoder(charset: source.kind.charset)
    }

    /// Calls `body` with each cell in order.
    mutating func forEachCell(_ body: (Cell) throws -> Void) throws {
        try expect(0x7B)
        var sawCells = false
        if try !consume(0x7D) {
            repeat {
                let key = try shortString()
                try expect(0x3A)
                if key == Array("cells".utf8), try peek() == 0x5B {
                    sawCells = true
                    try cells(body)
                } else {
                    try skipValue()
                }
            } while try consume(0x2C)
            try expect(0x7D)
        }
        guard sawCells else { throw malformed("no \"cells\" array") }
    }

    private mutating func cells(_ body: (Cell) throws -> Void) throws {
        try expect(0x5B)
        if try consume(0x5D) { return }
        repeat {
            guard try peek() == 0x7B else {
                try skipValue()
                continue
            }
            try body(try cell())
        } while try consume(0x2C)
        try expect(0x5D)
    }

    private mutating func cell() throws -> Cell {
        var cell = Cell()
        try expect(0x7B)
        if try consume(0x7D) { return cell }
        repeat {
            let key = String(decoding: try shortString(), as: UTF8.self)
            try expect(0x3A)
            switch (key, try peek()) {
            case ("cell_type", 0x22):
                cell.type = String(decoding: try shortString(), as: UTF8.self)
            case ("source", 0x22):
                cell.source = try string(limit: limit)
            case ("source", 0x5B):
                try expect(0x5B)
                if try !consume(0x5D) {
                    repeat {
                        guard try peek() == 0x22 else {
                            try skipValue()
                            continue
                        }
                        try string(appendingTo: &cell.source, limit: limit)
                    } while try consume(0x2C)
                    try expect(0x5D)
                }
            case ("execution_count", let first):
                cell.isExecuted = first != 0x6E // anything but null
                try skipValue()
            default:
                try skipValue()
            }
        } while try consume(0x2C)
        try expect(0x7D)
        return cell
    }

    // MARK: - Values

    /// A key or short value: kept up to 256 bytes, the rest read and dropped.
    private mutating func shortString() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try string(appendingTo: &bytes, limit: 256, truncating: true)
        return bytes
    }

    private mutating func string(limit: Int64) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try string(appendingTo: &bytes, limit: limit)
        return bytes
    }

    /// Decodes a string's escapes into UTF-8 (a lone surrogate becomes U+FFFD). Past `limit`
    /// bytes it throws, or with `truncating` drops the rest.
    private mutating func string(appendingTo bytes: inout [UInt8], limit: Int64, truncating: Bool = false) throws {
        try expect(0x22)
        var high: UInt32? = nil
        func append(_ scalar: UInt32, _ bytes: inout [UInt8]) {
            bytes.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
        }
        while true {
            guard let c = try next() else { throw malformed("unterminated string") }
            if c == 0x22 {
                if high != nil { append(0xFFFD, &bytes) }
                return
            }
            if Int64(bytes.count) >= limit {
                if truncating {
                    if c == 0x5C { _ = try next() }
                    continue
                }
                throw DetectorError.notebookCellTooLarge(path, limit: limit)
            }
            guard c == 0x5C else {
                if high != nil {
                    append(0xFFFD, &bytes)
                    high = nil
                }
                bytes.append(c)
                continue
            }
            guard let e = try next() else { throw malformed("unterminated string") }
            if e == 0x75 {
                let unit = try hex4()
                if let h = high, (0xDC00...0xDFFF).contains(unit) {
                    append(0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00), &bytes)
                    high = nil
                    continue
                }
                if high != nil {
                    append(0xFFFD, &bytes)
                    high = nil
                }
                if (0xD800...0xDBFF).contains(unit) { high = unit } else { append(unit, &bytes) }
                continue
            }
            if high != nil {
                append(0xFFFD, &bytes)
                high = nil
            }
            switch e {
            case 0x6E: bytes.append(0x0A)
            case 0x74: bytes.append(0x09)
            case 0x72: bytes.append(0x0D)
            case 0x62: bytes.append(0x08)
            case 0x66: bytes.append(0x0C)
            default: bytes.append(e) // \" \\ \/
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let c = try next(), let digit = UInt32(String(UnicodeScalar(c)), radix: 16) else { throw malformed("bad \\u escape") }
            value = value << 4 | digit
        }
        return value
    }

    /// Skips one value of any depth.
    private mutating func skipValue() throws {
        var depth = 0
        repeat {
            guard let c = try peek() else { throw malformed("unexpected end") }
            switch c {
            case 0x22:
                try skipString()
            case 0x7B, 0x5B:
                position += 1
                depth += 1
            case 0x7D, 0x5D:
                guard depth > 0 else { throw malformed("unexpected \(UnicodeScalar(c))") }
                position += 1
                depth -= 1
            case 0x2C, 0x3A:
                guard depth > 0 else { throw malformed("unexpected \(UnicodeScalar(c))") }
                position += 1
            default:
                // A number, true, false or null: up to the next delimiter.
                while let d = try peekRaw(), d != 0x2C, d != 0x7D, d != 0x5D, d != 0x3A, d != 0x22, d != 0x7B, d != 0x5B,
                    d != 0x20, d != 0x0A, d != 0x0D, d != 0x09
                {
                    position += 1
                }
            }
        } while depth > 0
    }

    /// Skips a string, scanning the buffer directly: outputs hold most of a notebook's bytes.
    private mutating func skipString() throws {
        try expect(0x22)
        while true {
            if position == buffer.count {
                try refill()
                if buffer.isEmpty { throw malformed("unterminated string") }
            }
            let c = buffer[position]
            position += 1
            if c == 0x22 { return }
            if c == 0x5C {
                guard try next() != nil else { throw malformed("unterminated string") }
            }
        }
    }

    // MARK: - Bytes

    /// The next byte other than white space, not consumed.
    private mutating func peek() throws -> UInt8? {
        while let c = try peekRaw() {
            if c != 0x20 && c != 0x0A && c != 0x0D && c != 0x09 { return c }
            position += 1
        }
        return nil
    }

    private mutating func peekRaw() throws -> UInt8? {
        if position == buffer.count { try refill() }
        return position < buffer.count ? buffer[position] : nil
    }

    private mutating func next() throws -> UInt8? {
        guard let c = try peekRaw() else { return nil }
        position += 1
        return c
    }

    /// Consumes `c` (after white space) if it is next.
    private mutating func consume(_ c: UInt8) throws -> Bool {
        guard try peek() == c else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ c: UInt8) throws {
        guard try consume(c) else { throw malformed("expected \"\(UnicodeScalar(c))\"") }
    }

    private mutating func refill() throws {
        buffer.removeAll(keepingCapacity: true)
        position = 0
        while buffer.isEmpty && !finished {
            let raw = try file.bytes(at: offset, count: NotebookReader.blockSize)
            offset += Int64(raw.count)
            if raw.isEmpty {
                finished = true
                transcoder.finish { buffer.append(contentsOf: $0) }
            } else {
                raw.withUnsafeBytes { transcoder.feed($0) { buffer.append(contentsOf: $0) } }
            }
        }
    }

    private func malformed(_ detail: String) -> DetectorError {
        DetectorError.malformed(path, "not a notebook: \(detail)")
    }
}
