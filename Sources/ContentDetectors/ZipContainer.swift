internal import CInflate

/// Limits applied when expanding ZIP-based documents.
public struct ZipLimits: Sendable, Hashable {
    /// Largest decompressed size of one entry, in bytes.
    public var maximumEntrySize: Int64
    /// Largest decompressed size of all entries read from one file, in bytes.
    public var maximumTotalSize: Int64
    /// Largest ratio of decompressed to compressed size, checked for entries above 1 MiB.
    public var maximumRatio: Double

    /// Creates limits; the defaults are 256 MiB per entry, 512 MiB in all and a ratio of 100.
    public init(maximumEntrySize: Int64 = 256 << 20, maximumTotalSize: Int64 = 512 << 20, maximumRatio: Double = 100) {
        self.maximumEntrySize = maximumEntrySize
        self.maximumTotalSize = maximumTotalSize
        self.maximumRatio = maximumRatio
    }
}

/// A ZIP container read through its central directory, with bomb and encryption checks.
///
/// The central directory is parsed here (names, flags, methods, sizes, offsets) so that encrypted
/// entries and declared ratios are refused before anything is inflated. Entries are read from the
/// already opened ``SafeFile`` and inflated with zlib as they stream, and the bytes produced are
/// counted against the limits as they come. (ZIPFoundation did the inflating before: it opened
/// the file again and parsed the directory once more, and its generic extraction path made the
/// runtime build types from their mangled names, about 0.4 ms of every `clsfile stats` on a
/// document, a tenth of the process.)
final class ZipContainer {
    /// One entry of the central directory.
    struct Item {
        let name: String
        /// 0 stored, 8 deflated; other methods are refused when read.
        let method: Int
        let compressedSize: UInt64
        let uncompressedSize: UInt64
        /// Where the entry's local header starts.
        let localHeaderOffset: UInt64
        let encrypted: Bool
    }

    /// An archive's central directory: its entries in the order it lists them.
    ///
    /// Searched by bisection over the entries sorted by name rather than hashed: a dictionary
    /// keyed by name, on its first use in a process, has the runtime look up a conformance among
    /// all the binary's records (about 0.1 ms of a `clsfile stats`), and a scan in order would let
    /// a hostile archive of 50,000 entries, read part by part, cost billions of comparisons.
    struct Directory {
        let entries: [Item]
        /// Indices of `entries`, by name, then by position.
        private let byName: [Int]

        init(entries: [Item]) {
            self.entries = entries
            byName = entries.indices.sorted { a, b in
                entries[a].name != entries[b].name ? entries[a].name < entries[b].name : a < b
            }
        }

        /// The entry named `name`; the last one when the name repeats.
        subscript(name: String) -> Item? {
            // The first position past every entry named `name` or before it.
            var low = 0, high = byName.count
            while low < high {
                let middle = (low + high) / 2
                if entries[byName[middle]].name <= name { low = middle + 1 } else { high = middle }
            }
            guard low > 0, entries[byName[low - 1]].name == name else { return nil }
            return entries[byName[low - 1]]
        }

        /// The entries' names, in order.
        var names: [String] { entries.map { $0.name } }
    }

    let path: String
    let items: Directory
    private let file: SafeFile
    private let limits: ZipLimits
    private var expanded: Int64 = 0

    /// Opens the container in `file`, reading its central directory unless `items` were read already.
    init(file: SafeFile, items: Directory? = nil, limits: ZipLimits) throws {
        path = file.path
        self.file = file
        self.limits = limits
        self.items = try items ?? ZipContainer.readCentralDirectory(of: file)
    }

    func contains(_ name: String) -> Bool { items[name] != nil }

