import Foundation

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Helpers for file paths held as raw bytes.
enum PathBytes {
    /// Decodes `%XX` escapes into bytes; anything else is copied as its UTF-8 bytes.
    static func percentDecoded(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }

    /// Percent-encodes a path so that it survives as the path of a `file://` URL.
    static func percentEncoded(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A file URL for a path given as bytes; names that are not UTF-8 survive the round trip.
    static func fileURL(for bytes: [UInt8]) -> URL {
        URL(string: "file://" + percentEncoded(bytes)) ?? URL(fileURLWithPath: display(bytes))
    }

    /// The path for people to read: UTF-8 as is, other bytes as `\xNN`.
    static func display(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var out = ""
        var index = 0
        while index < bytes.count {
            var end = index + 1
            while end <= bytes.count, end - index <= 4 {
                if let scalar = String(validating: bytes[index..<end], as: UTF8.self) {
                    out += scalar
                    break
                }
                end += 1
            }
            if end <= bytes.count, end - index <= 4 {
                index = end
            } else {
                out += "\\x" + String(bytes[index], radix: 16, uppercase: true)
                index += 1
            }
        }
        return out
    }

    /// The last component of a path, for people to read.
    static func fileName(of path: [UInt8]) -> String {
        var end = path.endIndex
        while end > path.startIndex, path[end - 1] == UInt8(ascii: "/") { end -= 1 }
        let start = path[..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? path.startIndex
        return display(Array(path[start..<end]))
    }

    /// realpath(3) on raw bytes.
    /// - Returns: The resolved path, or the `errno` that realpath(3) set.
    static func realPath(of bytes: [UInt8]) -> Result<[UInt8], POSIXError> {
        withCString(bytes) { pointer in
            guard let resolved = realpath(pointer, nil) else {
                return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            defer { free(resolved) }
            return .success(
                Array(
                    UnsafeBufferPointer(
                        start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved))))
        }
    }

    /// The current directory as bytes.
    static func currentDirectory() -> [UInt8] {
        guard let pointer = getcwd(nil, 0) else { return Array(FileManager.default.currentDirectoryPath.utf8) }
        defer { free(pointer) }
        return Array(
            UnsafeBufferPointer(
                start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                count: strlen(pointer)))
    }

    /// Calls `body` with a NUL-terminated copy of the bytes.
    static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        return try body(terminated)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension URL {
    /// Creates a file URL from a path given as raw bytes, so that file names that are not valid
    /// UTF-8 survive: the bytes are percent-encoded into the URL.
    ///
    /// A relative path is taken relative to the current directory.
    /// - Parameter pathBytes: The path as the file system spells it.
    package init(fileSystemPathBytes pathBytes: [UInt8]) {
        var absolute = pathBytes
        if absolute.first != UInt8(ascii: "/") {
            absolute = PathBytes.currentDirectory() + [UInt8(ascii: "/")] + pathBytes
        }
        self = PathBytes.fileURL(for: absolute)
    }
}

extension URL {
    /// The bytes of a file URL's path, as the file system spells them: `%XX` escapes decoded, so
    /// that a name that is not UTF-8 (for which Foundation gives no path) keeps its bytes.
    package var fileSystemPathBytes: [UInt8] {
        PathBytes.percentDecoded(absoluteURL.path(percentEncoded: true))
    }

    /// The path for messages: UTF-8 as it is, any other byte as `\xNN`.
    package var displayPath: String {
        PathBytes.display(fileSystemPathBytes)
    }

    /// The file's name (the path's last component) for messages and titles, written as
    /// ``displayPath`` writes it.
    package var displayFileName: String {
        PathBytes.fileName(of: fileSystemPathBytes)
    }
}

/// Paths as the file system spells them, for code that calls the C library with them. Not part of
/// ClassKit.
package enum FileSystemPath {
    /// Calls `body` with a NUL-terminated copy of a path's bytes.
    package static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try PathBytes.withCString(bytes, body)
    }

    /// A path for messages: UTF-8 as it is, any other byte as `\xNN`.
    package static func display(_ bytes: [UInt8]) -> String {
        PathBytes.display(bytes)
    }

    /// Calls `body` with a file URL's path, NUL-terminated, its bytes kept (`URL.fileSystemPathBytes`).
    package static func withCString<R>(_ url: URL, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try PathBytes.withCString(url.fileSystemPathBytes, body)
    }
}
