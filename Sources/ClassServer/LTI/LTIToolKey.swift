internal import Crypto
internal import CryptoExtras
import Foundation
internal import JWTKit

/// One of the tool's own RSA keys, which sign what the tool sends a platform (a deep-linking
/// answer, the assertion that asks for an access token) and which platforms read at `/lti/jwks`.
///
/// Keys are 2,048 bits, RS256, named by their RFC 7638 thumbprint. One is current; a key rotated
/// out (`clsfile-server lti rotate-key`) stays published for seven days, so that what it signed
/// just before still verifies where a platform has cached the key set.
struct LTIToolKey: Sendable {
    /// The key's id (`kid`): its RFC 7638 thumbprint.
    let kid: String
    /// The public key, PEM.
    let publicKeyPEM: String
    /// The private key, PEM, of the current key, which signs; nil for a key published only.
    let privateKeyPEM: String?

    /// Whether it signs now.
    var isCurrent: Bool { privateKeyPEM != nil }

    /// A new key.
    static func generate() throws -> LTIToolKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return LTIToolKey(
            kid: try thumbprint(of: key.publicKey), publicKeyPEM: key.publicKey.pemRepresentation, privateKeyPEM: key.pemRepresentation)
    }

    /// The key's public half as a JWK (RS256, for signatures).
    func jwk() throws -> JWK {
        let key = try Insecure.RSA.PublicKey(pem: publicKeyPEM)
        let (modulus, exponent) = try key.getKeyPrimitives()
        return JWK.rsa(
            .rs256, identifier: JWKIdentifier(string: kid), modulus: modulus.base64URLEncodedString(),
            exponent: exponent.base64URLEncodedString())
    }

    /// The key set of `/lti/jwks`: every key given, public halves only.
    static func keySet(of keys: [LTIToolKey]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(JWKS(keys: try keys.map { try $0.jwk() }))
    }

    /// The RFC 7638 thumbprint: base64url of the SHA-256 of `{"e":…,"kty":"RSA","n":…}`.
    private static func thumbprint(of key: _RSA.Signing.PublicKey) throws -> String {
        let primitives = try key.getKeyPrimitives()
        let (modulus, exponent) = (primitives.modulus, primitives.publicExponent)
        let members = "{\"e\":\"\(exponent.base64URLEncodedString())\",\"kty\":\"RSA\",\"n\":\"\(modulus.base64URLEncodedString())\"}"
        return Data(SHA256.hash(data: Data(members.utf8))).base64URLEncodedString()
    }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    func base64URLEncodedString() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
