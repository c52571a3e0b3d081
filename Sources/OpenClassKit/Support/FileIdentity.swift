import Foundation

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The canonical identity of a regular file: its real path as bytes, plus device and inode.
///
/// Linux file names are bytes, so identity is kept as bytes and never as `String`: two spellings
/// that Unicode calls equal (NFC and NFD) are two different files.
struct FileIdentity: Sendable, Hashable {
    /// The canonical path: absolute, without `.` or `..`, every symbolic link resolved.
    var path: [UInt8]
    var device: UInt64
    var inode: UInt64

    /// Resolves a file URL to the identity of the regular file it names.
    ///
    /// - Throws: ``CLSError`` `.invalidArgument` when the URL is not a file URL, or names nothing,
    ///   a directory, a FIFO, a device or a socket.
    init(resolving url: URL) throws {
        guard url.isFileURL else {
            throw CLSError(
                .invalidArgument,
                "'\(url.absoluteString)' is not a file URL: pass a path or a file:// URL")
        }
        let requested = PathBytes.percentDecoded(url.absoluteURL.path(percentEncoded: true))
        guard !requested.isEmpty else {
            throw CLSError(.invalidArgument, "'\(url.absoluteString)' names no file: pass a path to a regular file")
        }
        let canonical: [UInt8]
        switch PathBytes.realPath(of: requested) {
        case .success(let resolved):
            canonical = resolved
        case .failure(let error):
            let reason = String(cString: strerror(error.code.rawValue))
            throw CLSError(
                .invalidArgument,
                "cannot open \(PathBytes.display(requested)): \(reason); check the path, or create the file first")
        }
        var info = stat()
        guard PathBytes.withCString(canonical, { stat($0, &info) }) == 0 else {
            let reason = String(cString: strerror(errno))
            throw CLSError(.invalidArgument, "cannot read \(PathBytes.display(canonical)): \(reason)")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            let what: String
            switch kind {
            case S_IFDIR: what = "a directory"
            case S_IFIFO: what = "a FIFO"
            case S_IFCHR, S_IFBLK: what = "a device"
            case S_IFSOCK: what = "a socket"
            default: what = "not a regular file"
            }
            throw CLSError(
                .invalidArgument,
                "\(PathBytes.display(canonical)) is \(what): activities belong to regular files only")
        }
        path = canonical
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    init(path: [UInt8], device: UInt64, inode: UInt64) {
        self.path = path
        self.device = device
        self.inode = inode
    }

    /// Whether a regular file with this device and inode still sits at `path`.
    static func fileExists(at path: [UInt8], device: UInt64, inode: UInt64) -> Bool {
        var info = stat()
        guard PathBytes.withCString(path, { lstat($0, &info) }) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
