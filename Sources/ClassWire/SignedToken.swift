internal import Crypto
import Foundation
internal import JWTKit

/// The JWTs the class server takes, signed with ES256 by a P-256 key named in the header (`kid`):
/// what ``DeviceToken`` and ``CatalogToken`` share. Anything else is refused: another algorithm
/// (`none`, an HMAC made with the public key as its secret), a header that names extensions the
/// verifier must understand (`crit`, RFC 7515 §4.1.11: none are), an unknown key, an expired token,
/// one made in the future or not good before a time still to come (`nbf`), or one good for a time
/// outside the allowed lifetimes, with a clock skew of a minute allowed.
enum SignedToken {
    /// How far apart the signer's clock and the server's may be.
    static let clockSkew: TimeInterval = 60

    struct Claims: JWTPayload {
        var iss: IssuerClaim?
        var aud: AudienceClaim?
        var nbf: NotBeforeClaim?
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        var jti: IDClaim?

        // Checked by ``verify(_:at:lifetimes:unknownKey:key:)``, against the time it is given.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Makes a token.
    /// - Parameter audience: Who it is for (`aud`), or nil for a token that names no audience.
    static func make(
        key: P256.Signing.PrivateKey, kid: String, issuer: String?, audience: String?, at date: Date,
        lifetime: TimeInterval
    ) async throws -> String {
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: kid))
        let claims = Claims(
            iss: issuer.map { IssuerClaim(value: $0) }, aud: audience.map { AudienceClaim(value: [$0]) },
            iat: IssuedAtClaim(value: date),
            exp: ExpirationClaim(value: date.addingTimeInterval(lifetime)),
            jti: issuer == nil ? nil : IDClaim(value: UUID().uuidString))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Verifies a token and returns its key id and claims.
    /// - Parameters:
    ///   - lifetimes: How long a token may be good for, from `iat` to `exp`.
    ///   - unknownKey: What to do when the key id is not registered, for the refusal's message.
    ///   - key: The public key registered under a key id, or nil when there is none.
    /// - Throws: ``WireError`` `.unauthorized` saying why the token is refused.
    static func verify(
        _ token: String, at now: Date, lifetimes: ClosedRange<TimeInterval>, unknownKey: String,
        key: (String) async throws -> P256.Signing.PublicKey?
    ) async throws -> (kid: String, claims: Claims) {
        func refuse(_ why: String) -> WireError { WireError(.unauthorized, "the token \(why)") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 4096, parts.count == 3, let headerData = base64URLDecoded(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else {
            throw refuse("is not a JWT (three base64url parts, a JSON header)")
        }
        guard header.alg == "ES256" else { throw refuse("is signed with \(header.alg.prefix(20)), not ES256: sign it with your P-256 key") }
        guard !header.namesCriticalExtensions else {
            throw refuse("names extensions it requires (crit), which this server does not know: make it without crit")
        }
        guard let kid = header.kid, CatalogWire.isName(kid) else {
            throw refuse("names no key (kid) of 1 to 64 letters, digits, '.', '_' or '-': put the key's id in its header")
        }
        guard let publicKey = try await key(kid) else { throw refuse("names the key \(kid), which is not registered here: \(unknownKey)") }
        let keys = await JWTKeyCollection().add(ecdsa: try ES256PublicKey(backing: publicKey), kid: JWKIdentifier(string: kid))
        let claims: Claims
        do {
            claims = try await keys.verify(token, as: Claims.self)
        } catch {
            throw refuse("does not verify with the key \(kid): its signature or claims are malformed; make a new one with that key")
        }
        let (issued, expires) = (claims.iat.value, claims.exp.value)
        guard issued <= now.addingTimeInterval(clockSkew) else {
            throw refuse("was made in the future (\(issued)): check the clock of the computer that made it")
        }
        guard expires > now.addingTimeInterval(-clockSkew) else {
            throw refuse("expired at \(expires): make a new one (and check the clock of the computer that made it)")
        }
        if let notBefore = claims.nbf?.value, notBefore > now.addingTimeInterval(clockSkew) {
            throw refuse("is not good before \(notBefore) (nbf): make one good now, and check the clock of the computer that made it")
        }
        // Any date a JWT may carry, however far off: shown as a Double, never converted to Int.
        let lifetime = expires.timeIntervalSince(issued)
        let shown = lifetime.formatted(.number.precision(.fractionLength(0)).grouping(.never))
        let allowed =
            lifetimes.lowerBound > 0
            ? "\(Int(lifetimes.lowerBound / 60)) to \(Int(lifetimes.upperBound / 60)) minutes"
            : "at most \(Int(lifetimes.upperBound / 60)) minutes"
        guard lifetime.isFinite, lifetime <= lifetimes.upperBound else {
            throw refuse("is good for \(shown) s, more than \(Int(lifetimes.upperBound / 60)) minutes: make one good for \(allowed)")
        }
        guard lifetime >= lifetimes.lowerBound, lifetime > 0 else {
            throw refuse("is good for \(shown) s, less than it must be: make one good for \(allowed)")
        }
        return (kid, claims)
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
        /// Whether the header has `crit`, whatever its value.
        var namesCriticalExtensions: Bool

        private enum CodingKeys: String, CodingKey { case alg, kid, crit }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            alg = try container.decode(String.self, forKey: .alg)
            kid = try container.decodeIfPresent(String.self, forKey: .kid)
            namesCriticalExtensions = container.contains(.crit)
        }
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
