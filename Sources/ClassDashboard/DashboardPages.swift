import Classroom
import Foundation
import Hummingbird
import OpenClassKit

/// The teacher's pages, made from a `ClassReport`: the one page code of `clsfile serve`, which
/// reads the teacher's store, and of the class server, which reads PostgreSQL.
///
/// The pages are `PREFIX/` (every assignment), `PREFIX/assignments/ID` (a row per student),
/// `PREFIX/assignments/ID/students/STUDENT` (one student's work), its `/replay` and
/// `PREFIX/api/class-report.json`. Lists that grow with what students send, or with who joins,
/// are shown a page at a time (`?sessions-from=500`, `?students-from=200`; the JSON 200 students
/// a page, `?after=ID&limit=N`, the next page's address in its `next` and `Link` header), and a
/// replay step in parts. Who may see them is the caller's to
/// check (a middleware), as is where the report comes from.
public struct DashboardPages: Sendable {
    /// Where the pages read the class from, which decides their footer and whether they refresh.
    public struct Source: Sendable, Equatable {
        /// The footer's sentence.
        public var footer: String
        /// Seconds between reloads the page asks the browser for; nil for none.
        public var refreshSeconds: Int?
        /// Whether the class page links to the catalog page (`PREFIX/catalog`), as the class server's does.
        public var offersCatalog = false
        /// Seconds between reloads a teacher may turn on for a page (`?reload=on`), as students'
        /// work arrives; nil where none is offered. Off unless asked for: a page that reloads by
        /// itself fails WCAG 2.2.1 unless its reader chose it.
        public var offeredReloadSeconds: Int?
        /// The link that turns this page's reload on or off, set for each request.
        package var reloadSwitch: ReloadSwitch?

        /// A page's link to turn its reload on or off.
        package struct ReloadSwitch: Sendable, Equatable {
            /// The page's own address with `reload=on`, or without it when it is on.
            package var address: String
            package var isOn: Bool
            package var seconds: Int
        }

        /// A source of pages of its own: the class server's catalog page.
        package init(footer: String, refreshSeconds: Int?) {
            self.footer = footer
            self.refreshSeconds = refreshSeconds
        }

        /// The teacher's own store, read at every request.
        public static let teachersStore = Source(
            footer: "Read from the teacher's store at every request: reload to see newly collected work.", refreshSeconds: nil)

        /// A class server: students' work arrives as they sync, so a page may reload itself every
        /// `reloadSeconds`, when the teacher turns it on.
        public static func classServer(reloadSeconds: Int) -> Source {
            var source = Source(footer: "Read from the class server at every request.", refreshSeconds: nil)
            source.offersCatalog = true
            source.offeredReloadSeconds = reloadSeconds
            return source
        }

        /// The source as one request's page shows it: reloading when the request asks for it
        /// (`?reload=on`) where a reload is offered, with the link that turns it on or off.
        func shown(for request: Request) -> Source {
            guard let seconds = offeredReloadSeconds else { return self }
            var source = self
            let isOn = request.uri.queryParameters.get("reload") == "on"
            if isOn { source.refreshSeconds = seconds }
            let others = request.uri.queryParameters.filter { $0.key != "reload" }.map { (String($0.key), String($0.value)) }
            source.reloadSwitch = ReloadSwitch(
                address: request.uri.path + Links.query(others + (isOn ? [] : [("reload", "on")])), isOn: isOn, seconds: seconds)
            return source
        }
    }

    /// What a request's pages need: the report, the path they are under, and the token their
    /// links carry on.
    public struct Context: Sendable {
        public var report: ClassReport
        /// The path the pages are under, without a trailing slash: `""` or `/classes/ID`.
        public var base: String
        /// The token to carry in links (given in the address); nil for none.
        public var linkToken: String?
        /// Where a student page and a replay read the student's process evidence; nil when the
        /// report's work holds it (collected submissions).
        public var evidence: EvidenceReader?

