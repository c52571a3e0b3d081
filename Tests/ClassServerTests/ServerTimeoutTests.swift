import Foundation
import Testing
import TestSupport

/// A client that starts a request and does not finish it holds `clsfile-server serve` no longer
/// than its timeouts: idle, and the whole body.
@Suite(.serialized)
struct ServerTimeoutTests {
    @Test func aHalfSentBodyIsDisconnectedWithinTheTimeouts() async throws {
        let school = try await ServerDatabaseTests.School()
        let scratch = try Scratch()
        let server = try await SyncTests.RunningServer(school, in: scratch.url, options: ["--idle-timeout", "1", "--body-timeout", "3"])
        let port = try #require(server.url.port)
        let head = "POST /v1/join HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
        let halfBody = head + "Content-Length: 1000\r\n\r\n" + String(repeating: "x", count: 500)

        // Half the body, then nothing: closed once idle for a second.
        let stalled = try StallingClient.secondsUntilClosed(port: port, sending: halfBody, then: .stalls, limit: 20)
        #expect(try #require(stalled) < 2.5, "closed after \(stalled ?? 0) s")
        // The rest a byte every quarter second, never idle a second: closed by the body's timeout.
        let longBody = head + "Content-Length: 100000\r\n\r\n" + String(repeating: "x", count: 500)
        let trickled = try StallingClient.secondsUntilClosed(port: port, sending: longBody, then: .trickles(every: 0.25), limit: 20)
        #expect(try #require(trickled) >= 2.5 && trickled ?? 0 < 5, "closed after \(trickled ?? 0) s")
        // Half a head, then nothing: closed once idle too.
        let halfHead = try StallingClient.secondsUntilClosed(
            port: port, sending: "POST /v1/join HTTP/1.1\r\nHost: 127.0.0.1", then: .stalls, limit: 20)
        #expect(try #require(halfHead) < 2.5, "closed after \(halfHead ?? 0) s")

        // The server goes on answering.
        let answer = try await URLRequestLike(url: server.url.absoluteString + "/v1/classes", method: "GET", token: nil).send()
        #expect(answer.status == 401)

        let program = try builtExecutable("clsfile-server")
        let database = ["DATABASE_URL": school.cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile")]
        let none = try run(program, ["serve", "--port", "0", "--idle-timeout", "0"], environment: database)
        #expect(none.status == 64 && none.errorOutput.contains("--idle-timeout must be 0.1 to 86400 seconds"), "\(none.errorOutput)")
        // The teacher's dashboard takes the same options, with the same check.
        let dashboard = try run(try builtExecutable("clsfile-serve"), ["--body-timeout", "100000"], environment: [:])
        #expect(
            dashboard.status == 64 && dashboard.errorOutput.contains("--body-timeout must be 0.1 to 86400 seconds, not 100000.0"),
            "\(dashboard.errorOutput)")
    }
}
