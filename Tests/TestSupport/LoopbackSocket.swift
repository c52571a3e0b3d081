import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket to a port on 127.0.0.1, for tests that speak to a server byte by byte.
public enum LoopbackSocket {
    public struct SocketError: Error, CustomStringConvertible {
        public var description: String
    }

    /// A socket connected to `127.0.0.1:port`; the caller closes it.
    /// - Throws: ``SocketError`` naming the call that failed and its errno.
    public static func connected(to port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let failure = errno
            close(descriptor)
            throw SocketError(description: "connect to 127.0.0.1:\(port): errno \(failure)")
        }
        return descriptor
    }

    /// A port on 127.0.0.1 that nothing listens on or connects from now, as the kernel picks one
    /// for a socket bound to port 0 (a port drawn at random may be one a connection is using:
    /// Linux gives outgoing connections ports 32768–60999). For a server whose address must
    /// be known before it starts; another program may still take it in between.
    /// - Throws: ``SocketError`` naming the call that failed and its errno.
    public static func unusedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw SocketError(description: "bind to 127.0.0.1:0: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
