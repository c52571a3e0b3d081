internal import CMagic
internal import NIOConcurrencyHelpers
#if canImport(Glibc)
internal import Glibc
#endif

/// libmagic, loaded when a file first needs it, behind a lock: a `magic_t` cookie is not
/// thread-safe, so one cookie is shared under a mutex.
///
/// The library is opened with `dlopen` rather than linked: most calls never need it (ZIP-based
/// documents, RTF, plain text without `<` or `\`, every editor hook), and a linked libmagic, with
/// the liblzma and libbz2 it brings, costs every `clsfile` process about half a millisecond to load.
final class Magic: @unchecked Sendable {
    static let shared = Magic()
    // pthread's mutex, which ThreadSanitizer sees.
    private let lock = NIOLock()
    /// Guarded by `lock`: nil until first use, then the open cookie or why there is none.
    private var cookie: Result<Cookie, DetectorError>?

    private struct Cookie {
        let handle: OpaquePointer
        let buffer: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> UnsafePointer<CChar>?
        let error: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    }

    private init() {}

    /// The MIME type libmagic gives a file's first bytes.
    /// - Throws: ``DetectorError`` `.libraryUnavailable` naming `path` when libmagic or its
    ///   database cannot be loaded, or when it fails on these bytes.
    func mimeType(of bytes: [UInt8], path: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if cookie == nil { cookie = Self.open() }
        let cookie = try self.cookie!.mapError { DetectorError(.libraryUnavailable, "cannot tell what \(path) is: \($0.message)") }.get()
        return try bytes.withUnsafeBytes { raw in
            guard let answer = cookie.buffer(cookie.handle, raw.baseAddress, raw.count) else {
                let reason = cookie.error(cookie.handle).map { String(cString: $0) } ?? "no reason given"
                throw DetectorError(
                    .libraryUnavailable,
                    "libmagic failed on \(path) (\(reason)), so its kind is unknown; check that libmagic1 and its database (libmagic-mgc) are intact"
                )
            }
            return String(cString: answer) // copied while the lock is held
        }
    }

    /// Loads libmagic and its default database.
    private static func open() -> Result<Cookie, DetectorError> {
        let install = "install libmagic1 (apt-get install libmagic1)"
        guard let library = dlopen("libmagic.so.1", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(DetectorError(.libraryUnavailable, "libmagic cannot be loaded (\(reason)); \(install)"))
        }
        func function<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        typealias Open = @convention(c) (Int32) -> OpaquePointer?
        typealias Load = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
        typealias Close = @convention(c) (OpaquePointer?) -> Void
        guard let open = function("magic_open", as: Open.self), let load = function("magic_load", as: Load.self),
            let close = function("magic_close", as: Close.self),
            let buffer = function(
                "magic_buffer", as: (@convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> UnsafePointer<CChar>?).self),
            let error = function("magic_error", as: (@convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?).self)
        else {
            return .failure(DetectorError(.libraryUnavailable, "libmagic.so.1 lacks the functions of libmagic 5; \(install)"))
        }
        guard let handle = open(MAGIC_MIME_TYPE | MAGIC_ERROR) else {
            return .failure(
                DetectorError(
                    .libraryUnavailable, "libmagic cannot start (\(String(cString: strerror(errno)))); try again with more memory free"))
        }
        guard load(handle, nil) == 0 else {
            let reason = error(handle).map { String(cString: $0) } ?? "no reason given"
            close(handle)
            return .failure(
                DetectorError(
                    .libraryUnavailable,
                    "libmagic cannot load its database (\(reason)); reinstall libmagic-mgc (apt-get install --reinstall libmagic-mgc)"))
        }
        return .success(Cookie(handle: handle, buffer: buffer, error: error))
    }
}
