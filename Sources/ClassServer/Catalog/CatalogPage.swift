import ClassDashboard
import Foundation
import Hummingbird
import OpenClassKit

/// The class server's catalog page, `/classes/ID/catalog`: the production catalogs published to
/// the server a level at a time — each context's thumbnail, type, summary, suggested age and
/// time, and what progress it reports — with a form to assign an assignable context to the
/// class, and the class's assignments from the catalog.
///
/// The page has no script: a level is an address (`?team=T&path=A&path=B`), an assignment a
/// form posted to `catalog/assignments`. Containers the publisher marked not assignable are
/// shown as such, without a form.
struct CatalogPage: Sendable {
    /// A context of the level shown.
    struct Entry: Sendable {
        var context: CourseManifest.ContextData
        /// The id of its thumbnail in the team's catalog, if it has one.
        var thumbnailID: String?
        /// How many children it has.
        var childCount: Int

        init(context: CourseManifest.ContextData, thumbnailID: String?, childCount: Int) {
            self.context = context
            self.thumbnailID = thumbnailID
            self.childCount = childCount
        }
    }

    /// An assignment of the class made from the catalog.
    struct Assigned: Sendable {
        var identifier: String
        var title: String
        var team: String
        var identifierPath: [String]
        /// The title of the context assigned.
        var contextTitle: String
        var dueDate: Date?
        var createdAt: Date

        init(
            identifier: String, title: String, team: String, identifierPath: [String], contextTitle: String,
            dueDate: Date?, createdAt: Date
        ) {
            self.identifier = identifier
            self.title = title
            self.team = team
            self.identifierPath = identifierPath
            self.contextTitle = contextTitle
            self.dueDate = dueDate
            self.createdAt = createdAt
        }
    }

    /// A sentence at the top of the page: what a form did, or why it was refused.
    struct Notice: Sendable {
        var text: String
        var isRefusal: Bool

        init(_ text: String, isRefusal: Bool) {
            self.text = text
            self.isRefusal = isRefusal
        }
    }

    /// The class's pages, without a trailing slash: `/classes/ID`.
    var base: String
    /// The token the address gave, carried on in links and forms.
    var token: String?
    /// The teams that published a production catalog.
    var teams: [String]
    /// The team whose catalog is shown; nil for the list of teams.
    var team: String?
    /// The contexts from the team's top down to the one whose children are shown.
    var ancestors: [CourseManifest.ContextData]
    var entries: [Entry]
    /// Whether the level has more children than ``entries``.
    var isTruncated: Bool
    var assignments: [Assigned]
    var notice: Notice?

    init(
        base: String, token: String?, teams: [String], team: String?, ancestors: [CourseManifest.ContextData],
        entries: [Entry], isTruncated: Bool, assignments: [Assigned], notice: Notice? = nil
    ) {
        self.base = base
        self.token = token
        self.teams = teams
        self.team = team
        self.ancestors = ancestors
        self.entries = entries
        self.isTruncated = isTruncated
        self.assignments = assignments
        self.notice = notice
    }

    /// The page as a response: HTML with the dashboard's headers, which here let the page show
    /// the catalog's thumbnails and post its forms to the server itself.
    func response(status: HTTPResponse.Status = .ok) -> Response {
        PageResponse.html(render(), status: status, allowingImagesAndForms: true)
    }

    /// The address of a level of the catalog.
    static func address(base: String, token: String?, team: String?, path: [String]) -> String {
        var query: [(String, String)] = team.map { [("team", $0)] } ?? []
        query += path.map { ("path", $0) }
        if let token { query.append(("token", token)) }
        return base + "/catalog" + Links.query(query)
    }

