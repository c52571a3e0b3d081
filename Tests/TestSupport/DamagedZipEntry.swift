import Foundation

/// Damages one deflated entry of a ZIP file in place: its compressed data then begins with a final
/// block of DEFLATE's reserved type, which no inflater accepts, and every other entry is left as it
/// was. For tests that tell whether a reader reads that entry at all.
public enum DamagedZipEntry {
    /// The file has no deflated, non-empty entry of that name in its central directory.
    public struct NotFound: Error, CustomStringConvertible {
        public let entry: String
        public let path: String
        public var description: String { "no deflated entry \(entry) in the central directory of \(path)" }
    }

    /// Damages the deflated entry `name` of the ZIP file at `url`, found through the central
    /// directory (so that neither compressed data nor a ZIP stored inside is taken for a header).
    /// - Throws: ``NotFound`` when the file has no deflated, non-empty entry of that name.
    public static func damage(_ name: String, inZipAt url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let notFound = NotFound(entry: name, path: url.path)
        func u16(_ offset: Int) throws -> Int {
            guard offset >= 0, offset + 2 <= bytes.count else { throw notFound }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
        }
        func u32(_ offset: Int) throws -> Int { try u16(offset) | u16(offset + 2) << 16 }
        func isSignature(_ offset: Int, _ third: UInt8, _ fourth: UInt8) -> Bool {
            offset >= 0 && offset + 4 <= bytes.count && bytes[offset] == 0x50 && bytes[offset + 1] == 0x4B
                && bytes[offset + 2] == third && bytes[offset + 3] == fourth
        }
        // The end of central directory record: "PK\u{5}\u{6}", the entry count at 10, the
        // directory's offset at 16; the last one in the file.
        guard let end = stride(from: bytes.count - 22, through: 0, by: -1).first(where: { isSignature($0, 5, 6) }) else {
            throw notFound
        }
        var header = try u32(end + 16)
        let count = try u16(end + 10)
        for _ in 0..<count {
            // A central header: "PK\u{1}\u{2}", the method at 10, the compressed size at 20, the
            // lengths of the name, extra field and comment at 28, 30 and 32, the local header's
            // offset at 42, the name at 46.
            guard isSignature(header, 1, 2) else { throw notFound }
            let nameLength = try u16(header + 28)
            guard header + 46 + nameLength <= bytes.count else { throw notFound }
            let entry = String(decoding: bytes[(header + 46)..<(header + 46 + nameLength)], as: UTF8.self)
            if entry == name, try u16(header + 10) == 8, try u32(header + 20) > 0 {
                // The local header: the lengths of its name and extra field at 26 and 28.
                let local = try u32(header + 42)
                guard isSignature(local, 3, 4) else { throw notFound }
                let data = try local + 30 + u16(local + 26) + u16(local + 28)
                guard data < bytes.count else { throw notFound }
                // Read from the low bit: BFINAL 1, then BTYPE 3, which is reserved.
                bytes[data] = 0xFF
                try Data(bytes).write(to: url)
                return
            }
            header += try 46 + nameLength + u16(header + 30) + u16(header + 32)
        }
        throw notFound
    }
}
