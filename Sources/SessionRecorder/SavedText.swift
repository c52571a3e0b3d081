import OpenClassKit

#if canImport(Glibc)
internal import Glibc
#endif

/// The text of a file as last saved, which a terminal paste is compared with: a paste of text the
/// file already holds is the writer's own text, moved or copied (a terminal relay sees neither a
/// yank nor a cut, only what is pasted).
struct SavedText: Sendable {
    /// The file's path, as the file system spells it.
    let path: [UInt8]

    /// Whether the file holds the pasted bytes, line breaks as a terminal sends them (CR) or as
    /// a file keeps them (LF, CR LF) alike, and the breaks at their ends left out. False for a
    /// file that cannot be read, or is larger than ``WritingHistory/largestSnapshot``.
    func holds(_ pasted: [UInt8]) -> Bool {
        let wanted = Self.trimmed(Self.lineFeeds(pasted))
        guard !wanted.isEmpty, let content = contents() else { return false }
        return Self.lineFeeds(content).firstRange(of: wanted) != nil
    }

    /// The file's bytes; nil when it cannot be read or is too large to compare.
    private func contents() -> [UInt8]? {
        let descriptor = FileSystemPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size <= WritingHistory.largestSnapshot else { return nil }
        var content = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < content.count {
            let count = content[filled...].withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        return Array(content[..<filled])
    }

    /// The bytes with each CR LF and lone CR made an LF.
    private static func lineFeeds(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() {
            if byte == 0x0D {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { continue }
                result.append(0x0A)
            } else {
                result.append(byte)
            }
        }
        return result
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0x0A }.reversed().drop { $0 == 0x0A }.reversed())
    }
}
