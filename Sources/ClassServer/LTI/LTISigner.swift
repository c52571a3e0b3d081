import Foundation
internal import JWTKit

/// Signs what the tool sends a platform with its current key (RS256, the key's `kid` in the
/// header). The key is read from the database and kept a minute, so that every process signs
/// with a rotated key within a minute of `clsfile-server lti rotate-key`.
actor LTISigner {
    private let database: ServerDatabase
    private var kept: (kid: String, keys: JWTKeyCollection, readAt: ContinuousClock.Instant)?

    init(database: ServerDatabase) {
        self.database = database
    }

    func sign(_ payload: some JWTPayload) async throws -> String {
        let (kid, keys) = try await current()
        return try await keys.sign(payload, kid: JWKIdentifier(string: kid))
    }

    private func current() async throws -> (String, JWTKeyCollection) {
        if let kept, ContinuousClock.now - kept.readAt < .seconds(60) { return (kept.kid, kept.keys) }
        guard let current = try await database.toolKeys().first(where: \.isCurrent), let pem = current.privateKeyPEM else {
            throw ServerError(
                .notFound,
                "the tool has no key to sign with: the server's administrator registers an LMS (clsfile-server lti register), which makes one"
            )
        }
        let keys = await JWTKeyCollection().add(
            rsa: try Insecure.RSA.PrivateKey(pem: pem), digestAlgorithm: .sha256, kid: JWKIdentifier(string: current.kid))
        kept = (current.kid, keys, ContinuousClock.now)
        return (current.kid, keys)
    }
}

/// The assertion that asks a platform for an access token (1EdTech Security Framework §4.1):
/// the tool's client id as issuer and subject, the token endpoint as audience, five minutes.
struct LTIClientAssertion: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim

    init(clientID: String, tokenURL: String, at now: Date = Date()) {
        iss = IssuerClaim(value: clientID)
        sub = SubjectClaim(value: clientID)
        aud = AudienceClaim(value: [tokenURL])
        iat = IssuedAtClaim(value: now)
        exp = ExpirationClaim(value: now.addingTimeInterval(300))
        jti = IDClaim(value: UUID().uuidString)
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The tool's answer to a deep-linking launch (LTI Deep Linking 2.0 §4.5): one link to a
/// clsfile assignment with a line item for the gradebook, signed for the platform.
struct LTIDeepLinkingResponse: JWTPayload {
    struct LineItem: Codable, Sendable {
        var label: String
        var scoreMaximum: Double
        var resourceId: String
        var tag: String
    }

    struct ContentItem: Codable, Sendable {
        var type = "ltiResourceLink"
        var title: String
        var url: String
        var custom: [String: String]
        var lineItem: LineItem
    }

    var iss: IssuerClaim
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var nonce: String
    var messageType = "LtiDeepLinkingResponse"
    var version = "1.3.0"
    var deploymentID: String
    var contentItems: [ContentItem]
    var data: String?

    /// An answer of `item` to a platform's deep-linking launch, good for ten minutes (the
    /// instructor posts it with a second click).
    init(clientID: String, platformIssuer: String, deploymentID: String, item: ContentItem, data: String?, at now: Date = Date()) {
        iss = IssuerClaim(value: clientID)
        aud = AudienceClaim(value: [platformIssuer])
        iat = IssuedAtClaim(value: now)
        exp = ExpirationClaim(value: now.addingTimeInterval(600))
        nonce = UUID().uuidString
        self.deploymentID = deploymentID
        contentItems = [item]
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, nonce
        case messageType = "https://purl.imsglobal.org/spec/lti/claim/message_type"
        case version = "https://purl.imsglobal.org/spec/lti/claim/version"
        case deploymentID = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
        case contentItems = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
        case data = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
