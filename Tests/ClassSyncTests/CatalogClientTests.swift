import ClassSync
import ClassWire
import Crypto
import Foundation
import TestSupport
import Testing

/// What a publisher's client refuses before it sends anything.
struct CatalogClientTests {
    /// The address is one nothing listens on: a refusal that came from sending would say the
    /// server is unreachable.
    @Test func aThumbnailThatIsNoImageIsRefusedBeforeItIsSent() async throws {
        let server = try SyncClient.serverURL("http://127.0.0.1:\(try LoopbackSocket.unusedPort())")
        let client = try CatalogClient(
            serverURL: server, team: "northwind", kid: "key-1", key: P256.Signing.PrivateKey(),
            environment: .development)
        let refused = await #expect(throws: SyncError.self) { _ = try await client.uploadThumbnail(Data("not an image".utf8), id: "cover") }
        #expect(refused?.code == .invalidValue)
        #expect(refused?.message == "the thumbnail cover is not a PNG or JPEG image")
    }
}