        public init(report: ClassReport, base: String, linkToken: String?, evidence: EvidenceReader? = nil) {
            self.report = report
            self.base = base
            self.linkToken = linkToken
            self.evidence = evidence
        }
    }

    /// Where the class is read from.
    public let source: Source

    public init(source: Source) {
        self.source = source
    }

    /// Adds the pages to a router under a path, which may hold parameters (`/classes/:class`).
    /// - Parameters:
    ///   - router: The router, or a group of it (whose middleware runs before the pages), the
    ///     routes are added to.
    ///   - prefix: The path the pages are under, without a trailing slash: `""` or `/classes/:class`.
    ///   - context: Reads the class for a request; a ``PageFailure`` it throws becomes a page
    ///     saying what failed.
    public func add<RequestContext: Hummingbird.RequestContext>(
        to router: some RouterMethods<RequestContext>, under prefix: String,
        context: @escaping @Sendable (Request, RequestContext) async throws -> Context
    ) {
        let source = self.source
        router.get("\(prefix)/") { request, requestContext in
            try await Self.respond(request, requestContext, source: source, context: context) { report, links in
                PageResponse.html(ClassPage(report: report, links: links).render())
            }
        }
        router.get("\(prefix)/assignments/:assignment") { request, requestContext in
            let identifier = Self.parameter("assignment", of: requestContext)
            return try await Self.respond(request, requestContext, source: source, context: context) { report, links in
                guard let assignment = report.assignments.first(where: { $0.identifier == identifier }) else {
                    return PageResponse.notFound(links: links, what: "There is no assignment with this identifier in this class.")
                }
                return PageResponse.html(
                    AssignmentPage(
                        assignment: assignment, links: links,
                        studentsFrom: Self.offset("students-from", of: request),
                        keptAsideFrom: Self.offset("kept-aside-from", of: request)
                    ).render())
            }
        }
        router.get("\(prefix)/assignments/:assignment/students/:student") { request, requestContext in
            let identifier = Self.parameter("assignment", of: requestContext),
                studentIdentifier = Self.parameter("student", of: requestContext)
            return try await Self.respondReading(request, requestContext, source: source, context: context) { read, links in
                guard let assignment = read.report.assignments.first(where: { $0.identifier == identifier }) else {
                    return PageResponse.notFound(links: links, what: "There is no assignment with this identifier in this class.")
                }
                guard var student = assignment.students.first(where: { $0.studentIdentifier == studentIdentifier }) else {
                    return PageResponse.notFound(links: links, what: "No work from this student has reached \(assignment.title).")
                }
                var replaySteps: Int?
                if let evidence = read.evidence, let history = try await evidence.history(identifier, studentIdentifier) {
                    student.work.history = history.entries
                    student.work.evidenceExpiredAt = history.expiredAt
                    replaySteps = history.snapshots
                }
                return PageResponse.html(
                    StudentPage(
                        assignment: assignment, student: student, links: links,
                        itemsFrom: Self.offset("items-from", of: request),
                        sessionsFrom: Self.offset("sessions-from", of: request), replaySteps: replaySteps
                    ).render())
            }
        }
        router.get("\(prefix)/assignments/:assignment/students/:student/replay") { request, requestContext in
            let identifier = Self.parameter("assignment", of: requestContext),
                studentIdentifier = Self.parameter("student", of: requestContext)
            let step = request.uri.queryParameters.get("step").flatMap { Int($0) } ?? 1
            let from = Self.offset("from", of: request)
            return try await Self.respondReading(request, requestContext, source: source, context: context) { read, links in
                guard let assignment = read.report.assignments.first(where: { $0.identifier == identifier }),
                    var student = assignment.students.first(where: { $0.studentIdentifier == studentIdentifier })
                else {
                    return PageResponse.notFound(links: links, what: "No work from this student has reached this assignment.")
                }
                do {
                    if let evidence = read.evidence { student.work.snapshots = try await evidence.snapshots(identifier, studentIdentifier) }
                    guard let page = try ReplayPage(assignment: assignment, student: student, links: links, step: step, from: from).render()
                    else {
                        return PageResponse.notFound(
                            links: links,
                            what:
                                "\(student.studentName)'s work on \(assignment.title) holds no snapshots of the text: the assignment did not ask for replay, or none was taken."
                        )
                    }
                    return PageResponse.html(page)
                } catch let error as CLSError {
                    return PageResponse.notFound(
                        links: links, what: "\(student.studentName)'s snapshots of \(assignment.title) cannot be replayed: \(error.message)"
                    )
                }
            }
        }
        router.get("\(prefix)/api/class-report.json") { request, requestContext in
            let (after, limit) = try Self.studentPage(of: request)
            return try await Self.respond(request, requestContext, source: source, context: context) { report, links in
                let page = report.page(after: after, limit: limit ?? ClassReport.studentsPerPage)
                let next = page.nextAfter.map { links.classReportJSON(after: $0, limit: limit) }
                return PageResponse.json(try Self.reportEncoder().encode(ReportPageDocument(report: page.report, next: next)), next: next)
            }
        }
    }

