import Classroom
import Crypto
import Foundation
import JWTKit

/// The token every request to the class server carries (`Authorization: Bearer TOKEN`): a JWT
/// signed with ES256 by the device's P-256 key, its header naming the key (`kid`), its claims only
/// when it was made (`iat`) and when it stops being good (`exp`), at most 30 minutes later.
///
/// The server keeps no passwords: a token proves that whoever sent it holds the device key the
/// account was registered with. Anything else is refused: another algorithm (`none`, an HMAC made
/// with the public key as its secret), an unknown key, an expired token, one made in the future or
/// good for longer than 30 minutes, a clock skew of a minute allowed.
public enum DeviceToken {
    /// The longest a token may be good for.
    public static let longestLifetime: TimeInterval = 30 * 60
    /// How far apart the device's clock and the server's may be.
    public static let clockSkew: TimeInterval = 60

    /// The claims of a token.
    struct Claims: JWTPayload {
        var iat: IssuedAtClaim
        var exp: ExpirationClaim

        // Checked by ``verify(_:at:key:)``, against the time it is given.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Makes a token for a device key.
    /// - Parameters:
    ///   - key: The device's private key.
    ///   - date: When it is made.
    ///   - lifetime: How long it is good for; at most ``longestLifetime``.
    public static func make(key: P256.Signing.PrivateKey, at date: Date = Date(),
                            lifetime: TimeInterval = longestLifetime) async throws -> String {
        let kid = Identity.keyIdentifier(of: key.publicKey.x963Representation)
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
        return try await keys.sign(Claims(iat: IssuedAtClaim(value: date), exp: ExpirationClaim(value: date.addingTimeInterval(lifetime))),
                                   kid: JWKIdentifier(string: kid))
    }

    /// What a verified token says.
    public struct Verified: Sendable, Equatable {
        /// The id of the key that signed it.
        public var keyIdentifier: String
        public var issuedAt: Date
        public var expiresAt: Date
    }

    /// Verifies a token.
    /// - Parameters:
    ///   - token: The token, as the `Authorization` header gives it after `Bearer `.
    ///   - now: The server's time.
    ///   - key: The public key registered under a key id, or nil when there is none.
    /// - Throws: ``SyncError`` `.unauthorized` saying why the token is refused.
    public static func verify(_ token: String, at now: Date = Date(),
                              key: (String) async throws -> P256.Signing.PublicKey?) async throws -> Verified {
        func refuse(_ why: String) -> SyncError { SyncError(.unauthorized, "the token \(why)") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 4096, parts.count == 3, let headerData = base64URLDecoded(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw refuse("is not a JWT (three base64url parts, a JSON header): send the one clsfile makes")
        }
        guard header.alg == "ES256" else { throw refuse("is signed with \(header.alg.prefix(20)), not ES256: sign it with the device key") }
        guard let kid = header.kid, (1...64).contains(kid.utf8.count) else { throw refuse("names no key (kid): put the device key's id in its header") }
        guard let publicKey = try await key(kid) else { throw refuse("names the key \(kid), which is not registered here: join a class (clsfile join) or ask the administrator to add the key") }
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PublicKey(backing: publicKey), kid: JWKIdentifier(string: kid))
        let claims: Claims
        do {
            claims = try await keys.verify(token, as: Claims.self)
        } catch {
            throw refuse("does not verify with the key \(kid): its signature or claims are malformed; make a new one with the device key")
        }
        let (issued, expires) = (claims.iat.value, claims.exp.value)
        guard issued <= now.addingTimeInterval(clockSkew) else { throw refuse("was made in the future (\(issued)): check the device's clock") }
        guard expires > now.addingTimeInterval(-clockSkew) else { throw refuse("expired at \(expires): make a new one (and check the device's clock)") }
        guard expires.timeIntervalSince(issued) <= longestLifetime, expires > issued else {
            throw refuse("is good for \(Int(expires.timeIntervalSince(issued))) s, more than 30 minutes or less than none: make one good for at most 30 minutes")
        }
        return Verified(keyIdentifier: kid, issuedAt: issued, expiresAt: expires)
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
