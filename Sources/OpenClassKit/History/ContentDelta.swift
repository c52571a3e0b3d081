internal import CInflate
import Foundation

/// How one snapshot of a document's content is made from the one before it: a list of byte runs
/// copied from the earlier content and bytes inserted, stored deflated.
///
/// Made line by line, so that it takes linear time and memory whatever changed: each line of the
/// new content either goes on the run being copied, starts a copy of an equal line of the earlier
/// content, or is inserted. Text inserted where earlier text stood keeps what the two share at its
/// start and end as copies, so that a word added to a paragraph written as one long line costs
/// the word, not the paragraph. A keyframe is the delta of the content from nothing.
///
/// Any list of copies and insertions that rebuilds the content is right; ``applied(to:)`` checks
/// every copy against the earlier content's size, and the history keeps each snapshot's digest.
struct ContentDelta: Equatable {
    enum Operation: Equatable {
        /// Bytes of the earlier content, from an offset.
        case copy(offset: Int, count: Int)
        /// Bytes of the new content.
        case insert([UInt8])
    }

    var operations: [Operation]

    /// Lines shorter than this start no copy of their own (a blank line or a brace matches
    /// everywhere); they still extend a run being copied.
    private static let shortestAnchor = 8

    /// The delta that makes `target` from `base`.
    init(from base: [UInt8], to target: [UInt8]) {
        let baseLines = Self.lines(of: base)
        // The first place of each line long enough to start a copy.
        var firstLine: [LineKey: Int] = [:]
        for (index, line) in baseLines.enumerated() where line.count >= Self.shortestAnchor {
            let key = LineKey(base[line])
            if firstLine[key] == nil { firstLine[key] = index }
        }
        // Copies as base line ranges, insertions as target byte ranges, in target order.
        var pieces: [Piece] = []
        var nextBaseLine = -1
        for line in Self.lines(of: target) {
            let bytes = target[line]
            if nextBaseLine >= 0, nextBaseLine < baseLines.count, base[baseLines[nextBaseLine]].elementsEqual(bytes),
                case .copy(let lines)? = pieces.last
            {
                pieces[pieces.count - 1] = .copy(lines: lines.lowerBound..<(nextBaseLine + 1))
                nextBaseLine += 1
            } else if bytes.count >= Self.shortestAnchor, let match = firstLine[LineKey(bytes)] {
                pieces.append(.copy(lines: match..<(match + 1)))
                nextBaseLine = match + 1
            } else if case .insert(let run)? = pieces.last {
                pieces[pieces.count - 1] = .insert(run.lowerBound..<line.upperBound)
                nextBaseLine = -1
            } else {
                pieces.append(.insert(line))
                nextBaseLine = -1
            }
        }
        operations = Self.operations(of: pieces, base: base, baseLines: baseLines, target: target)
    }

    init(operations: [Operation]) {
        self.operations = operations
    }

    private enum Piece {
        case copy(lines: Range<Int>)
        case insert(Range<Int>)
    }

    /// Turns pieces into operations: copies become byte runs, and each insertion keeps as copies
    /// what it shares at its start and end with the earlier bytes it stands in place of.
    private static func operations(
        of pieces: [Piece], base: [UInt8], baseLines: [Range<Int>],
        target: [UInt8]
    ) -> [Operation] {
        func bytes(of lines: Range<Int>) -> Range<Int> {
            lines.isEmpty ? 0..<0 : baseLines[lines.lowerBound].lowerBound..<baseLines[lines.upperBound - 1].upperBound
        }
        var result: [Operation] = []
        func append(_ operation: Operation) {
            switch (result.last, operation) {
            case (_, .copy(_, 0)), (_, .insert([])): return
            case (.copy(let offset, let count)?, .copy(let next, let more)) where offset + count == next:
                result[result.count - 1] = .copy(offset: offset, count: count + more)
            case (.insert(let earlier)?, .insert(let later)):
                result[result.count - 1] = .insert(earlier + later)
            default:
                result.append(operation)
            }
        }
        for (index, piece) in pieces.enumerated() {
            switch piece {
            case .copy(let lines):
                let run = bytes(of: lines)
                append(.copy(offset: run.lowerBound, count: run.count))
            case .insert(let run):
                // The earlier bytes this insertion stands in place of: between the copies around it.
                var gapStart = 0, gapEnd = base.count
                if index > 0, case .copy(let lines) = pieces[index - 1] { gapStart = bytes(of: lines).upperBound }
                if index + 1 < pieces.count, case .copy(let lines) = pieces[index + 1] { gapEnd = bytes(of: lines).lowerBound }
                guard gapStart < gapEnd else {
                    append(.insert(Array(target[run])))
                    continue
                }
                let inserted = target[run], gap = base[gapStart..<gapEnd]
                let prefix = zip(inserted, gap).prefix { $0 == $1 }.count
                let suffix = zip(inserted.dropFirst(prefix).reversed(), gap.dropFirst(prefix).reversed()).prefix { $0 == $1 }.count
                append(.copy(offset: gapStart, count: prefix))
                append(.insert(Array(inserted[(run.lowerBound + prefix)..<(run.upperBound - suffix)])))
                append(.copy(offset: gapEnd - suffix, count: suffix))
            }
        }
        return result
    }

