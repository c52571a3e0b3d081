import Foundation
import Hummingbird

/// The addresses the pages link to.
///
/// When the browser gave the access token in the address (`?token=`), links carry it on, since a
/// page without scripts has no other way to send it with the next request.
package struct Links: Sendable {
    /// The token to carry in links, if any.
    var token: String?
    /// The path the pages are under: empty for `clsfile serve`, `/classes/ID` on the class server.
    var base = ""
    /// Where the pages read the class from, and how they update, for their footer.
    var source = DashboardPages.Source.teachersStore

    /// Links for a request: they carry the token on when a token is in force and the request gave it
    /// in its address.
    init(request: Request, token: AccessToken?) {
        guard let token, request.uri.queryParameters.getAll("token").contains(where: token.matches) else { return }
        self.token = token.value
    }

    package init(token: String?, base: String = "", source: DashboardPages.Source = .teachersStore) {
        self.token = token
        self.base = base
        self.source = source
    }

    package var home: String { base + "/" + query }
    var classReportJSON: String { base + "/api/class-report.json" + query }

    /// The page of `api/class-report.json` after a student, of `limit` students when given.
    func classReportJSON(after student: String, limit: Int?) -> String {
        base + "/api/class-report.json"
            + Self.query([("after", student)] + (limit.map { [("limit", String($0))] } ?? []) + (token.map { [("token", $0)] } ?? []))
    }
    /// The catalog page, where the class server has one.
    var catalog: String? { source.offersCatalog ? base + "/catalog" + query : nil }

    /// An assignment's page; `rowsFrom` names a list of it and the row it is shown from
    /// (`kept-aside` from 100 adds `?kept-aside-from=100`).
    func assignment(_ identifier: String, rowsFrom: (list: String, offset: Int)? = nil) -> String {
        "\(base)/assignments/\(Self.segment(identifier))\(query(rowsFrom))"
    }

    /// A student's page; `rowsFrom` as for ``assignment(_:rowsFrom:)``.
    func student(_ studentIdentifier: String, of assignmentIdentifier: String, rowsFrom: (list: String, offset: Int)? = nil) -> String {
        "\(base)/assignments/\(Self.segment(assignmentIdentifier))/students/\(Self.segment(studentIdentifier))\(query(rowsFrom))"
    }

    /// The replay of a student's text, at a step (1 is the first snapshot), from a byte of its
    /// text (0, the start, is left out of the address).
    func replay(_ studentIdentifier: String, of assignmentIdentifier: String, step: Int, from: Int = 0) -> String {
        "\(base)/assignments/\(Self.segment(assignmentIdentifier))/students/\(Self.segment(studentIdentifier))/replay"
            + Self.query([("step", String(step))] + (from > 0 ? [("from", String(from))] : []) + (token.map { [("token", $0)] } ?? []))
    }

    private var query: String {
        query(nil)
    }

    /// The token's query, after the row a list is shown from when it is not the first.
    private func query(_ rowsFrom: (list: String, offset: Int)?) -> String {
        let rows = rowsFrom.flatMap { $0.offset > 0 ? [("\($0.list)-from", String($0.offset))] : nil } ?? []
        return Self.query(rows + (token.map { [("token", $0)] } ?? []))
    }

    /// A query, `?name=value&…` with the values percent-encoded; empty without pairs.
    package static func query(_ pairs: [(String, String)]) -> String {
        pairs.isEmpty ? "" : "?" + pairs.map { "\($0.0)=\(queryValue($0.1))" }.joined(separator: "&")
    }

    private static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
