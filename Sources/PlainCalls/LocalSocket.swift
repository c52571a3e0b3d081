#if canImport(Glibc)
import Glibc
#endif

/// A Unix-domain stream socket, as the hook agent and the hooks that ask it use one: a listener
/// at a path, and connections that carry one message each way, each sent whole and then ended.
///
/// Every descriptor is close-on-exec, and nothing sent raises SIGPIPE: a peer that went away is
/// a failed send, never a killed process.
public struct LocalSocket: ~Copyable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Connects to the socket at `path`; nil when nothing listens there, or when its queue of
    /// waiting connections is full (the caller does the work itself rather than wait).
    /// - Parameter timeout: The longest each later send or receive may wait, in seconds.
    public static func connect(to path: String, timeout: Double) -> LocalSocket? {
        guard var address = address(path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        let connection = LocalSocket(descriptor: descriptor)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return nil }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0, connection.limitWaits(to: timeout) else { return nil }
        return connection
    }

    /// Listens at `path`, replacing a socket file left there by a listener that is gone; nil when
    /// the socket cannot be made, bound or listened on. The caller makes sure no other listener
    /// uses the path (the agent holds a lock).
    public static func listen(at path: String) -> LocalSocket? {
        guard var address = address(path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        let listener = LocalSocket(descriptor: descriptor)
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, 64) == 0 else { return nil }
        return listener
    }

    /// Waits at most `timeout` seconds for a connection; nil when none came (or it failed).
    /// - Parameter timeout: Also the longest each send or receive on the connection may wait.
    public func accept(waiting timeout: Double) -> LocalSocket? {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, Int32(timeout * 1000)) == 1 else { return nil }
        let connection = Glibc.accept(descriptor, nil, nil)
        guard connection >= 0 else { return nil }
        let socket = LocalSocket(descriptor: connection)
        guard fcntl(connection, F_SETFD, FD_CLOEXEC) == 0, socket.limitWaits(to: timeout) else { return nil }
        return socket
    }

    /// Sends `bytes`, then (unless `ending` is false) tells the peer nothing more comes; false
    /// when the peer went away or the time ran out.
    public func sendAll(_ bytes: [UInt8], ending: Bool = true) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return !ending || shutdown(descriptor, Int32(SHUT_WR)) == 0
    }

    /// Receives everything until the peer has sent all; nil when the time ran out, the
    /// connection failed, or it would be more than `limit` bytes.
    public func receiveAll(limit: Int) -> [UInt8]? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return received }
            received += buffer[0..<count]
            guard received.count <= limit else { return nil }
        }
    }

    /// Receives one byte; nil when the peer closed, the time ran out or the connection failed.
    public func receiveByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, 0)
            if count < 0, errno == EINTR { continue }
            return count == 1 ? byte : nil
        }
    }

    /// Sets the longest each later send or receive may wait, in seconds; false when it cannot be set.
    public func limitWaits(to seconds: Double) -> Bool {
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        return setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, size) == 0
            && setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, size) == 0
    }

    /// The address of `path`; nil when it is too long for one (108 bytes with its end).
    private static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}