    /// Streams an entry's decompressed bytes through `body`, enforcing the limits.
    func read(_ name: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let item = items[name] else { throw DetectorError.malformed(path, "missing entry \(name)") }
        if item.encrypted { throw DetectorError.encrypted(path, entry: name) }
        if Int64(clamping: item.uncompressedSize) > limits.maximumEntrySize {
            throw DetectorError.decompressionLimit(
                path, entry: name, detail: "declares \(item.uncompressedSize) bytes, above the \(limits.maximumEntrySize)-byte limit")
        }
        if item.uncompressedSize > 1 << 20 {
            let ratio = Double(item.uncompressedSize) / Double(max(item.compressedSize, 1))
            if ratio > limits.maximumRatio {
                throw DetectorError.decompressionLimit(
                    path, entry: name, detail: "expands \(Int(ratio)) times, above the ratio limit of \(Int(limits.maximumRatio))")
            }
        }
        let data = try dataRange(of: item)
        var produced: Int64 = 0
        let declared = Int64(clamping: item.uncompressedSize)
        func deliver(_ bytes: UnsafeRawBufferPointer) throws {
            produced += Int64(bytes.count)
            expanded += Int64(bytes.count)
            if produced > declared || produced > limits.maximumEntrySize || expanded > limits.maximumTotalSize {
                throw DetectorError.decompressionLimit(path, entry: name, detail: "expands beyond its declared size or the total limit")
            }
            try body(bytes)
        }
        switch item.method {
        case 0: try file.forEachChunk(in: data, deliver)
        case 8: try inflate(data, entry: name, deliver)
        default:
            throw DetectorError.corruptArchive(
                path, "entry \(name) uses compression method \(item.method); only stored and deflated entries can be read")
        }
        if produced != declared {
            throw DetectorError.corruptArchive(
                path, "entry \(name) gives \(produced) bytes but its directory says \(declared); the file is damaged")
        }
    }

    /// Reads a small entry whole (at most `limit` bytes).
    func readSmall(_ name: String, limit: Int = 4 << 20) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try read(name) { chunk in
            if bytes.count + chunk.count > limit {
                throw DetectorError.malformed(path, "entry \(name) is larger than \(limit) bytes")
            }
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }

    /// Where an entry's compressed bytes lie, past its local header.
    private func dataRange(of item: Item) throws -> Range<Int64> {
        let header = try file.bytes(at: Int64(item.localHeaderOffset), count: 30)
        guard header.count == 30, header.starts(with: [0x50, 0x4B, 0x03, 0x04]) else {
            throw DetectorError.corruptArchive(path, "the local header of entry \(item.name) is damaged")
        }
        let start = Int64(item.localHeaderOffset) + 30 + Int64(ZipContainer.u16(header, 26)) + Int64(ZipContainer.u16(header, 28))
        let end = start + Int64(item.compressedSize)
        guard end <= file.size else {
            throw DetectorError.corruptArchive(path, "entry \(item.name) runs past the end of the file; the file is truncated")
        }
        return start..<end
    }