    func render() -> HTML {
        let home = Links(token: token, base: base, source: Self.source)
        var trail: [PageLayout.Step] = [.init(label: "Class", link: home.home)]
        var content: [HTML] = [
            "<h1>Catalog</h1>\n<p class=\"meta\">The production catalogs of the content tools that publish to this server. Assign a context, and the work on it and on every context below it — in the tool, or in a document of the course — reports to the class.</p>\n"
        ]
        if let notice {
            content.append(
                notice.isRefusal
                    ? "<p class=\"warning\" id=\"notice\" role=\"alert\"><strong>Not assigned:</strong> \(notice.text)</p>\n"
                    : "<p class=\"notice\" id=\"notice\" role=\"status\">\(notice.text)</p>\n")
        }
        if let team {
            trail.append(.init(label: "Catalog", link: Self.address(base: base, token: token, team: nil, path: [])))
            let levels = [(team, [String]())] + ancestors.map { ($0.title, $0.identifierPath) }
            for (index, level) in levels.enumerated() {
                let isLast = index == levels.count - 1
                trail.append(.init(label: level.0, link: isLast ? nil : Self.address(base: base, token: token, team: team, path: level.1)))
            }
            content.append(levelTable(team: team))
        } else {
            trail.append(.init(label: "Catalog", link: nil))
            content.append(teamList)
        }
        content.append(assignedTable)
        return PageLayout(title: "Catalog", trail: trail, content: HTML(joining: content), source: Self.source).render()
    }

    /// The page reads the catalog at each request and never reloads itself (a form may be half filled).
    static let source = DashboardPages.Source(
        footer: "Read from the class server's production catalogs at every request.", refreshSeconds: nil)

    private var teamList: HTML {
        guard !teams.isEmpty else {
            return
                "<p class=\"empty\" id=\"no-catalog\">No content tool has published a production catalog to this server yet (clsfile catalog publish MANIFEST --environment production).</p>\n"
        }
        let items = teams.map { team -> HTML in
            "<li><a href=\"\(Self.address(base: base, token: token, team: team, path: []))\">\(team)</a></li>"
        }
        return "<h2>Publishers</h2>\n<ul id=\"teams\">\n\(HTML(joining: items))\n</ul>\n"
    }

    private func levelTable(team: String) -> HTML {
        guard !entries.isEmpty else {
            return "<p class=\"empty\" id=\"no-contexts\">This context has no contexts below it.</p>\n"
        }
        let more: HTML =
            isTruncated ? "<p class=\"meta\" id=\"truncated\">Only the first \(entries.count) contexts of this level are shown.</p>\n" : ""
        return """
            <table id="contexts">
            <thead><tr><th>Context</th><th>Suggested</th><th>Reports</th><th>Assign</th></tr></thead>
            <tbody>
            \(entries.map { row($0, team: team) })
            </tbody>
            </table>
            \(more)
            """
    }

    private func row(_ entry: Entry, team: String) -> HTML {
        let context = entry.context
        let path = context.identifierPath
        let thumbnail: HTML =
            entry.thumbnailID.map { id in
                "<img class=\"thumbnail\" src=\"\(base)/catalog/thumbnail\(Links.query([("team", team), ("id", id)] + (token.map { [("token", $0)] } ?? [])))\" width=\"66\" height=\"66\" alt=\"\">"
            } ?? "<span class=\"thumbnail none\" aria-hidden=\"true\"></span>"
        let title: HTML =
            entry.childCount > 0
            ? "<a class=\"title\" href=\"\(Self.address(base: base, token: token, team: team, path: path))\">\(context.title)</a> <span class=\"meta\">(\(entry.childCount) below)</span>"
            : "<span class=\"title\">\(context.title)</span>"
        let summary: HTML = context.summary.map { "<div class=\"summary\">\($0)</div>" } ?? ""
        let assignable = context.isAssignable != false
        return """
            <tr data-path="\(path.joined(separator: "/"))" class="\(assignable ? "assignable" : "container")">
            <td><div class="context">\(thumbnail)<div>\(title) <span class="badge open">\(Self.typeName(context))</span>\(summary)\
            <div class="meta">\(path.joined(separator: " › "))</div></div></div></td>
            <td class="nowrap">\(Self.suggested(context))</td>
            <td>\(Self.capabilities(context))</td>
            <td>\(assignCell(context, team: team))</td>
            </tr>
            """
    }

