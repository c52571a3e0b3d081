import Foundation
import OpenClassKit

/// Reading files that come from other people (handouts, submissions) and writing files only
/// their owner may read: regular files only, never through a symbolic link, and never larger
/// than ``sizeLimit``.
enum ExchangeFile {
    /// The largest handout or submission read: 16 MiB.
    static let sizeLimit = 16 << 20

    /// Reads a whole file that must be a regular file of at most ``sizeLimit`` bytes.
    /// - Parameter what: What the file is, for messages ("the handout").
    /// - Throws: ``ClassroomError`` `.fileAccess` naming the path and what to do.
    static func read(_ url: URL, what: String) throws -> Data {
        let path = url.path
        let descriptor = FileSystemPath.withCString(url) { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let code = errno
            let reason =
                code == ELOOP
                ? "it is a symbolic link; copy the file itself there"
                : "\(String(cString: strerror(code))); check the path and its permissions"
            throw ClassroomError(.fileAccess, "cannot read \(what) \(path): \(reason)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ClassroomError(.fileAccess, "cannot read \(what) \(path): \(String(cString: strerror(errno)))")
        }
        if let kind = nonRegularKind(status.st_mode) {
            throw ClassroomError(.fileAccess, "cannot read \(what) \(path): it is \(kind), not a regular file; give the file itself")
        }
        guard status.st_size <= sizeLimit else {
            throw ClassroomError(
                .fileAccess,
                "\(what) \(path) is \(status.st_size / (1 << 20)) MiB, more than such a file can be (\(sizeLimit >> 20) MiB); it was not read: check that it is the right file"
            )
        }
        var data = Data(count: Int(status.st_size) + 1)
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw ClassroomError(.fileAccess, "cannot read \(what) \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= sizeLimit, filled < data.count else {
            throw ClassroomError(.fileAccess, "\(what) \(path) grew while it was read; try again when nothing writes it")
        }
        return data.prefix(filled)
    }

    /// What a file that is not regular is, for a message; nil for a regular file.
    static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "not a regular file"
        }
    }

    /// What ``writePrivately(_:to:replacing:)`` did.
    enum WriteOutcome {
        case written
        /// `replacing` was false and a file was already there; it was left alone.
        case alreadyExists
    }

    /// Writes a file only its owner can read or write (0600), all at once: through a new
    /// temporary file in the same folder, renamed into place.
    /// - Throws: ``ClassroomError`` `.fileAccess` naming the path.
    @discardableResult
    static func writePrivately(_ data: Data, to url: URL, replacing: Bool) throws -> WriteOutcome {
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        func failure(_ code: Int32) -> ClassroomError {
            ClassroomError(.fileAccess, "cannot write \(url.path): \(String(cString: strerror(code))); check the folder's permissions")
        }
        let descriptor = FileSystemPath.withCString(temporary) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { throw failure(errno) }
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let code = errno
                close(descriptor)
                _ = FileSystemPath.withCString(temporary, unlink)
                throw failure(code)
            }
            written += count
        }
        let synced = fsync(descriptor) == 0
        let syncError = errno
        close(descriptor)
        let moved = FileSystemPath.withCString(url) { target in
            FileSystemPath.withCString(temporary) { source in
                // link(2) fails when the target exists: the file is never replaced unless asked.
                replacing ? rename(source, target) : link(source, target)
            }
        }
        let moveError = errno
        if !replacing || moved != 0 { _ = FileSystemPath.withCString(temporary, unlink) }
        guard synced else { throw failure(syncError) }
        if moved != 0 {
            if !replacing && moveError == EEXIST { return .alreadyExists }
            throw failure(moveError)
        }
        return .written
    }
}
