@testable import ClassServer
import Classroom
import ClassSync
import Crypto
import Foundation
import Testing

/// A request's token: made by the device key, accepted only as ES256 with a registered key and
/// sound dates; each way of forging or stretching one is refused with its reason.
struct DeviceTokenTests {
    let device = P256.Signing.PrivateKey()
    var kid: String { Identity.keyIdentifier(of: device.publicKey.x963Representation) }

    /// The registry of one key: the device's.
    func registered(_ wanted: String) -> P256.Signing.PublicKey? {
        wanted == kid ? device.publicKey : nil
    }

    func refusal(_ token: String, at now: Date = Date()) async -> String? {
        do {
            _ = try await DeviceToken.verify(token, at: now) { registered($0) }
            Issue.record("the token was accepted")
            return nil
        } catch let error as SyncError {
            #expect(error.code == .unauthorized)
            return error.message
        } catch {
            Issue.record("expected a SyncError, got \(error)")
            return nil
        }
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A token put together by hand: a header, claims and a signature.
    func handMade(header: String, iat: Date = Date(), exp: Date = Date().addingTimeInterval(600),
                  sign: (Data) -> Data) -> String {
        let claims = #"{"iat":\#(Int(iat.timeIntervalSince1970)),"exp":\#(Int(exp.timeIntervalSince1970))}"#
        let signed = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        return signed + "." + Self.base64URL(sign(Data(signed.utf8)))
    }

    @Test func aTokenOfTheDeviceKeyIsAccepted() async throws {
        let now = Date()
        let token = try await DeviceToken.make(key: device, at: now, lifetime: 600)
        let verified = try await DeviceToken.verify(token, at: now.addingTimeInterval(30)) { registered($0) }
        #expect(verified.keyIdentifier == kid)
        #expect(abs(verified.expiresAt.timeIntervalSince(now) - 600) < 1)
        // A hand-made ES256 token verifies too: the format is the standard one.
        let header = #"{"alg":"ES256","typ":"JWT","kid":"\#(kid)"}"#
        let manual = handMade(header: header) { try! device.signature(for: $0).rawRepresentation }
        #expect(try await DeviceToken.verify(manual) { registered($0) }.keyIdentifier == kid)
    }

    @Test func forgedTokensAreRefused() async throws {
        let none = handMade(header: #"{"alg":"none","kid":"\#(kid)"}"#) { _ in Data() }
        #expect(await refusal(none)?.contains("signed with none, not ES256") == true)
        // HMAC with the public key as its secret: the confusion of algorithms.
        let secret = SymmetricKey(data: device.publicKey.x963Representation)
        let hmac = handMade(header: #"{"alg":"HS256","kid":"\#(kid)"}"#) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret)) }
        #expect(await refusal(hmac)?.contains("signed with HS256") == true)
        let pemSecret = SymmetricKey(data: Data(device.publicKey.pemRepresentation.utf8))
        let pemHMAC = handMade(header: #"{"alg":"HS256","kid":"\#(kid)"}"#) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: pemSecret)) }
        #expect(await refusal(pemHMAC) != nil)
        // ES256 claimed, but the HMAC as its signature.
        let claimed = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#) { Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret)) }
        #expect(await refusal(claimed)?.contains("does not verify") == true)
        // Another device's key signing under this device's kid.
        let other = P256.Signing.PrivateKey()
        let impostor = handMade(header: #"{"alg":"ES256","kid":"\#(kid)"}"#) { try! other.signature(for: $0).rawRepresentation }
        #expect(await refusal(impostor)?.contains("does not verify") == true)
        // A valid token of an unregistered key, and one with its claims changed after signing.
        #expect(await refusal(try await DeviceToken.make(key: other))?.contains("not registered here: join a class (clsfile join)") == true)
        let valid = try await DeviceToken.make(key: device)
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
        let expired = try await DeviceToken.make(key: device, at: now.addingTimeInterval(-3600), lifetime: 600)
        #expect(await refusal(expired, at: now)?.contains("expired at") == true)
        #expect(await refusal(expired, at: now)?.contains("make a new one") == true)
        let future = try await DeviceToken.make(key: device, at: now.addingTimeInterval(600), lifetime: 600)
        #expect(await refusal(future, at: now)?.contains("made in the future") == true)
        #expect(await refusal(future, at: now)?.contains("check the clock of the computer that made it") == true)
        let tooLong = try await DeviceToken.make(key: device, at: now, lifetime: 31 * 60)
        #expect(await refusal(tooLong, at: now)?.contains("more than 30 minutes") == true)
        // Within the minute of clock skew either way: accepted.
        let early = try await DeviceToken.make(key: device, at: now.addingTimeInterval(45), lifetime: 600)
        #expect(try await DeviceToken.verify(early, at: now) { registered($0) }.keyIdentifier == kid)
        let justExpired = try await DeviceToken.make(key: device, at: now.addingTimeInterval(-630), lifetime: 600)
        #expect(try await DeviceToken.verify(justExpired, at: now) { registered($0) }.keyIdentifier == kid)
    }
}
