import ClassSync
import ClassWire
import Crypto
import Foundation
import Testing

/// What a user sees of an address the wire format refuses: the client's own error, with the
/// wire format's message.
struct SyncClientAddressTests {
    @Test func anAddressOfPortZeroIsTheClientsInvalidValue() throws {
        let url = try #require(URL(string: "http://class.example.org:0"))
        let refused = #expect(throws: SyncError.self) { _ = try SyncClient(serverURL: url, key: P256.Signing.PrivateKey()) }
        #expect(refused?.code == .invalidValue)
        #expect(refused?.message == "'http://class.example.org:0' is not a class server's address: give it as http(s)://HOST[:PORT]")
        #expect(refused?.underlyingError is WireError)
    }
}
