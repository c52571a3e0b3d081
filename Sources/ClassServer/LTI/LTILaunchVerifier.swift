import Foundation
internal import JWTKit

/// Checks a launch's `id_token` as the 1EdTech Security Framework (§5.1.3) and LTI Core 1.3
/// (§5.1.3) say, in order, each failure a ``ServerError`` that tells the LMS administrator what
/// to look at: the header (RS256, no `crit`, a `kid`), the signature with the platform's key of
/// that `kid` (fetched again once when not kept), the issuer, the audience (`aud`, and `azp`
/// when there are several), the times (`exp`, `iat`, a minute of clock skew), the login's `nonce`,
/// the deployment, the message type and version, the target, and who launched from which course.
struct LTILaunchVerifier: Sendable {
    /// How far apart the platform's clock and the server's may be.
    static let clockSkew: TimeInterval = 60
    /// The oldest an `id_token` may be when it arrives.
    static let longestAge: TimeInterval = 10 * 60
    static let resourceLinkRequest = "LtiResourceLinkRequest"
    static let deepLinkingRequest = "LtiDeepLinkingRequest"
    /// The roles that teach a course, whose first launch makes its class and owns it: a course's
    /// instructor, not a teaching assistant or a content developer, who would own every student's work.
    static let instructorRoles: Set<String> = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor", "Instructor"]
    static let learnerRoles: Set<String> = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner", "Learner"]

    let keys: LTIPlatformKeys

    /// The launch an `id_token` makes, once every check passed.
    /// - Parameters:
    ///   - idToken: The `id_token` the platform posted.
    ///   - platform: The platform of the login the launch's `state` names.
    ///   - login: That login.
    ///   - now: The server's time.
    /// - Throws: ``ServerError`` `.unauthorized` for a token that is not the platform's, or not
    ///   for this login; `.forbidden` for a person this tool has no place for (no role it knows,
    ///   anonymous); `.invalidValue` for a launch it does not take (another message type or
    ///   version, no course).
    func verify(_ idToken: String, platform: LTIPlatform, login: LTILogin, at now: Date = Date()) async throws -> LTILaunch {
        let kid = try Self.checkedHeader(of: idToken)
        let key = try await keys.key(kid, of: platform)
        let claims: LTIIDToken
        do {
            let collection = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            claims = try await collection.verify(idToken, as: LTIIDToken.self)
        } catch {
            throw ServerError(
                .unauthorized,
                "the launch's signature does not verify with the LMS's key \(kid.prefix(80)), or its claims are malformed: ask the LMS administrator whether the platform's keys changed (the server reads them at \(platform.jwksURL.absoluteString))",
                underlyingError: error)
        }
        try Self.checkIdentity(claims, platform: platform)
        try Self.checkTimes(claims, at: now)
        guard claims.nonce == login.nonce else {
            throw ServerError(
                .unauthorized, "the launch's nonce is not the one this login sent: start again from the LMS (a launch serves once)")
        }
        return try Self.launch(of: claims, platform: platform, login: login)
    }

