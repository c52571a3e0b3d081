import ClassWire
internal import Crypto
import Hummingbird
internal import NIOConcurrencyHelpers

/// Verifies the request's ``DeviceToken`` and puts the account whose device key signed it in the
/// context (``ServerRequestContext/caller``), before the route runs; a token refused is the
/// request refused.
struct SignedCallerMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let database: ServerDatabase
    /// The origins the server is reached at, which a token's `aud` must name.
    let audiences: NIOLockedValueBox<Set<ServerOrigin>>
    /// The keys verified lately, shared by every route.
    let keys: KeyCache<(caller: ServerDatabase.Caller, key: P256.Signing.PublicKey)>
    /// True for the pages, which a browser opens with the token in the address (`?token=`);
    /// every other route takes it in `Authorization` only.
    let allowsTokenInAddress: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.signedCaller = try await caller(of: request)
        return try await next(request, context)
    }

    /// The account whose key signed the request's token.
    /// - Throws: ``ClassWire/WireError`` `.unauthorized` for a token refused, ``ServerError``
    ///   `.unauthorized` for none or one whose key is not registered here.
    private func caller(of request: Request) async throws -> ServerDatabase.Caller {
        var found: ServerDatabase.Caller?
        let (database, keys) = (database, keys)
        _ = try await DeviceToken.verify(
            try ServerRoutes.token(of: request, allowingAddress: allowsTokenInAddress),
            audiences: audiences.withLockedValue { $0 }
        ) { kid in
            guard let entry = try await keys.entry(named: kid, lookingUp: database.deviceKey(named:)) else { return nil }
            found = entry.caller
            return entry.key
        }
        guard let found else { throw ServerError(.unauthorized, "the token's key is not registered here") }
        return found
    }
}
