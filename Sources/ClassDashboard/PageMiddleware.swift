import Hummingbird

/// Turns the router's errors into pages: an address the dashboard does not have is a 404 page,
/// not an empty response.
struct PageMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return PageResponse.notFound(links: Links(request: request, token: token), what: "The dashboard has no page at this address.")
        } catch let error as HTTPError where error.status == .methodNotAllowed {
            return PageResponse.html(MessagePage(title: "Not allowed", message: "The dashboard only shows pages; it changes nothing.",
                                                 links: Links(token: nil)).render(), status: .methodNotAllowed)
        }
    }
}
