import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a real socket to 127.0.0.1, to see status codes and headers.
enum HTTPProbe {
    struct Reply {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct ProbeError: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends one request and reads the whole reply; a header given as "" is left out (`Host` too).
    static func request(port: Int, path: String, method: String = "GET", headers: [String: String] = [:]) throws -> Reply {
        let descriptor = try LoopbackSocket.connected(to: port)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var allHeaders = ["Host": "127.0.0.1:\(port)", "Connection": "close"]
        allHeaders.merge(headers) { $1 }
        allHeaders = allHeaders.filter { !$0.value.isEmpty }
        let head = "\(method) \(path) HTTP/1.1\r\n" + allHeaders.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n"
        let bytes = Array(head.utf8)
        guard send(descriptor, bytes, bytes.count, 0) == bytes.count else { throw ProbeError(description: "send: errno \(errno)") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 { throw ProbeError(description: "recv: errno \(errno)") }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw ProbeError(description: "no reply head in \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw ProbeError(description: "bad status line \(lines[0])") }
        let parsed = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Reply(status: status, headers: parsed, body: String(text[split.upperBound...]))
    }
}