    /// Inflates the raw DEFLATE stream in `range` through `deliver`, 16 KiB at a time.
    private func inflate(_ range: Range<Int64>, entry name: String, _ deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        var stream = z_stream()
        guard clsfile_inflate_init_raw(&stream) == Z_OK else {
            throw DetectorError.corruptArchive(path, "entry \(name) cannot be inflated: zlib could not start (out of memory?)")
        }
        defer { inflateEnd(&stream) }
        let capacity = 1 << 14
        let output = UnsafeMutablePointer<Bytef>.allocate(capacity: capacity)
        defer { output.deallocate() }
        var ended = false
        try file.forEachChunk(in: range) { chunk in
            guard !ended else { return }
            stream.next_in = UnsafeMutablePointer(mutating: chunk.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(chunk.count)
            while true {
                stream.next_out = output
                stream.avail_out = uInt(capacity)
                let status = CInflate.inflate(&stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    throw DetectorError.corruptArchive(path, "entry \(name) cannot be inflated (\(reason)); the file is damaged")
                }
                let produced = capacity - Int(stream.avail_out)
                if produced > 0 { try deliver(UnsafeRawBufferPointer(start: output, count: produced)) }
                if status == Z_STREAM_END {
                    ended = true
                    return
                }
                // More output may be pending while the buffer came back full; else more input is needed.
                if stream.avail_out != 0 && (stream.avail_in == 0 || status == Z_BUF_ERROR) { return }
            }
        }
        if !ended {
            throw DetectorError.corruptArchive(path, "entry \(name) ends before its compressed data does; the file is damaged")
        }
    }

    /// Parses the end-of-central-directory record and every central directory header.
    static func readCentralDirectory(of file: SafeFile) throws -> Directory {
        let path = file.path, size = file.size
        guard size >= 22 else { throw DetectorError.corruptArchive(path, "too short to be a ZIP file") }
        let tailLength = min(size, 65_557)
        let tail = try file.bytes(at: size - tailLength, count: Int(tailLength))
        var eocd = -1
        var k = tail.count - 22
        while k >= 0 {
            if tail[k] == 0x50 && tail[k + 1] == 0x4B && tail[k + 2] == 0x05 && tail[k + 3] == 0x06 {
                eocd = k
                break
            }
            k -= 1
        }
        guard eocd >= 0 else { throw DetectorError.corruptArchive(path, "no end of central directory; the file is truncated") }
        let count = u16(tail, eocd + 10)
        let cdSize = u32(tail, eocd + 12)
        let cdOffset = u32(tail, eocd + 16)
        guard count <= 50_000 else { throw DetectorError.malformed(path, "\(count) entries, above the limit of 50000") }
        guard cdOffset != 0xFFFF_FFFF, Int64(cdOffset + cdSize) <= size, cdSize <= 64 << 20 else {
            throw DetectorError.corruptArchive(path, "the central directory lies outside the file")
        }
        let cd = try file.bytes(at: Int64(cdOffset), count: Int(cdSize))
        guard cd.count == Int(cdSize) else { throw DetectorError.corruptArchive(path, "the central directory is truncated") }
        var entries: [Item] = []
        entries.reserveCapacity(count)
        var o = 0
        for _ in 0..<count {
            guard o + 46 <= cd.count, cd[o] == 0x50, cd[o + 1] == 0x4B, cd[o + 2] == 0x01, cd[o + 3] == 0x02 else {
                throw DetectorError.corruptArchive(path, "a central directory header is damaged")
            }
            let nameLength = u16(cd, o + 28), extraLength = u16(cd, o + 30), commentLength = u16(cd, o + 32)
            guard o + 46 + nameLength <= cd.count else { throw DetectorError.corruptArchive(path, "a file name is truncated") }
            let name = String(decoding: cd[(o + 46)..<(o + 46 + nameLength)], as: UTF8.self)
            entries.append(
                Item(
                    name: name, method: u16(cd, o + 10), compressedSize: u32(cd, o + 20),
                    uncompressedSize: u32(cd, o + 24), localHeaderOffset: u32(cd, o + 42),
                    encrypted: u16(cd, o + 8) & 1 != 0))
            o += 46 + nameLength + extraLength + commentLength
        }
        return Directory(entries: entries)
    }

    /// The bytes of the archive's first entry when it is named `name` and stored whole,
    /// uncompressed and unencrypted, within `head`, the file's first bytes; nil otherwise.
    ///
    /// OpenDocument and EPUB put their `mimetype` entry first this way, so that it can be read
    /// without opening the archive (as `file(1)` reads it).
    static func leadingStoredEntry(named name: String, in head: [UInt8], limit: Int) -> ArraySlice<UInt8>? {
        let name = Array(name.utf8)
        guard head.count >= 30 + name.count, head.starts(with: [0x50, 0x4B, 0x03, 0x04]),
            u16(head, 6) & 1 == 0, u16(head, 8) == 0, u16(head, 26) == name.count,
            head[30..<(30 + name.count)].elementsEqual(name)
        else { return nil }
        let start = 30 + name.count + u16(head, 28), size = Int(u32(head, 18))
        guard size <= limit, start + size <= head.count else { return nil }
        return head[start..<(start + size)]
    }

    /// A little-endian 16-bit field of a ZIP header.
    private static func u16(_ bytes: [UInt8], _ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }

    /// A little-endian 32-bit field of a ZIP header.
    private static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        UInt64(u16(bytes, offset)) | UInt64(u16(bytes, offset + 2)) << 16
    }
}
