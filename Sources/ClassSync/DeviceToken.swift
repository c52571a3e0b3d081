import Classroom
import Crypto
import Foundation
import JWTKit

/// The token every request of a student or teacher to the class server carries
/// (`Authorization: Bearer TOKEN`): a JWT signed with ES256 by the device's P-256 key, its header
/// naming the key (`kid`), its claims only when it was made (`iat`) and when it stops being good
/// (`exp`), at most 30 minutes later.
///
/// The server keeps no passwords: a token proves that whoever sent it holds the device key the
/// account was registered with. Anything else is refused: another algorithm (`none`, an HMAC made
/// with the public key as its secret), an unknown key, an expired token, one made in the future or
/// good for longer than 30 minutes, a clock skew of a minute allowed.
public enum DeviceToken {
    /// The longest a token may be good for.
    public static let longestLifetime: TimeInterval = 30 * 60
    /// How far apart the device's clock and the server's may be.
    public static let clockSkew: TimeInterval = SignedToken.clockSkew

    /// Makes a token for a device key.
    /// - Parameters:
    ///   - key: The device's private key.
    ///   - date: When it is made.
    ///   - lifetime: How long it is good for; at most ``longestLifetime``.
    public static func make(key: P256.Signing.PrivateKey, at date: Date = Date(),
                            lifetime: TimeInterval = longestLifetime) async throws -> String {
        try await SignedToken.make(key: key, kid: Identity.keyIdentifier(of: key.publicKey.x963Representation),
                                   issuer: nil, at: date, lifetime: lifetime)
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
        let (kid, claims) = try await SignedToken.verify(
            token, at: now, lifetimes: 0...longestLifetime,
            unknownKey: "join a class (clsfile join) or ask the administrator to add the key", key: key)
        return Verified(keyIdentifier: kid, issuedAt: claims.iat.value, expiresAt: claims.exp.value)
    }
}
