import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client that begins a request over a real socket and never finishes it: it stalls after
/// part of the body, or sends the rest a byte at a time, to see how long a server holds it.
public enum StallingClient {
    /// What the client does after the first part of the body.
    public enum Behaviour: Sendable {
        /// Sends nothing more.
        case stalls
        /// Sends one more byte (`x`) every so many seconds.
        case trickles(every: TimeInterval)
    }

    public struct ClientError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Sends the first part of a request to `127.0.0.1:port`, then stalls or trickles, reading
    /// whatever the server answers.
    /// - Parameters:
    ///   - first: What to send at once: a head, or a head and part of the body it declares.
    ///   - limit: How long to wait for the server to close the connection.
    /// - Returns: The seconds from the first part sent until the server closed the connection,
    ///   or nil when it was still open after `limit`.
    public static func secondsUntilClosed(
        port: Int, sending first: String, then behaviour: Behaviour,
        limit: TimeInterval
    ) throws -> TimeInterval? {
        let descriptor = try LoopbackSocket.connected(to: port)
        defer { close(descriptor) }
        let bytes = Array(first.utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw ClientError(description: "send: errno \(errno)")
        }
        let start = Date()
        var nextByte = start
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(start) < limit {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 50) > 0 {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                // An answer (a refusal of a request not read yet, say) may come first; the end is what counts.
                if count == 0 || (count < 0 && errno == ECONNRESET) { return Date().timeIntervalSince(start) }
            }
            if case .trickles(let interval) = behaviour, Date() >= nextByte {
                var byte = UInt8(ascii: "x")
                if send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) < 0 { return Date().timeIntervalSince(start) }
                nextByte = Date().addingTimeInterval(interval)
            }
        }
        return nil
    }
}
