internal import AsyncHTTPClient
import ClassDashboard
import ClassWire
import Foundation
import Hummingbird
internal import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1

/// LTI Dynamic Registration 1.0: an LMS registers the server as its tool by itself, from the
/// address the server's administrator gives the LMS administrator (`clsfile-server lti
/// registration-url`, with a one-use code: no LMS registers without them).
///
/// The LMS opens that address with its `openid_configuration` and a `registration_token`; the
/// server reads the platform's configuration (its issuer must be the start of the address it
/// came from, §3.5.1), checks that the platform signs with RS256 and takes `private_key_jwt`,
/// sends the tool's configuration to the platform's registration endpoint, and keeps the client id
/// and deployment the platform answers. The page then asks the LMS to close it
/// (`org.imsglobal.lti.close`).
struct LTIDynamicRegistration: Sendable {
    let database: ServerDatabase
    /// The server's public origins: the tool's addresses are on the one the LMS reached.
    let origins: @Sendable () -> Set<ServerOrigin>

    /// What the LMS opens the registration address with.
    struct Fields: Decodable {
        var code: String?
        var openid_configuration: String?
        var registration_token: String?
    }

    /// The platform's configuration, as far as the tool reads it.
    struct Configuration: Decodable {
        var issuer: String
        var authorization_endpoint: String
        var token_endpoint: String
        var jwks_uri: String
        var registration_endpoint: String
        var token_endpoint_auth_methods_supported: [String]?
        var id_token_signing_alg_values_supported: [String]?
        var platformConfiguration: PlatformConfiguration?

        struct PlatformConfiguration: Decodable {
            var product_family_code: String?
        }

        enum CodingKeys: String, CodingKey {
            case issuer, authorization_endpoint, token_endpoint, jwks_uri, registration_endpoint
            case token_endpoint_auth_methods_supported, id_token_signing_alg_values_supported
            case platformConfiguration = "https://purl.imsglobal.org/spec/lti-platform-configuration"
        }
    }

    /// What the platform answers a registration.
    struct Answer: Decodable {
        struct ToolConfiguration: Decodable {
            var deployment_id: String?
        }
        var client_id: String
        var toolConfiguration: ToolConfiguration?

        enum CodingKeys: String, CodingKey {
            case client_id
            case toolConfiguration = "https://purl.imsglobal.org/spec/lti-tool-configuration"
        }
    }

    /// The script of the last page, which asks the LMS to close the registration's window.
    static let closeScript = "(window.opener || window.parent).postMessage({subject: 'org.imsglobal.lti.close'}, '*');"

    func register(_ fields: Fields, host: String?) async throws -> Response {
        // The code serves once, used before anything is fetched.
        guard let code = fields.code, try await database.useLTIRegistrationCode(code) else {
            throw ServerError(
                .unauthorized,
                "this registration address has no code, or its code was used already or expired: ask the server's administrator for a new one (clsfile-server lti registration-url)"
            )
        }
        guard let configurationAddress = fields.openid_configuration, let configurationURL = URL(string: configurationAddress) else {
            throw ServerError(
                .invalidValue,
                "the LMS opened the registration address without its openid_configuration: start the registration from the LMS")
        }
        try LTIPlatform.checkAddress(configurationURL, "the platform's openid_configuration")
        let configuration = try await Self.fetch(Configuration.self, from: configurationAddress, token: fields.registration_token)
        guard let issuerURL = URL(string: configuration.issuer), Self.address(configurationURL, liesUnder: issuerURL) else {
            throw ServerError(
                .unauthorized,
                "the platform's configuration names the issuer \(configuration.issuer.prefix(200)), which is not where it came from (\(configurationAddress.prefix(200))): ask the LMS administrator"
            )
        }
        try LTIPlatform.checkAddress(issuerURL, "the platform's issuer")
        guard configuration.token_endpoint_auth_methods_supported?.contains("private_key_jwt") == true,
            configuration.id_token_signing_alg_values_supported?.contains("RS256") == true
        else {
            throw ServerError(
                .invalidValue,
                "the platform does not take private_key_jwt tokens or RS256 launches, which LTI 1.3 requires: ask the LMS administrator")
        }
        let addresses = [
            configuration.authorization_endpoint, configuration.token_endpoint, configuration.jwks_uri, configuration.registration_endpoint
        ]
        let urls = try addresses.map { address -> URL in
            guard let url = URL(string: address) else {
                throw ServerError(.invalidValue, "the platform's address \(address.prefix(200)) does not parse")
            }
            try LTIPlatform.checkAddress(url, "the platform's address")
            return url
        }
        let origin = try toolOrigin(host: host)
        let answer = try await Self.send(
            try Self.toolConfiguration(origin), to: configuration.registration_endpoint, token: fields.registration_token)
        let deployment = answer.toolConfiguration?.deployment_id
        let platform = LTIPlatform(
            issuer: configuration.issuer, clientID: answer.client_id, authLoginURL: urls[0], authTokenURL: urls[1], jwksURL: urls[2],
            deployments: deployment.map { [$0] } ?? [])
        try await database.registerDynamically(platform, code: code)
        let deploymentLine: HTML =
            deployment.map { "<p>Its deployment: <code>\($0)</code>.</p>" }
            ?? "<p>The LMS gave no deployment yet: the server's administrator adds it when the LMS shows it, with <code>clsfile-server lti register</code>.</p>"
        let content: HTML = """
            <h1>clsfile is registered</h1>
            <p>\(configuration.platformConfiguration?.product_family_code ?? "The LMS") at \(configuration.issuer) registered \
            clsfile-server as its tool, with the client id <code>\(answer.client_id)</code>.</p>
            \(deploymentLine)
            <p>The LMS may ask its administrator to turn the tool on before courses can use it.</p>
            """
        return LTIPage.response(
            title: "Registered", content: content, framedBy: LTIPage.origin(of: configuration.issuer), script: Self.closeScript)
    }

