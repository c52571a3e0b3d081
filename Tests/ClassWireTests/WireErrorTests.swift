import ClassWire
import Crypto
import Foundation
import Testing

/// What the wire code throws: a ``WireError`` whose code says which kind of refusal it is, and
/// whose message the server and the CLI show as it is.
struct WireErrorTests {
    @Test func aRefusedTokenIsUnauthorized() async throws {
        let publisher = P256.Signing.PrivateKey()
        let token = try await CatalogToken.make(key: publisher, kid: "acme-1", team: "acme")
        let refused = await #expect(throws: WireError.self) {
            _ = try await CatalogToken.verify(token) { _ in nil }
        }
        #expect(refused?.code == .unauthorized)
        #expect(
            refused?.message
                == "the token names the key acme-1, which is not registered here: ask the server's administrator to register it (clsfile-server publisher add)"
        )
        #expect(refused?.errorDescription == refused?.message)
    }

    @Test func aTokenOfAnotherTeamIsUnauthorized() async throws {
        let publisher = P256.Signing.PrivateKey()
        let token = try await CatalogToken.make(key: publisher, kid: "acme-1", team: "globex")
        let refused = await #expect(throws: WireError.self) {
            _ = try await CatalogToken.verify(token) { _ in (team: "acme", key: publisher.publicKey) }
        }
        #expect(refused?.code == .unauthorized)
        #expect(refused?.message == "the token's team (iss) globex is not the team the key acme-1 is registered to")
    }

    @Test func anAddressThatIsNoServersIsAnInvalidValue() {
        let refused = #expect(throws: WireError.self) { _ = try ServerOrigin("ftp://class.example.org") }
        #expect(refused?.code == .invalidValue)
        #expect(refused?.description == "'ftp://class.example.org' is not a class server's address: give it as http(s)://HOST[:PORT]")
    }

    @Test func codesAreNamedAsTheServerAnswersThem() {
        #expect("\(WireError.Code.unauthorized)" == "unauthorized")
        #expect("\(WireError.Code.invalidValue)" == "invalidValue")
    }
}
