#if canImport(Glibc)
internal import Glibc
#endif

/// Streams bytes in one character set to UTF-8, replacing invalid input with U+FFFD.
///
/// UTF-8 passes through untouched (the consumers repair invalid UTF-8 themselves); other sets go
/// through iconv with a carry for sequences split across chunks. A leading byte-order mark is dropped.
final class Transcoder {
    private let cd: iconv_t?
    private let unitSize: Int
    private var carry: [UInt8] = []
    private var output: UnsafeMutablePointer<CChar>
    private let outputCapacity: Int
    private var atStart = true
    private let charset: String

    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// The iconv name for one of the charsets reported by ``KindDetector``.
    static func iconvName(_ charset: String) -> String? {
        switch charset {
        case "utf-8", "us-ascii": return nil
        case "utf-16le": return "UTF-16LE"
        case "utf-16be": return "UTF-16BE"
        case "iso-8859-1": return "ISO-8859-1"
        case "windows-1252": return "CP1252"
        case "gb18030": return "GB18030"
        case "shift_jis": return "CP932"
        case "euc-kr": return "CP949"
        case "big5": return "CP950"
        default: return charset.uppercased()
        }
    }

    init(charset: String) {
        self.charset = charset
        if let name = Transcoder.iconvName(charset) {
            let handle = iconv_open("UTF-8", name)
            cd = (handle == iconv_t(bitPattern: -1)) ? iconv_open("UTF-8", "ISO-8859-1") : handle
        } else {
            cd = nil
        }
        unitSize = charset.hasPrefix("utf-16") ? 2 : 1
        outputCapacity = 4 * SafeFile.chunkSize + 64
        output = .allocate(capacity: outputCapacity)
    }

    deinit {
        if let cd { iconv_close(cd) }
        output.deallocate()
    }

    /// Converts a chunk and passes UTF-8 to `sink` (possibly in several pieces).
    func feed(_ bytes: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var bytes = bytes
        if atStart {
            atStart = false
            bytes = dropBOM(bytes)
        }
        guard let cd else {
            try sink(bytes)
            return
        }
        if carry.isEmpty {
            try convert(cd, bytes, final: false, sink)
        } else {
            // Join the carried partial sequence with the start of this chunk.
            let take = min(bytes.count, 8)
            var joined = carry
            joined.append(contentsOf: bytes.prefix(take))
            let carried = carry.count
            carry = []
            try joined.withUnsafeBytes { try convert(cd, $0, final: false, sink) }
            // Bytes of the head that were left over are now in `carry`; feed the rest after them.
            let leftover = carry
            carry = []
            _ = carried
            let consumedFromChunk = take - leftover.count
            if consumedFromChunk < 0 {
                carry = leftover
                return
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[(consumedFromChunk)...])
            try convert(cd, rest, final: false, sink)
        }
    }

    /// Flushes a trailing partial sequence as U+FFFD.
    func finish(_ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if !carry.isEmpty {
            carry = []
            try Transcoder.replacement.withUnsafeBytes { try sink($0) }
        }
    }

    /// Converts a whole buffer at once, for short runs of text.
    ///
    /// Each invalid byte becomes `replacement` in the output and is counted. A sequence cut off at
    /// the end counts as invalid when `truncatedEndIsInvalid`, else the conversion stops before it.
    /// - Returns: The converted bytes and the number of invalid bytes; nil when iconv does not know `name`.
    static func convertWhole(
        _ bytes: [UInt8], from name: String, to target: String, replacement: [UInt8],
        truncatedEndIsInvalid: Bool
    ) -> (output: [UInt8], invalid: Int)? {
        let cd = iconv_open(target, name)
        guard cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 8)
        var produced = 0, invalid = 0
        input.withUnsafeMutableBytes { inRaw in
            output.withUnsafeMutableBytes { outRaw in
                guard let inBase = inRaw.baseAddress, let outBase = outRaw.baseAddress else { return }
                var inPointer: UnsafeMutablePointer<CChar>? = inBase.assumingMemoryBound(to: CChar.self)
                var inLeft = inRaw.count
                var outPointer: UnsafeMutablePointer<CChar>? = outBase.assumingMemoryBound(to: CChar.self)
                var outLeft = outRaw.count
                while inLeft > 0, iconv(cd, &inPointer, &inLeft, &outPointer, &outLeft) == -1 {
                    guard errno == EILSEQ || (errno == EINVAL && truncatedEndIsInvalid),
                        outLeft >= replacement.count, let at = outPointer, let from = inPointer
                    else { break }
                    for (offset, byte) in replacement.enumerated() { at[offset] = CChar(bitPattern: byte) }
                    outPointer = at + replacement.count
                    outLeft -= replacement.count
                    inPointer = from + 1
                    inLeft -= 1
                    invalid += 1
                }
                produced = outRaw.count - outLeft
            }
        }
        return (Array(output.prefix(produced)), invalid)
    }

    private func dropBOM(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let b = Array(bytes.prefix(3))
        switch charset {
        case "utf-8" where b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
            return UnsafeRawBufferPointer(rebasing: bytes[3...])
        case "utf-16le" where b.count >= 2 && b[0] == 0xFF && b[1] == 0xFE,
            "utf-16be" where b.count >= 2 && b[0] == 0xFE && b[1] == 0xFF:
            return UnsafeRawBufferPointer(rebasing: bytes[2...])
        default:
            return bytes
        }
    }

    private func convert(
        _ cd: iconv_t, _ bytes: UnsafeRawBufferPointer, final: Bool,
        _ sink: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return }
        var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: start.assumingMemoryBound(to: CChar.self))
        var inLeft = bytes.count
        while inLeft > 0 {
            var outPtr: UnsafeMutablePointer<CChar>? = output
            var outLeft = outputCapacity
            let result = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
            let produced = outputCapacity - outLeft
            if produced > 0 { try sink(UnsafeRawBufferPointer(start: output, count: produced)) }
            if result != -1 { break }
            switch errno {
            case E2BIG:
                continue
            case EINVAL:
                // Incomplete sequence at the end: keep it for the next chunk.
                carry = Array(UnsafeRawBufferPointer(start: inPtr!, count: inLeft))
                return
            default:
                // EILSEQ: replace one code unit and go on.
                try Transcoder.replacement.withUnsafeBytes { try sink($0) }
                let skip = min(unitSize, inLeft)
                inPtr! += skip
                inLeft -= skip
            }
        }
    }
}