    /// Whether an address is on the issuer's scheme, host and port, under its path (a whole
    /// segment: `/moodle` is not under `/mood`).
    static func address(_ address: URL, liesUnder issuer: URL) -> Bool {
        guard address.scheme?.lowercased() == issuer.scheme?.lowercased(), address.host?.lowercased() == issuer.host?.lowercased(),
            address.port == issuer.port
        else { return false }
        let base = issuer.path.hasSuffix("/") ? issuer.path : issuer.path + "/"
        return address.path == issuer.path || address.path.hasPrefix(base)
    }

    /// The origin the LMS reached the server at (its `Host`), if it is one of the server's; else the first.
    private func toolOrigin(host: String?) throws -> ServerOrigin {
        let known = origins().sorted { $0.value < $1.value }
        if let host, let match = known.first(where: { URL(string: $0.value)?.host.map { host.hasPrefix($0) } == true }) {
            return match
        }
        guard let first = known.first else { throw ServerError(.invalidValue, "the server knows no public address of its own yet") }
        return first
    }

    /// The tool's configuration (Dynamic Registration §3.4) on `origin`.
    static func toolConfiguration(_ origin: ServerOrigin) throws -> Data {
        let base = origin.value
        let configuration: [String: Any] = [
            "application_type": "web", "response_types": ["id_token"], "grant_types": ["implicit", "client_credentials"],
            "initiate_login_uri": base + "/lti/login", "redirect_uris": [base + LTIRoutes.launchPath], "client_name": "clsfile",
            "jwks_uri": base + "/lti/jwks", "token_endpoint_auth_method": "private_key_jwt",
            "scope": [LTIScoreSender.scoreScope, LTIRosterReader.membershipScope].joined(separator: " "),
            "https://purl.imsglobal.org/spec/lti-tool-configuration": [
                "domain": URL(string: base)?.host ?? base, "target_link_uri": base + LTIRoutes.launchPath,
                "description": "Students' writing time, words and progress, from their own editors.",
                "claims": ["iss", "sub", "name", "given_name", "family_name"],
                "messages": [
                    ["type": "LtiDeepLinkingRequest", "target_link_uri": base + LTIRoutes.launchPath, "label": "clsfile assignment"],
                    ["type": "LtiResourceLinkRequest"]
                ]
            ] as [String: Any]
        ]
        return try JSONSerialization.data(withJSONObject: configuration, options: [.sortedKeys])
    }

    private static func fetch<Value: Decodable>(_ type: Value.Type, from address: String, token: String?) async throws -> Value {
        var request = HTTPClientRequest(url: address)
        request.headers.add(name: "Accept", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return try await exchange(request, reading: type, what: "the platform's configuration at \(address)")
    }

    private static func send(_ body: Data, to address: String, token: String?) async throws -> Answer {
        var request = HTTPClientRequest(url: address)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        return try await exchange(request, reading: Answer.self, what: "the registration at \(address)")
    }

    private static func exchange<Value: Decodable>(_ request: HTTPClientRequest, reading type: Value.Type, what: String) async throws
        -> Value
    {
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw ServerError(
                .unauthorized, "the server could not reach \(what): ask the LMS administrator", underlyingError: error)
        }
        guard (200..<300).contains(response.status.code) else {
            throw ServerError(
                .unauthorized, "\(what) answered \(response.status.code): ask the LMS administrator")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(buffer: body))
        } catch {
            throw ServerError(.invalidValue, "\(what) is not the JSON LTI Dynamic Registration gives: ask the LMS administrator")
        }
    }
}
