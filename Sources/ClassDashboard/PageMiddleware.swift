import Hummingbird

/// Turns the router's "not found" into a page: an address the dashboard does not have, or a method
/// other than GET (the dashboard changes nothing), is a 404 page, not an empty response.
struct PageMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return PageResponse.notFound(links: Links(request: request, token: token), what: "The dashboard has no page at this address.")
        }
    }
}
