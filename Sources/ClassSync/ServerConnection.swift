internal import AsyncHTTPClient
import ClassWire
import Foundation
internal import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1

/// One request to the class server, signed with a token, its refusals turned into ``SyncError``s:
/// what ``SyncClient`` and ``CatalogClient`` share.
struct ServerConnection: Sendable {
    let serverURL: URL
    let http: HTTPClient
    let timeout: TimeAmount
    /// What to do when the server cannot be reached or cannot take the request now.
    let retrying: String

    /// Sends a request and returns the answer's body and `Content-Type`; `keyIdentifier`, when
    /// given, goes in ``SyncWire/keyHeader`` for a proxy's routing.
    /// - Throws: ``SyncError``: `.unreachable` when the server cannot be reached, answers 5xx or
    ///   is not the class server; `.unauthorized` or `.refused` with the server's JSON error.
    func request(
        _ method: HTTPMethod, _ path: String, body: (data: Data, contentType: String)?,
        token: String, keyIdentifier: String? = nil
    ) async throws -> (data: Data, contentType: String?) {
        let url = serverURL.absoluteString.hasSuffix("/") ? serverURL.absoluteString + path : serverURL.absoluteString + "/" + path
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let keyIdentifier { request.headers.add(name: SyncWire.keyHeader, value: keyIdentifier) }
        if let body {
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .bytes(ByteBuffer(data: body.data))
        }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await http.execute(request, timeout: timeout)
            bytes = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw SyncError(
                .unreachable,
                "cannot reach the class server at \(serverURL.absoluteString) (\(error)); check the address and the network, then \(retrying)",
                underlyingError: error)
        }
        let data = Data(buffer: bytes)
        let shownPath = path.split(separator: "?").first.map(String.init) ?? path
        guard (200..<300).contains(response.status.code) else {
            // A server that cannot take the request now (its database restarting, say): try again later.
            if response.status.code >= 500 {
                let why =
                    (try? SyncWire.decoder.decode(SyncWire.ErrorAnswer.self, from: data)).map {
                        "\($0.message) (error \($0.id.uuidString))"
                    }
                    ?? "HTTP \(response.status.code)"
                throw SyncError(
                    .unreachable, "the class server at \(serverURL.absoluteString) cannot take the request now: \(why); \(retrying)")
            }
            if let answer = try? SyncWire.decoder.decode(SyncWire.ErrorAnswer.self, from: data) {
                throw SyncError(
                    answer.code.lowercased() == "unauthorized" ? .unauthorized : .refused,
                    "the class server refused \(shownPath): \(answer.message) (\(answer.code), error \(answer.id.uuidString))",
                    answer: answer)
            }
            throw SyncError(
                .unreachable,
                "\(serverURL.absoluteString) answered \(shownPath) with HTTP \(response.status.code) and no error of the class server's API; check the address (a proxy in front of the server may have answered)"
            )
        }
        return (data, response.headers.first(name: "Content-Type"))
    }
}
