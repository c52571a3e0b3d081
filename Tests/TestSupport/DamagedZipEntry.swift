import Foundation

/// Damages one deflated entry of a ZIP file in place: its compressed data then begins with a final
/// block of DEFLATE's reserved type, which no inflater accepts, and every other entry is left as it
/// was. For tests that tell whether a reader reads that entry at all.
public enum DamagedZipEntry {
    /// The file has no deflated entry of that name.
    public struct NotFound: Error, CustomStringConvertible {
        public let entry: String
        public let path: String
        public var description: String { "no deflated entry \(entry) in \(path)" }
    }

    /// Damages the deflated entry `name` of the ZIP file at `url`.
    /// - Throws: ``NotFound`` when the file has no deflated entry of that name.
    public static func damage(_ name: String, inZipAt url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        func u16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        var offset = 0
        // Local file headers: "PK\u{3}\u{4}", then the method at 8, the name's length at 26 and the
        // extra field's at 28, the name at 30.
        while offset + 30 <= bytes.count {
            guard bytes[offset] == 0x50, bytes[offset + 1] == 0x4B, bytes[offset + 2] == 0x03, bytes[offset + 3] == 0x04
            else {
                offset += 1
                continue
            }
            let nameEnd = offset + 30 + u16(offset + 26)
            let data = nameEnd + u16(offset + 28)
            guard data < bytes.count else { break }
            if u16(offset + 8) == 8, String(decoding: bytes[(offset + 30)..<nameEnd], as: UTF8.self) == name {
                // Read from the low bit: BFINAL 1, then BTYPE 3, which is reserved.
                bytes[data] = 0xFF
                try Data(bytes).write(to: url)
                return
            }
            offset = data
        }
        throw NotFound(entry: name, path: url.path)
    }
}
