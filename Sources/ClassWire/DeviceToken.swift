internal import Classroom
public import Crypto
import Foundation
internal import JWTKit

/// The token every request of a student or teacher to the class server carries
/// (`Authorization: Bearer TOKEN`): a JWT signed with ES256 by the device's P-256 key, its header
/// naming the key (`kid`), its claims the server it is for (`aud`, the ``ServerOrigin`` of the
/// address the device was given), when it was made (`iat`) and when it stops being good (`exp`),
/// at most 30 minutes later.
///
/// The server keeps no passwords: a token proves that whoever sent it holds the device key the
/// account was registered with. Anything else is refused: another algorithm (`none`, an HMAC made
/// with the public key as its secret), a header with `crit`, an unknown key, a token that names
/// no audience or another server's, an expired token, one made in the future, not good before a
/// time still to come (`nbf`) or good for longer than 30 minutes, a clock skew of a minute
/// allowed. A token made for one server is refused by every other, so a server a student was
/// tricked into joining cannot use her tokens on the real one.
///
/// ```swift
/// let origin = try ServerOrigin("https://class.example.org")
/// let token = try await DeviceToken.make(key: identity.signingKey, audience: origin)
/// let verified = try await DeviceToken.verify(token, audiences: [origin]) { kid in registeredKey(kid) }
/// ```
public enum DeviceToken {
    /// The longest a token may be good for.
    public static let longestLifetime: TimeInterval = 30 * 60
    /// How far apart the device's clock and the server's may be.
    public static let clockSkew: TimeInterval = SignedToken.clockSkew

    /// Makes a token for a device key.
    /// - Parameters:
    ///   - key: The device's private key.
    ///   - audience: The server it is for: the origin of the address the device was given.
    ///   - date: When it is made.
    ///   - lifetime: How long it is good for; at most ``longestLifetime``.
    /// - Returns: The token, for `Authorization: Bearer`.
    public static func make(
        key: P256.Signing.PrivateKey, audience: ServerOrigin, at date: Date = Date(),
        lifetime: TimeInterval = longestLifetime
    ) async throws -> String {
        try await SignedToken.make(
            key: key, kid: Identity.keyIdentifier(of: key.publicKey.x963Representation),
            issuer: nil, audience: audience.value, at: date, lifetime: lifetime)
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
    ///   - audiences: The server's own origins: the token's `aud` must name one of them.
    ///   - now: The server's time.
    ///   - key: The public key registered under a key id, or nil when there is none.
    /// - Returns: The key id and dates of the token.
    /// - Throws: ``WireError`` `.unauthorized` saying why the token is refused.
    public static func verify(
        _ token: String, audiences: Set<ServerOrigin>, at now: Date = Date(),
        key: (String) async throws -> P256.Signing.PublicKey?
    ) async throws -> Verified {
        let (kid, claims) = try await SignedToken.verify(
            token, at: now, lifetimes: 0...longestLifetime,
            unknownKey: "join a class (clsfile join) or ask the administrator to add the key", key: key)
        let ours = audiences.map(\.value).sorted().joined(separator: ", ")
        guard let named = claims.aud?.value, !named.isEmpty else {
            throw WireError(
                .unauthorized,
                "the token names no server (aud), as an older clsfile made them: update clsfile (a token must name this server, \(ours))")
        }
        guard named.contains(where: { name in audiences.contains { $0.value == name } }) else {
            let shown = named.prefix(3).map { "\($0.prefix(100))" }.joined(separator: ", ")
            throw WireError(
                .unauthorized,
                "the token was made for another server (\(shown)), not this one (\(ours)): join this server at its own address (clsfile join URL --code CODE); its administrator names the addresses it is reached at with clsfile-server serve --public-url"
            )
        }
        return Verified(keyIdentifier: kid, issuedAt: claims.iat.value, expiresAt: claims.exp.value)
    }
}
