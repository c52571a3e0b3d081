import CMagic
import Foundation

/// libmagic behind a lock: a `magic_t` cookie is not thread-safe, so one cookie is shared under a mutex.
final class Magic: @unchecked Sendable {
    static let shared = Magic()
    private let lock = NSLock()
    private let cookie: OpaquePointer?

    private init() {
        let c = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR)
        if let c, magic_load(c, nil) != 0 {
            magic_close(c)
            cookie = nil
        } else {
            cookie = c
        }
    }

    /// MIME type of a buffer according to libmagic, or `application/octet-stream` if it has no answer.
    func mimeType(of bytes: [UInt8]) -> String {
        lock.lock()
        defer { lock.unlock() }
        guard let cookie else { return "application/octet-stream" }
        let result = bytes.withUnsafeBytes { raw -> String? in
            guard let p = magic_buffer(cookie, raw.baseAddress, raw.count) else { return nil }
            return String(cString: p)  // copied while the lock is held
        }
        return result ?? "application/octet-stream"
    }
}
