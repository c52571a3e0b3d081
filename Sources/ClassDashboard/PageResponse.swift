import Foundation
import Hummingbird

/// Responses with the headers every dashboard response carries.
package enum PageResponse {
    /// An HTML page.
    /// - Parameter allowingImagesAndForms: Whether the page may show images from the server
    ///   itself and post forms to it (the catalog page); no other page does either.
    package static func html(_ page: HTML, status: HTTPResponse.Status = .ok, allowingImagesAndForms: Bool = false) -> Response {
        response(
            Data(page.rendered.utf8), contentType: "text/html; charset=utf-8", status: status,
            allowingImagesAndForms: allowingImagesAndForms)
    }

    /// The 404 page, saying what was not found.
    static func notFound(links: Links, what: String) -> Response {
        html(MessagePage(title: "Not found", message: what, links: links).render(), status: .notFound)
    }

    /// A JSON document.
    /// - Parameter next: The address of the next page, sent as `Link: <ADDRESS>; rel="next"`.
    static func json(_ data: Data, next: String? = nil) -> Response {
        var response = response(data, contentType: "application/json; charset=utf-8", status: .ok)
        if let next, let link = HTTPFields.Element.Name("Link") { response.headers[link] = "<\(next)>; rel=\"next\"" }
        return response
    }

    private static func response(
        _ data: Data, contentType: String, status: HTTPResponse.Status,
        allowingImagesAndForms: Bool = false
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        // The pages hold students' work and may carry a token in links: never cached, never sent on
        // as a referrer (the pages say so in a meta tag), never framed; no script or outside file loads.
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            allowingImagesAndForms
            ? "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
            : "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
