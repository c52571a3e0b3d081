import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Events waiting for a busy store, kept as JSON lines in a file beside it.
///
/// A hook must never make the editor wait: when the store stays locked past the hook's short busy
/// timeout, the event goes here, and the next call that reaches the store records it first. Writers
/// and the reader take an exclusive `flock`, so no event is lost or read twice.
public struct EventSpool: Sendable {
    /// The spool file: the store's path with `.spool` appended.
    public let url: URL

    /// The spool of a store.
    public init(storeURL: URL) {
        url = storeURL.appendingPathExtension("spool")
    }

    /// Appends events.
    /// - Throws: ``RecorderError`` `.spoolUnavailable` naming the spool when it cannot be written.
    public func append(_ events: [SessionEvent]) throws {
        guard !events.isEmpty else { return }
        var data = Data()
        let encoder = Self.encoder
        for event in events {
            data.append(try encoder.encode(event))
            data.append(UInt8(ascii: "\n"))
        }
        try locked(flags: O_WRONLY | O_APPEND | O_CREAT) { descriptor in
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == data.count else { throw failure("cannot append to") }
        }
    }

    /// Takes every waiting event out of the spool.
    /// - Returns: The events, oldest first; lines that are not events are returned in `rejected`.
    public func drain() throws -> (events: [SessionEvent], rejected: [String]) {
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_size > 0 else { return ([], []) }
        var content = Data()
        try locked(flags: O_RDWR) { descriptor in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                guard count >= 0 else { throw failure("cannot read") }
                if count == 0 { break }
                content.append(contentsOf: buffer[0..<count])
            }
            guard ftruncate(descriptor, 0) == 0 else { throw failure("cannot empty") }
        }
        var events: [SessionEvent] = [], rejected: [String] = []
        let decoder = Self.decoder
        for line in content.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            if let event = try? decoder.decode(SessionEvent.self, from: Data(line)) {
                events.append(event)
            } else {
                rejected.append(String(decoding: line, as: UTF8.self))
            }
        }
        return (events.sorted { $0.date < $1.date }, rejected)
    }

    /// Opens the spool, never through a symbolic link, and only when it is a regular file of this
    /// user: a link planted in its place would otherwise have its target truncated or written.
    private func locked(flags: Int32, _ body: (Int32) throws -> Void) throws {
        let safeFlags = flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        var descriptor = open(url.path, safeFlags, 0o600)
        if descriptor < 0, errno == ENOENT, flags & O_CREAT != 0 {
            // Events can wait before the store was ever made (a new file's open, on a new account):
            // make its folder as the store would, private to the user.
            let folder = url.deletingLastPathComponent().path
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            descriptor = open(url.path, safeFlags, 0o600)
        }
        guard descriptor >= 0 else {
            if errno == ELOOP {
                throw RecorderError(
                    .spoolUnavailable,
                    "the event spool \(url.path) is a symbolic link, which clsfile never follows; remove it (clsfile makes the spool itself)"
                )
            }
            throw failure("cannot open")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("cannot inspect") }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            throw RecorderError(
                .spoolUnavailable, "the event spool \(url.path) is not a regular file of yours; remove it (clsfile makes the spool itself)")
        }
        guard flock(descriptor, LOCK_EX) == 0 else { throw failure("cannot lock") }
        try body(descriptor)
    }

    private func failure(_ what: String) -> RecorderError {
        RecorderError(
            .spoolUnavailable,
            "\(what) the event spool \(url.path): \(String(cString: strerror(errno))); check the store folder's permissions")
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
