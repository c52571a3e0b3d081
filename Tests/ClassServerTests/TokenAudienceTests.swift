import ClassWire
import Classroom
import ClassSync
import Crypto
import Foundation
import OpenClassKit
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Tokens bound to their server: what a student's clsfile sends to a server she was tricked into
/// joining is refused by the real one, and a server takes the tokens of the addresses it is told
/// are its own, and no other.
@Suite(.serialized)
struct TokenAudienceTests {
    @Test func aTokenCaughtByAnotherServerIsRefusedByTheRealOne() async throws {
        let room = try await SyncTests.Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let membership = try #require(try await ada.store(.student).classServerMemberships().first)

        // Ada is tricked into joining another server, which keeps the token her clsfile sends.
        let catcher = try TokenCatcher()
        defer { catcher.stop() }
        let tricked = try run(try builtExecutable("clsfile"), ["join", catcher.address, "--code", room.code], environment: ada.environment)
        #expect(tricked.status != 0, "the other server answered 503")
        let token = try #require(catcher.tokens.first)
        // A token of its own, naming that server: nothing made for the real server is reused.
        #expect(try Self.audience(of: token) == [try ServerOrigin(catcher.address).value])
        // The request names the key that signed it, for a proxy's routing: the token's kid.
        let kid = try #require(try Self.part(0, of: token)["kid"] as? String)
        #expect(catcher.keyHeaders.first == kid)

        // Replayed on the real server, on every route: refused.
        let real = room.server.url.absoluteString
        func expectRefused(_ method: String, _ path: String, body: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation)
            async throws
        {
            let answer = try await URLRequestLike(url: real + path, method: method, body: body, token: token).send()
            #expect(
                answer.status == 401 && answer.error?.code == "unauthorized", "\(method) \(path): \(answer.status)",
                sourceLocation: sourceLocation)
            #expect(
                answer.error?.message.contains(
                    "was made for another server (\(try ServerOrigin(catcher.address).value)), not this one (\(room.server.origin.value))")
                    == true,
                "\(answer.error?.message ?? "")", sourceLocation: sourceLocation)
        }
        try await expectRefused("GET", "/v1/classes")
        try await expectRefused(
            "POST", "/v1/sync", body: try SyncWire.encoder.encode(SyncWire.SyncRequest(classID: membership.classID, operations: [])))
        let rejoin = SyncWire.JoinRequest(
            code: room.code, name: "Ada Lovelace", publicKey: try ada.identity(.student).signingKey.publicKey.x963Representation)
        try await expectRefused("POST", "/v1/join", body: try SyncWire.encoder.encode(rejoin))
        try await expectRefused("GET", "/v1/classes/\(membership.classID.uuidString.lowercased())/assignments")
        let page = try await SyncTests.get(real + "/classes/\(membership.classID.uuidString.lowercased())/?token=\(token)")
        #expect(page.status == 401 && page.body.contains("made for another server"))

        // Ada's own clsfile goes on syncing: its tokens name the server it joined.
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo More words. >> \\\"$0\\\"\"", essay.path)
        try ada.clsfile("sync")
        #expect(try await ada.store(.student).syncOutboxDepth() == 0)
        #expect(try await room.report().assignments.first?.students.map(\.work) == [try await SyncTests.ownWork(of: ada, essay: essay)])
    }

    @Test func aServerTakesTheTokensOfItsPublicURLsAlone() async throws {
        let room = try await SyncTests.Classroom()
        let (ada, _) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let adaKey = try ada.identity(.student).signingKey
        // A second server on the same database, behind a proxy students reach at class.example.org.
        let proxied = try await SyncTests.RunningServer(
            room.school, in: room.scratch.url, name: "proxied",
            options: ["--public-url", "https://Class.Example.org/", "--public-url", "http://class.example.org:8080"])
        #expect(
            proxied.process.output.contains("taking tokens made for http://class.example.org:8080, https://class.example.org:443\n"),
            "\(proxied.process.output)")
        #expect(room.server.process.output.contains("taking tokens made for \(room.server.origin.value)\n"))

        func status(_ server: SyncTests.RunningServer, audience: String) async throws -> (Int, String?) {
            let token = try await DeviceToken.make(key: adaKey, audience: try ServerOrigin(audience))
            let answer = try await URLRequestLike(url: server.url.absoluteString + "/v1/classes", method: "GET", token: token).send()
            return (answer.status, answer.error?.message)
        }
        #expect(try await status(proxied, audience: "https://class.example.org").0 == 200)
        #expect(try await status(proxied, audience: "http://class.example.org:8080").0 == 200)
        // The address it listens on is not one students use: a token for it is another server's,
        // and so is a token for the first server.
        let listening = try await status(proxied, audience: proxied.url.absoluteString)
        #expect(
            listening.0 == 401
                && listening.1?.contains("not this one (http://class.example.org:8080, https://class.example.org:443)") == true,
            "\(listening.1 ?? "")")
        #expect(try await status(proxied, audience: room.server.url.absoluteString).0 == 401)
        #expect(try await status(room.server, audience: "https://class.example.org").0 == 401)
        #expect(try await status(room.server, audience: room.server.url.absoluteString).0 == 200)

        let program = try builtExecutable("clsfile-server")
        let database = ["DATABASE_URL": room.school.cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile")]
        for address in ["ftp://class.example.org", "class.example.org"] {
            let refused = try run(program, ["serve", "--port", "0", "--public-url", address], environment: database)
            #expect(
                refused.status == 64 && refused.errorOutput.contains("--public-url: '\(address)' is not a class server's address"),
                "\(refused.errorOutput)")
        }
    }

    /// The audience a token's claims name.
    static func audience(of token: String) throws -> [String] {
        let object = try part(1, of: token)
        return (object["aud"] as? String).map { [$0] } ?? object["aud"] as? [String] ?? []
    }

    /// A token's header (0) or claims (1), decoded.
    static func part(_ index: Int, of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        var base64 = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

/// Someone else's server on loopback: it answers every request 503 and keeps the bearer token
/// each carried, and the key it named for routing (`Clsfile-Key`).
private final class TokenCatcher: Sendable {
    /// Its address, as a student would be given it.
    let address: String
    private let descriptor: Int32
    private let caught = Mutex<[String]>([])
    private let caughtKeys = Mutex<[String]>([])

    init() throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listening, $0, length) == 0 && listen(listening, 8) == 0 && getsockname(listening, $0, &length) == 0
            }
        }
        guard listening >= 0, bound else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        descriptor = listening
        address = "http://127.0.0.1:\(UInt16(bigEndian: local.sin_port))"
        Thread.detachNewThread { [self] in serve() }
    }

    /// The tokens caught so far.
    var tokens: [String] { caught.withLock { $0 } }
    /// The `Clsfile-Key` headers caught so far.
    var keyHeaders: [String] { caughtKeys.withLock { $0 } }

    /// Stops listening; the thread that accepts ends.
    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    private func serve() {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                let count = recv(client, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            let head = String(decoding: received, as: UTF8.self)
            for line in head.components(separatedBy: "\r\n") {
                if line.lowercased().hasPrefix("authorization: bearer ") {
                    let token = String(line.dropFirst("authorization: bearer ".count))
                    caught.withLock { $0.append(token) }
                } else if line.lowercased().hasPrefix("clsfile-key: ") {
                    let key = String(line.dropFirst("clsfile-key: ".count))
                    caughtKeys.withLock { $0.append(key) }
                }
            }
            let answer = Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            _ = send(client, answer, answer.count, Int32(MSG_NOSIGNAL))
            close(client)
        }
    }
}