    private func assignCell(_ context: CourseManifest.ContextData, team: String) -> HTML {
        guard context.isAssignable != false else {
            return "<span class=\"not-assignable\">Container: not assignable</span>"
        }
        if let held = assignments.first(where: { $0.team == team && $0.identifierPath == context.identifierPath }) {
            return "<span class=\"badge done\">Assigned</span> <span class=\"meta\">as \(held.title)</span>"
        }
        let hidden =
            [HTML("<input type=\"hidden\" name=\"team\" value=\"\(team)\">")]
            + context.identifierPath.map { HTML("<input type=\"hidden\" name=\"path\" value=\"\($0)\">") }
        let action = base + "/catalog/assignments" + Links.query(token.map { [("token", $0)] } ?? [])
        let label = "assign-\(context.identifierPath.joined(separator: "-"))"
        return """
            <form method="post" action="\(action)" class="assign">\(HTML(joining: hidden))\
            <label>Title <input name="title" value="\(context.title)" maxlength="200" required aria-describedby="\(label)"></label> \
            <label>Due <input name="due" type="date"></label> \
            <button type="submit" id="\(label)">Assign to the class</button></form>
            """
    }

    private var assignedTable: HTML {
        guard !assignments.isEmpty else { return "" }
        let rows = assignments.map { assigned -> HTML in
            """
            <tr data-assignment="\(assigned.identifier)"><td>\(assigned.title)<div class="meta">\(assigned.contextTitle) · \
            \(assigned.team) › \(assigned.identifierPath.joined(separator: " › "))</div></td>\
            <td class="nowrap">\(assigned.dueDate.map(DisplayFormat.day) ?? "–")</td>\
            <td class="nowrap">\(DisplayFormat.timestamp(assigned.createdAt))</td></tr>
            """
        }
        return """
            <h2>Assigned to this class from the catalog</h2>
            <table id="assigned">
            <thead><tr><th>Assignment</th><th>Due</th><th>Assigned</th></tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table>

            """
    }

    /// A context's type, as ClassKit names it (or the publisher's own name for a custom type).
    static func typeName(_ context: CourseManifest.ContextData) -> String {
        if context.type == .custom, let name = context.customTypeName, !name.isEmpty { return name }
        return "\(context.type)"
    }

    /// The suggested age and completion time, where the publisher gave them.
    static func suggested(_ context: CourseManifest.ContextData) -> HTML {
        func range(_ bounds: [Int]?, unit: String) -> String? {
            guard let bounds, let low = bounds.first else { return nil }
            let high = bounds.count > 1 ? bounds[1] : low
            return low == high ? "\(low) \(unit)" : "\(low)–\(high) \(unit)"
        }
        let parts = [
            range(context.suggestedAge, unit: "years").map { "Age \($0)" },
            range(context.suggestedCompletionTime, unit: "min").map { "Time \($0)" }
        ].compactMap { $0 }
        guard !parts.isEmpty else { return "–" }
        return HTML(joining: parts.enumerated().map { $0.offset == 0 ? "\($0.element)" : "<br>\($0.element)" })
    }

    /// What progress the context reports: ClassKit's default (time) when the publisher said nothing.
    static func capabilities(_ context: CourseManifest.ContextData) -> HTML {
        let capabilities = context.progressReportingCapabilities ?? []
        guard !capabilities.isEmpty else { return "<span class=\"capability\">duration</span>" }
        return HTML(
            joining: capabilities.enumerated().map { index, capability -> HTML in
                let details: HTML = capability.details.map { " <span class=\"meta\">(\($0))</span>" } ?? ""
                let separator: HTML = index == 0 ? "" : "<br>"
                return "\(separator)<span class=\"capability\">\("\(capability.kind)")</span>\(details)"
            })
    }
}
