import ClassWire
import Classroom
import Crypto
import Foundation
import Testing

/// A request's token: made by the device key for one server, accepted only as ES256 with a
/// registered key, sound dates and this server's origin; each way of forging, stretching or
/// replaying one is refused with its reason.
struct DeviceTokenTests {
    let device = P256.Signing.PrivateKey()
    var kid: String { Identity.keyIdentifier(of: device.publicKey.x963Representation) }
    /// The server verifying, as students joined it.
    let server = try! ServerOrigin("https://class.example.org")

    /// The registry of one key: the device's.
    func registered(_ wanted: String) -> P256.Signing.PublicKey? {
        wanted == kid ? device.publicKey : nil
    }

    func verify(_ token: String, at now: Date = Date()) async throws -> DeviceToken.Verified {
        try await DeviceToken.verify(token, audiences: [server], at: now) { registered($0) }
    }

    func refusal(_ token: String, at now: Date = Date()) async -> String? {
        do {
            _ = try await verify(token, at: now)
            Issue.record("the token was accepted")
            return nil
        } catch let error as WireError {
            #expect(error.code == .unauthorized)
            return error.message
        } catch {
            Issue.record("expected a WireError, got \(error)")
            return nil
        }
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A token put together by hand: a header, claims (the server's `aud` unless told otherwise,
    /// and more) and a signature.
    func handMade(
        header: String, iat: Date = Date(), exp: Date = Date().addingTimeInterval(600),
        audience: String? = #""https://class.example.org:443""#, more: String = "", sign: (Data) -> Data
    ) -> String {
        let claims =
            #"{"iat":\#(Int(iat.timeIntervalSince1970)),"exp":\#(Int(exp.timeIntervalSince1970))"#
            + (audience.map { #","aud":\#($0)"# } ?? "") + more + "}"
        let signed = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        return signed + "." + Self.base64URL(sign(Data(signed.utf8)))
    }

    @Test func aTokenOfTheDeviceKeyIsAccepted() async throws {
        let now = Date()
        let token = try await DeviceToken.make(key: device, audience: server, at: now, lifetime: 600)
        let verified = try await verify(token, at: now.addingTimeInterval(30))
        #expect(verified.keyIdentifier == kid)
        #expect(abs(verified.expiresAt.timeIntervalSince(now) - 600) < 1)
        // A hand-made ES256 token verifies too: the format is the standard one.
        let header = #"{"alg":"ES256","typ":"JWT","kid":"\#(kid)"}"#
        let manual = handMade(header: header) { try! device.signature(for: $0).rawRepresentation }
        #expect(try await verify(manual).keyIdentifier == kid)
    }

    @Test func forgedTokensAreRefused() async throws {
        let none = handMade(header: #"{"alg":"none","kid":"\#(kid)"}"#) { _ in Data() }
        #expect(await refusal(none)?.contains("signed with none, not ES256") == true)
        // HMAC with the public key as its secret: the confusion of algorithms.
        let secret = SymmetricKey(data: device.publicKey.x963Representation)
        let hmac = handMade(header: #"{"alg":"HS256","kid":"\#(kid)"}"#) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret)) }
        #expect(await refusal(hmac)?.contains("signed with HS256") == true)
        let pemSecret = SymmetricKey(data: Data(device.publicKey.pemRepresentation.utf8))
        let pemHMAC = handMade(header: #"{"alg":"HS256","kid":"\#(kid)"}"#) {
            Data(HMAC<SHA256>.authenticationCode(for: $0, using: pemSecret))
        }
        #expect(await refusal(pemHMAC) != nil)
        // ES256 claimed, but the HMAC as its signature.
        let claimed = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#) {
            Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret))
        }
        #expect(await refusal(claimed)?.contains("does not verify") == true)
        // Another device's key signing under this device's kid.
        let other = P256.Signing.PrivateKey()
        let impostor = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#) { try! other.signature(for: $0).rawRepresentation }
        #expect(await refusal(impostor)?.contains("does not verify") == true)
        // A valid token of an unregistered key, and one with its claims changed after signing.
        #expect(
            await refusal(try await DeviceToken.make(key: other, audience: server))?.contains(
                "not registered here: join a class (clsfile join)") == true)
        let valid = try await DeviceToken.make(key: device, audience: server)
        let parts = valid.split(separator: ".")
        let stretched = #"{"iat":\#(Int(Date().timeIntervalSince1970)),"exp":\#(Int(Date().timeIntervalSince1970) + 86_400)}"#
        let tampered = [String(parts[0]), Self.base64URL(Data(stretched.utf8)), String(parts[2])].joined(separator: ".")
        #expect(await refusal(tampered)?.contains("does not verify") == true)
        let noKid = handMade(header: #"{"alg":"ES256"}"#) { try! device.signature(for: $0).rawRepresentation }
        #expect(await refusal(noKid)?.contains("names no key") == true)
        for garbage in ["", "abc", "a.b.c", "a.b", String(repeating: "x", count: 5000)] {
            #expect(await refusal(garbage)?.contains("is not a JWT") == true, "\(garbage.prefix(10))")
        }
    }

    @Test func tokensOutOfDateAreRefused() async throws {
        let now = Date()
        let expired = try await DeviceToken.make(key: device, audience: server, at: now.addingTimeInterval(-3600), lifetime: 600)
        #expect(await refusal(expired, at: now)?.contains("expired at") == true)
        #expect(await refusal(expired, at: now)?.contains("make a new one") == true)
        let future = try await DeviceToken.make(key: device, audience: server, at: now.addingTimeInterval(600), lifetime: 600)
        #expect(await refusal(future, at: now)?.contains("made in the future") == true)
        #expect(await refusal(future, at: now)?.contains("check the clock of the computer that made it") == true)
        let tooLong = try await DeviceToken.make(key: device, audience: server, at: now, lifetime: 31 * 60)
        #expect(await refusal(tooLong, at: now)?.contains("more than 30 minutes") == true)
        // Within the minute of clock skew either way: accepted.
        let early = try await DeviceToken.make(key: device, audience: server, at: now.addingTimeInterval(45), lifetime: 600)
        #expect(try await verify(early, at: now).keyIdentifier == kid)
        let justExpired = try await DeviceToken.make(key: device, audience: server, at: now.addingTimeInterval(-630), lifetime: 600)
        #expect(try await verify(justExpired, at: now).keyIdentifier == kid)
    }

    @Test func aTokenNamingNoServerIsRefused() async throws {
        let bare = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#, audience: nil) { try! device.signature(for: $0).rawRepresentation }
        #expect(await refusal(bare)?.contains("names no server (aud)") == true)
        let empty = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#, audience: "[]") {
            try! device.signature(for: $0).rawRepresentation
        }
        #expect(await refusal(empty)?.contains("names no server (aud)") == true)
    }

    @Test func aTokenMadeForAnotherServerIsRefused() async throws {
        let elsewhere = try await DeviceToken.make(key: device, audience: try ServerOrigin("http://class.example.org.evil.test:8080"))
        let message = await refusal(elsewhere)
        #expect(
            message?.contains(
                "was made for another server (http://class.example.org.evil.test:8080), not this one (https://class.example.org:443)")
                == true,
            "\(message ?? "")")
        // The same host over another scheme or port is another server too.
        for other in ["http://class.example.org", "https://class.example.org:8443"] {
            #expect(
                await refusal(try await DeviceToken.make(key: device, audience: try ServerOrigin(other)))?.contains("another server")
                    == true, "\(other)")
        }
        // Written another way by hand: the origin is compared as the server writes it.
        let unwritten = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#, audience: #""https://class.example.org""#) {
            try! device.signature(for: $0).rawRepresentation
        }
        #expect(await refusal(unwritten)?.contains("another server") == true)
        // A list of audiences that has this server is taken, as RFC 7519 says.
        let listed = handMade(
            header: #"{"alg":"ES256","kid":"\#(kid)"}"#, audience: #"["https://other.test:443","https://class.example.org:443"]"#
        ) {
            try! device.signature(for: $0).rawRepresentation
        }
        #expect(try await verify(listed).keyIdentifier == kid)
        // A server with two origins takes a token of either.
        let proxied = try ServerOrigin("http://127.0.0.1:8080")
        let direct = try await DeviceToken.make(key: device, audience: proxied)
        #expect(try await DeviceToken.verify(direct, audiences: [server, proxied]) { registered($0) }.keyIdentifier == kid)
    }

    @Test func aTokenNotGoodYetIsRefused() async throws {
        let now = Date()
        func token(notBefore: Date) -> String {
            handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#, iat: now, more: #","nbf":\#(Int(notBefore.timeIntervalSince1970))"#) {
                try! device.signature(for: $0).rawRepresentation
            }
        }
        let later = await refusal(token(notBefore: now.addingTimeInterval(300)), at: now)
        #expect(later?.contains("is not good before") == true && later?.contains("(nbf)") == true, "\(later ?? "")")
        // Within the minute of clock skew, or past: accepted.
        #expect(try await verify(token(notBefore: now.addingTimeInterval(45)), at: now).keyIdentifier == kid)
        #expect(try await verify(token(notBefore: now.addingTimeInterval(-60)), at: now).keyIdentifier == kid)
    }

    @Test(arguments: [#"["exp"]"#, "[]", #""b64""#, #"["https://class.example.org/private-extension"]"#])
    func aTokenWithCritIsRefused(crit: String) async throws {
        let critical = handMade(header: #"{"alg":"ES256","kid":"\#(kid)","crit":\#(crit)}"#) {
            try! device.signature(for: $0).rawRepresentation
        }
        #expect(await refusal(critical)?.contains("names extensions it requires (crit)") == true)
    }

    @Test(arguments: [
        ("https://class.example.org", "https://class.example.org:443"),
        ("HTTPS://Class.Example.ORG:443/path?query#part", "https://class.example.org:443"),
        ("http://class.example.org/", "http://class.example.org:80"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://user@localhost:8080/x", "http://localhost:8080"),
        ("http://[::1]:8080", "http://[::1]:8080"),
        ("https://[2001:DB8::1]", "https://[2001:db8::1]:443")
    ])
    func aServerOriginIsWrittenOneWay(address: String, origin: String) throws {
        #expect(try ServerOrigin(address).value == origin)
        #expect(try ServerOrigin(try #require(URL(string: address))).value == origin)
    }

    @Test(arguments: ["ftp://class.example.org", "class.example.org", "https://", "http://:8080", "http://host:0", "http://host:70000", ""])
    func anAddressThatIsNoServersIsRefused(address: String) {
        #expect(throws: WireError.self) { _ = try ServerOrigin(address) }
    }
}
