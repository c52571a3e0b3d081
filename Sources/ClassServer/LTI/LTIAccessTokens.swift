internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1

/// Access tokens of the platforms' services (OAuth 2 client credentials with a JWT assertion,
/// 1EdTech Security Framework §4.1): the assertion is signed with the tool's key; a token is kept
/// per platform and scope until a minute before it expires, or until the platform refuses it.
actor LTIAccessTokens {
    /// Who asks, and where.
    struct Platform: Sendable {
        var id: UUID
        var clientID: String
        var tokenURL: String
    }

    private let signer: LTISigner
    private var kept: [String: (token: String, expires: Date)] = [:]

    init(signer: LTISigner) {
        self.signer = signer
    }

    /// A token of the platform for `scope`.
    /// - Throws: ``ServerError`` `.unauthorized` when the platform's token endpoint refuses.
    func token(_ platform: Platform, scope: String) async throws -> String {
        let key = "\(platform.id) \(scope)"
        if let token = kept[key], token.expires > Date() { return token.token }
        let assertion = try await signer.sign(LTIClientAssertion(clientID: platform.clientID, tokenURL: platform.tokenURL))
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "grant_type", value: "client_credentials"),
            URLQueryItem(name: "client_assertion_type", value: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            URLQueryItem(name: "client_assertion", value: assertion), URLQueryItem(name: "scope", value: scope)
        ]
        var request = HTTPClientRequest(url: platform.tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: (form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        struct Token: Decodable {
            var access_token: String
            var expires_in: Double?
        }
        guard response.status == .ok, let token = try? JSONDecoder().decode(Token.self, from: Data(buffer: answer)) else {
            throw ServerError(
                .unauthorized,
                "the LMS's token endpoint \(platform.tokenURL) answered \(response.status.code): ask the LMS administrator whether the tool may use its services (its keyset is /lti/jwks)"
            )
        }
        kept[key] = (token.access_token, Date().addingTimeInterval(max((token.expires_in ?? 3600) - 60, 0)))
        return token.access_token
    }

    /// Forgets a token the platform refused.
    func forget(_ platform: UUID, scope: String) {
        kept["\(platform) \(scope)"] = nil
    }
}
