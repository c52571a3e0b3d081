import Foundation
internal import JWTKit

/// A launch whose `id_token` ``LTILaunchVerifier`` verified: who launched, in which course, in
/// which role, from which deployment.
struct LTILaunch: Sendable, Equatable {
    /// What a person launches as: the class's teacher, or one of its students.
    enum Role: Sendable, Equatable {
        case instructor, learner
    }

    /// The course (`context`) the launch comes from.
    struct Context: Sendable, Equatable {
        var id: String
        var title: String?
        var label: String?
    }

    var deploymentID: String
    /// The person's id on the platform (`sub`).
    var subject: String
    /// The person's name as the platform gives it, else their id.
    var displayName: String
    var role: Role
    var context: Context
    var resourceLinkID: String?
}

/// The claims of an LTI 1.3 `id_token` this tool reads (LTI Core 1.3 §5), by their names.
struct LTIIDToken: JWTPayload {
    static let claimPrefix = "https://purl.imsglobal.org/spec/lti/claim/"

    struct Context: Codable, Sendable {
        var id: String
        var label: String?
        var title: String?
    }

    struct ResourceLink: Codable, Sendable {
        var id: String
        var title: String?
    }

    var iss: IssuerClaim
    var aud: AudienceClaim
    var azp: String?
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var sub: SubjectClaim?
    var name: String?
    var givenName: String?
    var familyName: String?
    var messageType: String?
    var version: String?
    var deploymentID: String?
    var targetLinkURI: String?
    var roles: [String]?
    var context: Context?
    var resourceLink: ResourceLink?

    enum CodingKeys: String, CodingKey {
        case iss, aud, azp, exp, iat, nonce, sub, name
        case givenName = "given_name"
        case familyName = "family_name"
        case messageType = "https://purl.imsglobal.org/spec/lti/claim/message_type"
        case version = "https://purl.imsglobal.org/spec/lti/claim/version"
        case deploymentID = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
        case targetLinkURI = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"
        case roles = "https://purl.imsglobal.org/spec/lti/claim/roles"
        case context = "https://purl.imsglobal.org/spec/lti/claim/context"
        case resourceLink = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
    }

    // Checked by LTILaunchVerifier, in order, each with its own refusal.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
