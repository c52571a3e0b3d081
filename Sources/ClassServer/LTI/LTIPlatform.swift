import Foundation

/// An LMS registered with this server as an LTI 1.3 platform: who it is (its issuer, and the
/// client id it gave this tool), where the tool sends a person to log in and asks for access
/// tokens, where the platform publishes its keys, and the deployments whose launches are taken.
public struct LTIPlatform: Sendable, Equatable {
    public var id: UUID
    /// The platform's `iss`, such as `https://moodle.school.example`.
    public var issuer: String
    /// The client id the platform gave this tool.
    public var clientID: String
    /// The platform's OIDC authorization endpoint, where a login goes on.
    public var authLoginURL: URL
    /// The platform's OAuth 2 token endpoint.
    public var authTokenURL: URL
    /// The platform's public keys (JWKS), which its launches are signed with.
    public var jwksURL: URL
    /// The deployments of this tool on the platform whose launches the server takes.
    public var deployments: [String]
    /// The least time, in seconds, between two scores of a student on one line item sent to the
    /// platform's gradebook: 600 (10 minutes) unless its administrator says otherwise.
    public var scoreInterval: Int

    public init(
        id: UUID = UUID(), issuer: String, clientID: String, authLoginURL: URL, authTokenURL: URL, jwksURL: URL,
        deployments: [String], scoreInterval: Int = 600
    ) {
        self.id = id
        self.issuer = issuer
        self.clientID = clientID
        self.authLoginURL = authLoginURL
        self.authTokenURL = authTokenURL
        self.jwksURL = jwksURL
        self.deployments = deployments
        self.scoreInterval = scoreInterval
    }

    /// Checks what an administrator gives: an issuer and client id of 1 to 255 characters (1,024
    /// for the issuer), addresses that are absolute `https` (or `http` on a loopback address, for
    /// a platform on the same machine), and at least one deployment.
    /// - Throws: ``ServerError`` `.invalidValue` naming the value refused.
    public func checked() throws -> LTIPlatform {
        func check(_ value: String, _ name: String, upTo limit: Int) throws {
            guard (1...limit).contains(value.count), !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw ServerError(
                    .invalidValue, "\(name) must be 1 to \(limit) characters without control characters, not '\(value.prefix(60))'")
            }
        }
        try check(issuer, "--issuer", upTo: 1024)
        try check(clientID, "--client-id", upTo: 255)
        guard !deployments.isEmpty else {
            throw ServerError(.invalidValue, "give at least one --deployment-id: the LMS shows it where the tool is set up")
        }
        for deployment in deployments { try check(deployment, "--deployment-id", upTo: 255) }
        guard (1...86_400).contains(scoreInterval) else {
            throw ServerError(.invalidValue, "--score-interval must be 1 to 86400 seconds, not \(scoreInterval)")
        }
        for (url, name) in [(authLoginURL, "--auth-login-url"), (authTokenURL, "--auth-token-url"), (jwksURL, "--jwks-url")] {
            try Self.checkAddress(url, name)
        }
        return self
    }

    /// An address of one of the platform's services that a launch or a roster gives (a line
    /// item, a roster, its next page), if the server may call it: `https`, or `http` on a loopback
    /// host only for a platform whose own issuer is one (a platform on the same machine).
    func serviceAddress(_ text: String?) -> String? {
        guard let text, let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return nil
        }
        if scheme == "https" { return text }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"]
        guard scheme == "http", loopback.contains(host), URL(string: issuer).flatMap(\.host).map(loopback.contains) == true else {
            return nil
        }
        return text
    }

    /// Refuses an address that is not absolute `https`, or `http` on a loopback host.
    static func checkAddress(_ url: URL, _ name: String) throws {
        let scheme = url.scheme?.lowercased()
        let host = url.host ?? ""
        guard scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)), !host.isEmpty
        else {
            throw ServerError(
                .invalidValue,
                "\(name) must be an https address (http only on this machine, 127.0.0.1), not '\(url.absoluteString.prefix(80))'")
        }
    }
}
