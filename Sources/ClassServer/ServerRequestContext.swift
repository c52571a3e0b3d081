import Hummingbird

/// Hummingbird's request context with the account that signed the request, which
/// ``SignedCallerMiddleware`` sets on the routes that need a signed caller.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The account whose device key signed the request's token; nil until the middleware
    /// has verified it, and on the routes without it.
    var signedCaller: ServerDatabase.Caller?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }

    /// The account whose device key signed the request's token.
    /// - Throws: ``ServerError`` `.unauthorized` on a route that ``SignedCallerMiddleware``
    ///   does not verify, so that such a route refuses every request rather than serve one unsigned.
    var caller: ServerDatabase.Caller {
        get throws {
            guard let signedCaller else { throw ServerError(.unauthorized, "the request's token was not verified") }
            return signedCaller
        }
    }
}