    /// The `kid` of a token whose header is RS256 without `crit`. jwt-kit alone would verify an
    /// unknown `kid` with another key and take the header's algorithm: both are refused here.
    static func checkedHeader(of token: String) throws -> String {
        struct Header: Decodable {
            var alg: String
            var kid: String?
            var crit: [String]?
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 16_384, parts.count == 3, let data = Data(base64URLEncoded: parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: data)
        else {
            throw ServerError(
                .unauthorized, "the launch's id_token is not a JWT (three base64url parts, a JSON header): ask the LMS administrator")
        }
        guard header.alg == "RS256" else {
            throw ServerError(
                .unauthorized,
                "the launch is signed with \(header.alg.prefix(20)), and LTI 1.3 launches are signed with RS256: ask the LMS administrator")
        }
        guard header.crit == nil else {
            throw ServerError(.unauthorized, "the launch's header names extensions it requires (crit), which this tool does not know")
        }
        guard let kid = header.kid, (1...256).contains(kid.count) else {
            throw ServerError(
                .unauthorized, "the launch's header names no key (kid), which LTI 1.3 requires: ask the LMS administrator")
        }
        return kid
    }

    private static func checkIdentity(_ claims: LTIIDToken, platform: LTIPlatform) throws {
        guard claims.iss.value == platform.issuer else {
            throw ServerError(
                .unauthorized,
                "the launch says it comes from \(claims.iss.value.prefix(200)), and its login from \(platform.issuer): ask the LMS administrator which issuer the platform uses"
            )
        }
        let audiences = claims.aud.value
        guard audiences.contains(platform.clientID) else {
            throw ServerError(
                .unauthorized,
                "the launch is for the client \(audiences.joined(separator: ", ").prefix(200)), not for this tool's \(platform.clientID): ask the LMS administrator which client id the tool has"
            )
        }
        if audiences.count > 1 || claims.azp != nil {
            guard claims.azp == platform.clientID else {
                throw ServerError(
                    .unauthorized,
                    "the launch names several audiences without saying which one it is for (azp \(claims.azp ?? "missing")): LTI 1.3 requires azp equal to this tool's client id \(platform.clientID)"
                )
            }
        }
    }

    private static func checkTimes(_ claims: LTIIDToken, at now: Date) throws {
        guard claims.exp.value > now.addingTimeInterval(-clockSkew) else {
            throw ServerError(
                .unauthorized,
                "the launch expired at \(claims.exp.value): start again from the LMS; if it keeps happening, ask the LMS administrator to check the platform's clock"
            )
        }
        guard claims.iat.value <= now.addingTimeInterval(clockSkew) else {
            throw ServerError(
                .unauthorized,
                "the launch was made in the future (\(claims.iat.value)): ask the LMS administrator to check the platform's clock")
        }
        guard claims.iat.value >= now.addingTimeInterval(-longestAge) else {
            throw ServerError(
                .unauthorized,
                "the launch was made at \(claims.iat.value), more than 10 minutes ago: start again from the LMS")
        }
    }

    private static func launch(of claims: LTIIDToken, platform: LTIPlatform, login: LTILogin) throws -> LTILaunch {
        guard let deployment = claims.deploymentID, (1...255).contains(deployment.count) else {
            throw ServerError(
                .unauthorized, "the launch names no deployment (deployment_id), which LTI 1.3 requires: ask the LMS administrator")
        }
        if let named = login.deploymentID, named != deployment {
            throw ServerError(
                .unauthorized, "the launch names the deployment \(deployment), and its login \(named): start again from the LMS")
        }
        guard platform.deployments.contains(deployment) else {
            throw ServerError(
                .unauthorized,
                "the launch comes from the deployment \(deployment), which is not registered with this server: ask the LMS administrator to give it to the server's administrator, who adds it with clsfile-server lti register --issuer \(platform.issuer) --client-id \(platform.clientID) --deployment-id \(deployment)"
            )
        }
        guard claims.messageType == resourceLinkRequest || claims.messageType == deepLinkingRequest else {
            throw ServerError(
                .invalidValue,
                "the launch is a \(claims.messageType ?? "message of no type"), which this tool does not take (it takes \(resourceLinkRequest) and \(deepLinkingRequest)): ask the LMS administrator to add it as a link to an external tool"
            )
        }
        guard claims.version == "1.3.0" else {
            throw ServerError(
                .invalidValue,
                "the launch says LTI version \(claims.version ?? "none"), and this tool takes 1.3.0: ask the LMS administrator")
        }
        guard claims.targetLinkURI == login.targetLinkURI else {
            throw ServerError(
                .unauthorized,
                "the launch goes to \(claims.targetLinkURI ?? "no target"), and its login said \(login.targetLinkURI): start again from the LMS"
            )
        }
        guard let subject = claims.sub?.value, (1...255).contains(subject.count) else {
            throw ServerError(
                .forbidden,
                "the launch names no person (sub): this tool keeps each student's work under their own name, so it takes no anonymous launch; ask the LMS administrator to send the user's id"
            )
        }
        guard let context = claims.context, (1...255).contains(context.id.count) else {
            throw ServerError(
                .invalidValue,
                "the launch comes from no course (context): add the tool to a course, whose students and teacher make its class")
        }
        let isDeepLinking = claims.messageType == deepLinkingRequest
        if !isDeepLinking, claims.resourceLink.map({ !$0.id.isEmpty }) != true {
            throw ServerError(
                .invalidValue, "the launch names no resource link (resource_link.id), which LTI 1.3 requires: ask the LMS administrator")
        }
        if isDeepLinking {
            guard let settings = claims.deepLinkingSettings, settings.acceptTypes.contains("ltiResourceLink"),
                let returnURL = URL(string: settings.deepLinkReturnURL)
            else {
                throw ServerError(
                    .invalidValue,
                    "the deep-linking launch takes no link to a tool (accept_types lacks ltiResourceLink) or gives no return address, and a link is what this tool adds to a course: ask the LMS administrator"
                )
            }
            try LTIPlatform.checkAddress(returnURL, "the deep-linking return address")
        }
        let roles = Set(claims.roles ?? [])
        let role: LTILaunch.Role
        if !roles.isDisjoint(with: instructorRoles) {
            role = .instructor
        } else if !roles.isDisjoint(with: learnerRoles) {
            role = .learner
        } else {
            throw ServerError(
                .forbidden,
                "the launch gives you no role in the course that this tool knows (\(roles.isEmpty ? "none" : roles.sorted().joined(separator: ", ").prefix(300))): it takes instructors and learners; ask your teacher or the LMS administrator"
            )
        }
        if isDeepLinking, role != .instructor {
            throw ServerError(.forbidden, "only a course's instructor adds clsfile assignments to it; a learner's launch cannot")
        }
        return LTILaunch(
            deploymentID: deployment, subject: subject,
            displayName: LTIShownName.person(name: claims.name, given: claims.givenName, family: claims.familyName, id: subject),
            role: role, context: LTILaunch.Context(id: context.id, title: context.title, label: context.label),
            resourceLinkID: claims.resourceLink?.id, custom: (claims.custom ?? [:]).mapValues(\.text),
            lineItemURL: platform.serviceAddress(claims.endpoint?.lineitem),
            membershipsURL: platform.serviceAddress(claims.namesRoleService?.contextMembershipsURL),
            deepLinking: isDeepLinking ? claims.deepLinkingSettings : nil)
    }
}

extension Data {
    /// Bytes from base64url, padded or not (RFC 7515 §2); nil for text that is not.
    init?(base64URLEncoded text: Substring) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
