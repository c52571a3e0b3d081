import ClassSync
import Crypto
import Foundation
import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

/// What the client decides before and without a class server: the addresses it takes, the
/// stores it sends, and what it tells when no server answers.
struct SyncClientTests {
    private func client(_ address: String) throws -> SyncClient {
        try SyncClient(serverURL: try SyncClient.serverURL(address), key: P256.Signing.PrivateKey())
    }

    @Test(arguments: ["https://class.example.org", "http://127.0.0.1:8080", "HTTPS://class.example.org/school/"])
    func anHTTPAddressWithAHostIsAServersAddress(_ address: String) throws {
        #expect(try SyncClient.serverURL(address).absoluteString == address)
    }

    @Test(arguments: ["class.example.org", "ftp://class.example.org", "https://", "file:///tmp/server"])
    func anyOtherAddressIsRefusedWithTheWayToWriteIt(_ address: String) {
        let refused = #expect(throws: SyncError.self) { try SyncClient.serverURL(address) }
        #expect(refused?.code == .invalidValue)
        #expect(
            refused?.message == "'\(address)' is not a class server's address: give it as https://HOST[:PORT], as your teacher wrote it")
    }

    @Test func aStoreThatJoinedNoServerHasNothingToSend() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let refused = await #expect(throws: SyncError.self) { try await client("https://class.example.org").sendOutbox(of: store) }
        #expect(refused?.code == .notJoined)
        #expect(
            refused?.message == "the store \(store.storeURL.path) has joined no class server: join one first (clsfile join URL --code CODE)"
        )
    }

    @Test func aStoreIsSentOnlyToTheServerItJoined() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let joined = try SyncClient.serverURL("https://class.example.org")
        _ = try await store.joinClassServer(
            ClassServerMembership(
                serverURL: joined, accountID: UUID(), classID: UUID(), className: "7B",
                teacherKey: nil))
        let refused = await #expect(throws: SyncError.self) { try await client("https://other.example.org").sendOutbox(of: store) }
        #expect(refused?.code == .invalidValue)
        #expect(refused?.message == "the store syncs to https://class.example.org, not https://other.example.org: join that server first")
    }

    @Test func aServerNothingListensForIsUnreachable() async throws {
        let address = "http://127.0.0.1:\(try LoopbackSocket.unusedPort())"
        let refused = await #expect(throws: SyncError.self) { _ = try await client(address).join(code: "ABC-123", name: "Sam") }
        #expect(refused?.code == .unreachable)
        #expect(refused?.message.hasPrefix("cannot reach the class server at \(address) (") == true)
    }

    /// A proxy in front of a server that is down answers 502 for it: the client tells the student
    /// to try again later, as for a server that cannot take the request now.
    @Test func aProxyWhoseServerIsDownMeansTryAgainLater() async throws {
        let scratch = try Scratch()
        let nginx = try await NginxProcess(upstreams: [try LoopbackSocket.unusedPort()], in: scratch.url)
        let refused = await #expect(throws: SyncError.self) {
            _ = try await client(nginx.url.absoluteString).join(code: "ABC-123", name: "Sam")
        }
        #expect(refused?.code == .unreachable)
        #expect(
            refused?.message.hasPrefix("the class server at \(nginx.url.absoluteString) cannot take the request now: HTTP 502; ") == true)
    }
}
