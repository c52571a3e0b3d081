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
    /// The link launched; nil for a deep-linking launch.
    var resourceLinkID: String?
    /// The custom parameters of the link (those a deep link gave it, such as `clsfile_assignment`).
    var custom: [String: String]
    /// The line item of the gradebook bound to the link (Assignment and Grade Services), if any.
    var lineItemURL: String?
    /// The course's roster (Names and Role Provisioning Services), if the platform offers it.
    var membershipsURL: String?
    /// For a deep-linking launch: where the answer goes, and what it must echo.
    var deepLinking: LTIIDToken.DeepLinkingSettings?
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

    /// The Assignment and Grade Services endpoint of the launch.
    struct Endpoint: Codable, Sendable {
        var scope: [String]?
        var lineitems: String?
        var lineitem: String?
    }

    /// The Names and Role Provisioning Services claim of the launch.
    struct NamesRoleService: Codable, Sendable {
        var contextMembershipsURL: String

        enum CodingKeys: String, CodingKey {
            case contextMembershipsURL = "context_memberships_url"
        }
    }

    /// What a deep-linking launch asks for (LTI Deep Linking 2.0 §4.4.1).
    struct DeepLinkingSettings: Codable, Sendable, Equatable {
        var deepLinkReturnURL: String
        var acceptTypes: [String]
        var data: String?

        enum CodingKeys: String, CodingKey {
            case deepLinkReturnURL = "deep_link_return_url"
            case acceptTypes = "accept_types"
            case data
        }
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
    var custom: [String: LTICustomValue]?
    var endpoint: Endpoint?
    var namesRoleService: NamesRoleService?
    var deepLinkingSettings: DeepLinkingSettings?

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
        case custom = "https://purl.imsglobal.org/spec/lti/claim/custom"
        case endpoint = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
        case namesRoleService = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
        case deepLinkingSettings = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
    }

    // Checked by LTILaunchVerifier, in order, each with its own refusal.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A custom parameter's value: LTI sends strings, some platforms numbers or booleans; each is
/// read as its text.
struct LTICustomValue: Codable, Sendable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else if let number = try? container.decode(Double.self) {
            text = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        } else if let flag = try? container.decode(Bool.self) {
            text = String(flag)
        } else {
            text = ""
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
