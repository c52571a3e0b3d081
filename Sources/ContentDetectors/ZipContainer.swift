import Foundation
import ZIPFoundation

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
/// The central directory is parsed here (names, flags, sizes) so that encrypted entries and
/// declared ratios are refused before anything is inflated; ZIPFoundation does the inflating,
/// and the bytes it produces are counted against the limits as they stream.
final class ZipContainer {
    struct Item {
        let name: String
        let compressedSize: UInt64
        let uncompressedSize: UInt64
        let encrypted: Bool
    }

    let path: String
    let items: [String: Item]
    private let archive: Archive
    private let limits: ZipLimits
    private var expanded: Int64 = 0

    init(url: URL, limits: ZipLimits) throws {
        path = url.path
        self.limits = limits
        items = try ZipContainer.readCentralDirectory(url: url, path: path)
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw DetectorError.corruptArchive(url.path, "cannot open the archive")
        }
    }

    func contains(_ name: String) -> Bool { items[name] != nil }

    /// Streams an entry's decompressed bytes through `body`, enforcing the limits.
    func read(_ name: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let item = items[name] else { throw DetectorError.malformed(path, "missing entry \(name)") }
        if item.encrypted { throw DetectorError.encrypted(path, entry: name) }
        guard let entry = archive[name] else { throw DetectorError.malformed(path, "missing entry \(name)") }
        if Int64(clamping: item.uncompressedSize) > limits.maximumEntrySize {
            throw DetectorError.decompressionLimit(path, entry: name, detail: "declares \(item.uncompressedSize) bytes, above the \(limits.maximumEntrySize)-byte limit")
        }
        if item.uncompressedSize > 1 << 20 {
            let ratio = Double(item.uncompressedSize) / Double(max(item.compressedSize, 1))
            if ratio > limits.maximumRatio {
                throw DetectorError.decompressionLimit(path, entry: name, detail: "expands \(Int(ratio)) times, above the ratio limit of \(Int(limits.maximumRatio))")
            }
        }
        var produced: Int64 = 0
        let declared = Int64(clamping: item.uncompressedSize)
        do {
            _ = try archive.extract(entry, bufferSize: 1 << 16, skipCRC32: true) { data in
                produced += Int64(data.count)
                self.expanded += Int64(data.count)
                if produced > declared || produced > self.limits.maximumEntrySize || self.expanded > self.limits.maximumTotalSize {
                    throw DetectorError.decompressionLimit(self.path, entry: name, detail: "expands beyond its declared size or the total limit")
                }
                try data.withUnsafeBytes { try body($0) }
            }
        } catch let error as DetectorError {
            throw error
        } catch {
            throw DetectorError.corruptArchive(path, "entry \(name) cannot be inflated")
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

    /// Parses the end-of-central-directory record and every central directory header.
    static func readCentralDirectory(url: URL, path: String) throws -> [String: Item] {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw DetectorError.corruptArchive(path, "cannot open the archive")
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        guard size >= 22 else { throw DetectorError.corruptArchive(path, "too short to be a ZIP file") }
        let tailLength = min(size, 65_557)
        try? handle.seek(toOffset: size - tailLength)
        let tail = [UInt8]((try? handle.read(upToCount: Int(tailLength))) ?? Data())
        var eocd = -1
        var k = tail.count - 22
        while k >= 0 {
            if tail[k] == 0x50 && tail[k + 1] == 0x4B && tail[k + 2] == 0x05 && tail[k + 3] == 0x06 { eocd = k; break }
            k -= 1
        }
        guard eocd >= 0 else { throw DetectorError.corruptArchive(path, "no end of central directory; the file is truncated") }
        let count = u16(tail, eocd + 10)
        let cdSize = u32(tail, eocd + 12)
        let cdOffset = u32(tail, eocd + 16)
        guard count <= 50_000 else { throw DetectorError.malformed(path, "\(count) entries, above the limit of 50000") }
        guard cdOffset != 0xFFFF_FFFF, cdOffset + cdSize <= size, cdSize <= 64 << 20 else {
            throw DetectorError.corruptArchive(path, "the central directory lies outside the file")
        }
        try? handle.seek(toOffset: cdOffset)
        let cd = [UInt8]((try? handle.read(upToCount: Int(cdSize))) ?? Data())
        guard cd.count == Int(cdSize) else { throw DetectorError.corruptArchive(path, "the central directory is truncated") }
        var items: [String: Item] = [:]
        var o = 0
        for _ in 0..<count {
            guard o + 46 <= cd.count, cd[o] == 0x50, cd[o + 1] == 0x4B, cd[o + 2] == 0x01, cd[o + 3] == 0x02 else {
                throw DetectorError.corruptArchive(path, "a central directory header is damaged")
            }
            let flags = u16(cd, o + 8)
            let compressed = u32(cd, o + 20)
            let uncompressed = u32(cd, o + 24)
            let nameLength = u16(cd, o + 28), extraLength = u16(cd, o + 30), commentLength = u16(cd, o + 32)
            guard o + 46 + nameLength <= cd.count else { throw DetectorError.corruptArchive(path, "a file name is truncated") }
            let name = String(decoding: cd[(o + 46)..<(o + 46 + nameLength)], as: UTF8.self)
            items[name] = Item(name: name, compressedSize: compressed, uncompressedSize: uncompressed, encrypted: flags & 1 != 0)
            o += 46 + nameLength + extraLength + commentLength
        }
        return items
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
              head[30..<(30 + name.count)].elementsEqual(name) else { return nil }
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
