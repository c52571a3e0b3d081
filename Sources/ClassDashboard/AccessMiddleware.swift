import Hummingbird

/// Lets a request through only when it may see the class.
///
/// With a token in force, a request carries it as `Authorization: Bearer TOKEN` or `?token=TOKEN`,
/// else it gets 401. Without one (on loopback), a request must name this machine in its `Host`, so a
/// web page elsewhere cannot reach the dashboard by pointing a name of its own at 127.0.0.1. A
/// request without a `Host` gets 400.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // HTTP/1.1 requires a Host; without one, the check below would have nothing to check.
        guard let authority = request.head.authority, !authority.isEmpty else {
            return PageResponse.html(
                MessagePage(
                    title: "Bad request",
                    message: "The request names no host (HTTP/1.1 requires a Host header); a browser always sends one.",
                    links: Links(token: nil)
                ).render(), status: .badRequest)
        }
        if let token {
            guard Self.presentedTokens(of: request).contains(where: token.matches) else {
                var response = PageResponse.html(
                    MessagePage(
                        title: "Token required",
                        message:
                            "This dashboard needs the access token that `clsfile serve` printed: open the address it printed, with ?token=, or send Authorization: Bearer TOKEN.",
                        links: Links(token: nil)
                    ).render(), status: .unauthorized)
                response.headers[.wwwAuthenticate] = "Bearer realm=\"clsfile\""
                return response
            }
        } else if !LoopbackAddress.isLoopback(LoopbackAddress.host(ofAuthority: authority)) {
            return PageResponse.html(
                MessagePage(
                    title: "Not this machine",
                    message:
                        "This dashboard answers only to this machine's own addresses (127.0.0.1, localhost, [::1]); to reach it from elsewhere, run clsfile serve with --host and a token.",
                    links: Links(token: nil)
                ).render(), status: .forbidden)
        }
        return try await next(request, context)
    }

    /// The tokens a request presents, in its `Authorization` header and its address.
    private static func presentedTokens(of request: Request) -> [String] {
        var tokens: [String] = []
        for value in request.headers[values: .authorization] {
            let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                tokens.append(String(parts[1].drop { $0 == " " }))
            }
        }
        tokens += request.uri.queryParameters.getAll("token")
        return tokens
    }
}
