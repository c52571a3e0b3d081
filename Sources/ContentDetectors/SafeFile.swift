import SystemPackage

#if canImport(Glibc)
internal import Glibc
#endif

/// A regular file opened for reading without ever blocking on FIFOs or devices.
///
/// The path is checked with `stat` before it is opened, opened with `O_NONBLOCK`, and checked
/// again with `fstat`, so a FIFO, socket, device or directory is refused before any read.
final class SafeFile: @unchecked Sendable {
    /// The buffer size used for every streaming read.
    static let chunkSize = 1 << 20

    let path: String
    let size: Int64
    private let descriptor: Int32

    convenience init(path filePath: FilePath, maximumSize: Int64) throws {
        try self.init(
            fileSystemPath: filePath.withPlatformString { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) },
            maximumSize: maximumSize)
    }

    /// Opens the file a path's bytes name, as given: a `FilePath` would drop a trailing slash
    /// (`essay.txt/`, which is no file) and merge double ones.
    init(fileSystemPath bytes: some Collection<UInt8>, maximumSize: Int64) throws {
        let fileSystemPath = bytes.map { CChar(bitPattern: $0) } + [0]
        path = String(decoding: bytes, as: UTF8.self)
        var info = stat()
        if stat(fileSystemPath, &info) != 0 { throw DetectorError.unreadable(path, errno: errno) }
        if let what = SafeFile.describeNonRegular(info.st_mode) { throw DetectorError.notARegularFile(path, what) }
        let fd = open(fileSystemPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        if fd < 0 { throw DetectorError.unreadable(path, errno: errno) }
        var opened = stat()
        if fstat(fd, &opened) != 0 {
            let code = errno
            close(fd)
            throw DetectorError.unreadable(path, errno: code)
        }
        if let what = SafeFile.describeNonRegular(opened.st_mode) {
            close(fd)
            throw DetectorError.notARegularFile(path, what)
        }
        if Int64(opened.st_size) > maximumSize {
            close(fd)
            throw DetectorError.fileTooLarge(path, size: Int64(opened.st_size), limit: maximumSize)
        }
        descriptor = fd
        size = Int64(opened.st_size)
    }

    deinit { close(descriptor) }

    /// The extension of the file's name ("docx" for "essay.docx"), or "" when it has none. As for
    /// `URL.pathExtension`, a leading dot (".notes") starts a name, not an extension.
    var pathExtension: String {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let name = slash.map { path[path.utf8.index(after: $0)...] } ?? path[...]
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return "" }
        return String(name[name.utf8.index(after: dot)...])
    }

    static func describeNonRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "directory"
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        default: return "special file"
        }
    }

    /// Reads up to `count` bytes from the start of the file.
    func head(_ count: Int) throws -> [UInt8] {
        // No larger than the file, plus a page should it grow: each page zeroed for nothing is a
        // page fault, a good part of what a short process costs.
        let count = Int(min(Int64(count), size + 4096))
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(filled))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw DetectorError.unreadable(path, errno: errno)
            }
            if n == 0 { break }
            filled += n
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Streams the whole file through `body` in chunks of at most ``chunkSize`` bytes.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: SafeFile.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        if lseek(descriptor, 0, SEEK_SET) < 0 { throw DetectorError.unreadable(path, errno: errno) }
        while true {
            let n = read(descriptor, buffer, SafeFile.chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw DetectorError.unreadable(path, errno: errno)
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }

    /// Streams bytes `range` through `body` with positional reads, so two ranges may be read at once.
    func forEachChunk(in range: Range<Int64>, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // A short range gets a buffer of its size: one of 1 MiB is mapped and unmapped each time.
        let capacity = Int(min(Int64(SafeFile.chunkSize), max(range.upperBound - range.lowerBound, 1)))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let want = Int(min(Int64(capacity), range.upperBound - offset))
            let n = pread(descriptor, buffer, want, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw DetectorError.unreadable(path, errno: errno)
            }
            if n == 0 { return }
            offset += Int64(n)
            try body(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }

    /// Reads up to `count` bytes at `offset`.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        let n = result.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
        if n < 0 { throw DetectorError.unreadable(path, errno: errno) }
        result.removeSubrange(n...)
        return result
    }
}
