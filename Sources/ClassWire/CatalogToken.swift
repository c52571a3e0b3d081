public import Crypto
import Foundation
internal import JWTKit

/// The token every call of the Catalog API carries (`Authorization: Bearer TOKEN`): a JWT signed
/// with ES256 by a publisher's P-256 key, its header naming the key as the administrator
/// registered it (`kid`), its claims the publisher's team (`iss`), when it was made (`iat`) and
/// when it stops being good (`exp`, 10 to 30 minutes later), and an id of its own (`jti`).
///
/// Refused: another algorithm (`none`, an HMAC made with the public key as its secret), an
/// unknown key, a team other than the key's, an expired token, one made in the future, one good
/// for less than 10 or more than 30 minutes, and one with `crit` or an `nbf` still to come; a
/// clock skew of a minute is allowed. Its audience (`aud`) is neither set nor checked.
public enum CatalogToken {
    /// How long a token may be good for, from `iat` to `exp`.
    public static let lifetimes: ClosedRange<TimeInterval> = 10 * 60...30 * 60

    /// Makes a token.
    /// - Parameters:
    ///   - key: The publisher's private key.
    ///   - kid: The key's id, as the server's administrator registered it.
    ///   - team: The publisher's team.
    ///   - date: When it is made.
    ///   - lifetime: How long it is good for: 10 to 30 minutes.
    public static func make(
        key: P256.Signing.PrivateKey, kid: String, team: String, at date: Date = Date(),
        lifetime: TimeInterval = 20 * 60
    ) async throws -> String {
        try await SignedToken.make(key: key, kid: kid, issuer: team, audience: nil, at: date, lifetime: lifetime)
    }

    /// What a verified token says.
    public struct Verified: Sendable, Equatable {
        /// The id of the key that signed it.
        public var keyIdentifier: String
        /// The publisher's team, which the key is registered to.
        public var team: String
        public var issuedAt: Date
        public var expiresAt: Date
    }

    /// Verifies a token.
    /// - Parameters:
    ///   - token: The token, as the `Authorization` header gives it after `Bearer `.
    ///   - now: The server's time.
    ///   - publisher: The team and public key registered under a key id, or nil when there is none.
    /// - Throws: ``WireError`` `.unauthorized` saying why the token is refused.
    public static func verify(
        _ token: String, at now: Date = Date(),
        publisher: (String) async throws -> (team: String, key: P256.Signing.PublicKey)?
    ) async throws -> Verified {
        let found = TeamBox()
        let (kid, claims) = try await SignedToken.verify(
            token, at: now, lifetimes: lifetimes,
            unknownKey: "ask the server's administrator to register it (clsfile-server publisher add)"
        ) { kid in
            guard let entry = try await publisher(kid) else { return nil }
            found.team = entry.team
            return entry.key
        }
        guard let team = found.team, let issuer = claims.iss?.value else {
            throw WireError(.unauthorized, "the token names no team (iss): put your team id in its claims")
        }
        guard issuer == team else {
            throw WireError(.unauthorized, "the token's team (iss) \(issuer.prefix(64)) is not the team the key \(kid) is registered to")
        }
        return Verified(keyIdentifier: kid, team: team, issuedAt: claims.iat.value, expiresAt: claims.exp.value)
    }
}

/// The team of the key a token names, filled in by the look-up the verification makes.
private final class TeamBox: @unchecked Sendable {
    // Written once, by the look-up closure, before it is read; never shared between calls.
    var team: String?
}