    /// The byte ranges of the lines of some content, each with its line feed.
    static func lines(of content: [UInt8]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        content.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                if buffer[index] == 0x0A {
                    result.append(start..<(index + 1))
                    start = index + 1
                }
                index += 1
            }
        }
        if start < content.count { result.append(start..<content.count) }
        return result
    }

    /// A line as a dictionary key: its bytes, hashed once.
    private struct LineKey: Hashable {
        let bytes: ArraySlice<UInt8>
        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes.elementsEqual(rhs.bytes) }
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    // MARK: Applying

    /// The content the delta makes from `base`, and the ranges of it that were inserted.
    /// - Throws: ``CLSError`` `.invalidArgument` when a copy reaches past the end of `base` (the
    ///   delta was made from other content), or the content would be larger than any snapshot
    ///   (``WritingHistory/largestSnapshot``): a delta from someone else's file may claim anything.
    func applied(to base: [UInt8]) throws -> (content: [UInt8], inserted: [Range<Int>]) {
        var content: [UInt8] = []
        var inserted: [Range<Int>] = []
        for operation in operations {
            let count: Int
            switch operation {
            case .copy(_, let copied): count = copied
            case .insert(let bytes): count = bytes.count
            }
            guard count <= WritingHistory.largestSnapshot - content.count else {
                throw CLSError(
                    .invalidArgument,
                    "a snapshot makes content of more than \(WritingHistory.largestSnapshot) bytes, more than any snapshot holds: it is damaged"
                )
            }
            switch operation {
            case .copy(let offset, let count):
                guard offset >= 0, count >= 0, offset <= base.count - count else {
                    throw CLSError(
                        .invalidArgument,
                        "a snapshot copies \(count) bytes from offset \(offset) of content that has \(base.count): it was made from other content"
                    )
                }
                content.append(contentsOf: base[offset..<(offset + count)])
            case .insert(let bytes):
                inserted.append(content.count..<(content.count + bytes.count))
                content.append(contentsOf: bytes)
            }
        }
        return (content, inserted)
    }

    // MARK: Encoding

    /// The operations as bytes (a tag, then varints: 0 count bytes inserts, 1 offset count
    /// copies), after a byte that says how they are kept: 0 as they are, 1 as raw DEFLATE after the
    /// varint of their size, whichever is smaller (a delta of a few words does not compress).
    func encoded() -> Data {
        var raw: [UInt8] = []
        for operation in operations {
            switch operation {
            case .insert(let bytes):
                raw.append(0)
                Self.appendVarint(bytes.count, to: &raw)
                raw.append(contentsOf: bytes)
            case .copy(let offset, let count):
                raw.append(1)
                Self.appendVarint(offset, to: &raw)
                Self.appendVarint(count, to: &raw)
            }
        }
        if let packed = Self.deflated(raw) {
            var result: [UInt8] = [1]
            Self.appendVarint(raw.count, to: &result)
            if result.count + packed.count < raw.count + 1 { return Data(result + packed) }
        }
        return Data([0] + raw)
    }

    /// The bytes as raw DEFLATE at level 9; nil when zlib fails (only without memory).
    private static func deflated(_ input: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard clsfile_deflate_init_raw(&stream, 9) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// Raw DEFLATE data inflated to exactly `size` bytes; nil when it is not that.
    private static func inflated(_ input: ArraySlice<UInt8>, size: Int) -> [UInt8]? {
        var stream = z_stream()
        guard clsfile_inflate_init_raw(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        // One byte more than expected, so that data that inflates to more is caught.
        var output = [UInt8](repeating: 0, count: size + 1)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == size else { return nil }
        return Array(output.prefix(size))
    }

    /// Reads what ``encoded()`` wrote.
    /// - Throws: ``CLSError`` `.invalidArgument` when the bytes are not a delta.
    init(decoding data: Data) throws {
        let bytes = [UInt8](data)
        guard let form = bytes.first else { throw Self.damaged("it is empty") }
        var position = 1
        let raw: [UInt8]
        switch form {
        case 0:
            raw = Array(bytes[1...])
        case 1:
            let size = try Self.readVarint(bytes, at: &position)
            // The operations of the largest snapshot, with room for their tags and numbers.
            guard size <= 2 * WritingHistory.largestSnapshot else { throw Self.damaged("it claims \(size) bytes") }
            guard let inflated = Self.inflated(bytes[position...], size: size) else { throw Self.damaged("it does not inflate") }
            raw = inflated
        default:
            throw Self.damaged("it is kept in form \(form)")
        }
        var operations: [Operation] = []
        position = 0
        while position < raw.count {
            let tag = raw[position]
            position += 1
            switch tag {
            case 0:
                let count = try Self.readVarint(raw, at: &position)
                guard count <= raw.count - position else { throw Self.damaged("an insertion runs past its end") }
                operations.append(.insert(Array(raw[position..<(position + count)])))
                position += count
            case 1:
                let offset = try Self.readVarint(raw, at: &position)
                operations.append(.copy(offset: offset, count: try Self.readVarint(raw, at: &position)))
            default:
                throw Self.damaged("an operation has tag \(tag)")
            }
        }
        self.operations = operations
    }

    private static func damaged(_ detail: String) -> CLSError {
        CLSError(
            .invalidArgument,
            "a content snapshot in the store is damaged (\(detail)); the history's figures are unaffected, but its text cannot be replayed past it"
        )
    }

    private static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private static func readVarint(_ bytes: [UInt8], at position: inout Int) throws -> Int {
        var value: UInt64 = 0, shift: UInt64 = 0
        while position < bytes.count, shift < 63 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            // At most nine groups of seven bits: never past Int.max.
            if byte & 0x80 == 0 { return Int(value) }
            shift += 7
        }
        throw damaged("a number is cut short")
    }
}