    /// The page of students `api/class-report.json` asks for: `?after=ID` (the student the page
    /// before ended with, as its `next` gives it) and `?limit=N`, 1 to
    /// ``Classroom/ClassReport/maximumStudentsPerPage`` (nil when not given).
    /// - Throws: `HTTPError` 400 naming the parameter that is not one of those.
    private static func studentPage(of request: Request) throws -> (after: String?, limit: Int?) {
        let query = request.uri.queryParameters
        var limit: Int?
        if let text = query.get("limit") {
            do {
                limit = try ClassReport.studentsPerPage(limit: text)
            } catch {
                throw HTTPError(.badRequest, message: error.message)
            }
        }
        return (query.get("after"), limit)
    }

    /// How `api/class-report.json` is encoded: sorted keys, ISO 8601 dates (`jsonEncoder()`).
    public static func reportEncoder() -> JSONEncoder {
        ClassReport.jsonEncoder()
    }

    /// A failure to read the class, shown as a page with its message.
    public struct PageFailure: Error, Sendable {
        public var title: String
        public var message: String

        public init(title: String, message: String) {
            self.title = title
            self.message = message
        }
    }

    private static func respond<RequestContext: Hummingbird.RequestContext>(
        _ request: Request, _ requestContext: RequestContext, source: Source,
        context: @Sendable (Request, RequestContext) async throws -> Context,
        _ body: (ClassReport, Links) throws -> Response
    ) async throws -> Response {
        try await respondReading(request, requestContext, source: source, context: context) { read, links in
            try body(read.report, links)
        }
    }

    /// As ``respond(_:_:source:context:_:)``, the page made from all the request read (the
    /// report and where the evidence is), which may read more: a ``PageFailure`` it throws is
    /// a page too.
    private static func respondReading<RequestContext: Hummingbird.RequestContext>(
        _ request: Request, _ requestContext: RequestContext, source: Source,
        context: @Sendable (Request, RequestContext) async throws -> Context,
        _ body: (Context, Links) async throws -> Response
    ) async throws -> Response {
        let source = source.shown(for: request)
        do {
            let read = try await context(request, requestContext)
            return try await body(read, Links(token: read.linkToken, base: read.base, source: source))
        } catch let failure as PageFailure {
            return PageResponse.html(
                MessagePage(
                    title: failure.title, message: failure.message,
                    links: Links(token: nil, source: source)
                ).render(),
                status: .internalServerError)
        }
    }

    /// A whole number from the query, such as the row a long list is shown from; 0 when absent
    /// or not a number.
    private static func offset(_ name: String, of request: Request) -> Int {
        request.uri.queryParameters.get(name).flatMap { Int($0) } ?? 0
    }

    /// A path parameter, percent-decoded.
    private static func parameter<RequestContext: Hummingbird.RequestContext>(_ name: String, of context: RequestContext) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
