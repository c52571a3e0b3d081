import ClassDashboard
internal import Crypto
import Foundation
import Hummingbird
import Logging

/// The pages the LTI routes answer inside the LMS: what a launch gives each person, and a
/// refusal that says what to ask the LMS administrator.
///
/// The LMS shows them in a frame, whose origin is not always the platform's issuer (Canvas
/// Cloud's issuer is `canvas.instructure.com`, its frames a school's own host): they may be framed
/// by any https page, and by the platform's own origin; no page holds more than a link, a
/// command with a one-use token, or a form of the instructor's own choice. Like the class pages
/// they are never cached and never send a referrer.
enum LTIPage {
    /// A page in the frame of `platformOrigin` (nil: no frame allowed, for a refusal before the
    /// platform is known).
    /// - Parameters:
    ///   - formAction: Where the page's form may post (`'self'`, or the platform's origin); nil
    ///     for a page without a form.
    ///   - script: A script the page runs, allowed by its hash and nothing else.
    static func response(
        title: String, content: HTML, status: HTTPResponse.Status = .ok, framedBy platformOrigin: String?, formAction: String? = nil,
        script: String? = nil
    ) -> Response {
        let scripted: HTML = script.map { "\(content)\n<script>\(HTML(stringLiteral: $0))</script>" } ?? content
        let page = PageLayout(
            title: title, trail: [PageLayout.Step(label: title, link: nil)], content: scripted,
            source: DashboardPages.Source(footer: "clsfile-server, a tool of your LMS (LTI 1.3).", refreshSeconds: nil)
        ).render()
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let scripts = script.map { "; script-src 'sha256-\(Data(SHA256.hash(data: Data($0.utf8))).base64EncodedString())'" } ?? ""
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action \(formAction ?? "'none'"); frame-ancestors 'self' https:\(platformOrigin.map { " " + $0 } ?? "")\(scripts)"
        headers[.xContentTypeOptions] = "nosniff"
        if let referrer = HTTPFields.Element.Name("Referrer-Policy") { headers[referrer] = "no-referrer" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page.description)))
    }

    /// The page of a launch refused: the error's message, and the id the server's log has it under.
    static func refusal(_ error: any Error, id: String) -> Response {
        let (status, _, message) = JSONErrorMiddleware<ServerRequestContext>.described(error)
        let content: HTML = """
            <h1>This launch was refused</h1>
            <p>\(message)</p>
            <p class="muted">If you ask for help, give this id, which the server's log has: <code>\(id)</code>.</p>
            """
        return response(title: "Launch refused", content: content, status: status, framedBy: nil)
    }

    /// The origin of an address, for `frame-ancestors`; nil when it has none.
    static func origin(of address: String) -> String? {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(port)"
    }
}

/// Turns every error of the LTI routes into a refusal page, which the LMS shows in its frame, and
/// logs it with its id.
struct LTIErrorPageMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let id = UUID().uuidString.lowercased()
            let (status, code, _) = JSONErrorMiddleware<Context>.described(error)
            if status.code >= 500 {
                context.logger.error(
                    "LTI request failed",
                    metadata: ["id": "\(id)", "path": "\(request.uri.path)", "error": "\(error)"])
            } else {
                context.logger.info(
                    "LTI request refused", metadata: ["id": "\(id)", "path": "\(request.uri.path)", "code": "\(code)", "why": "\(error)"])
            }
            return LTIPage.refusal(error, id: id)
        }
    }
}
