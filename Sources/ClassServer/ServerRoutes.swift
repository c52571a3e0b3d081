import ClassDashboard
import Classroom
import ClassWire
internal import Crypto
import Foundation
import Hummingbird
import Logging
internal import NIOConcurrencyHelpers
internal import NIOCore
internal import NIOFoundationCompat
import OpenClassKit

/// The class server's API. Every route but none is signed: the caller is the account whose
/// device key signed the request's ``DeviceToken``, which ``SignedCallerMiddleware`` puts in the
/// request's context; `/v1/join` is signed by the key it registers. A token must name one of the
/// server's own origins as its audience.
struct ServerRoutes: Sendable {
    let database: ServerDatabase
    /// The origins the server is reached at, which a token's `aud` must name: set before the
    /// first request (the listening port is known only then when port 0 was asked for).
    let audiences: NIOLockedValueBox<Set<ServerOrigin>>
    /// The keys verified lately, so that a busy student's requests look their key up once a minute.
    let keys = KeyCache<(caller: ServerDatabase.Caller, key: P256.Signing.PublicKey)>()
    /// The JSON of reports' assignments, kept until they change.
    let reports = ReportEncoder()
    /// Signs what the server sends an LMS as an LTI tool.
    let signer: LTISigner

    func add(to router: Router<ServerRequestContext>) {
        router.add(middleware: JSONErrorMiddleware())
        addPages(to: router)
        CatalogRoutes(database: database).add(to: router)
        LTIRoutes(database: database, audiences: audiences, signer: signer).add(to: router)
        ClassCatalogRoutes(routes: self).add(to: router)
        router.post("/v1/join") { request, _ in
            let body = try await Self.decoded(SyncWire.JoinRequest.self, from: request)
            guard let key = try? P256.Signing.PublicKey(x963Representation: body.publicKey) else {
                throw ServerError(.invalidValue, "publicKey is not a P-256 public key in X9.63 form (65 bytes, base64)")
            }
            // The token must be signed by the key being registered: whoever joins holds it.
            _ = try await DeviceToken.verify(
                try Self.token(of: request, allowingAddress: false),
                audiences: audiences.withLockedValue { $0 }
            ) { kid in
                kid == Identity.keyIdentifier(of: body.publicKey) ? key : nil
            }
            let enrolment = try await database.joinClass(code: body.code, studentName: body.name, publicKey: key)
            return try Self.json(
                SyncWire.JoinAnswer(
                    accountID: enrolment.accountID, classID: enrolment.classID,
                    className: enrolment.className, teacherKey: enrolment.teacherKey))
        }
        router.post("/v1/lti/link") { request, _ in
            let body = try await Self.decoded(SyncWire.LinkRequest.self, from: request)
            guard let key = try? P256.Signing.PublicKey(x963Representation: body.publicKey) else {
                throw ServerError(.invalidValue, "publicKey is not a P-256 public key in X9.63 form (65 bytes, base64)")
            }
            var recipient: P256.KeyAgreement.PublicKey?
            if let data = body.recipientKey {
                guard let key = try? P256.KeyAgreement.PublicKey(x963Representation: data) else {
                    throw ServerError(.invalidValue, "recipientKey is not a P-256 public key in X9.63 form (65 bytes, base64)")
                }
                recipient = key
            }
            // Signed by the key being tied, as a join is.
            _ = try await DeviceToken.verify(
                try Self.token(of: request, allowingAddress: false),
                audiences: audiences.withLockedValue { $0 }
            ) { kid in
                kid == Identity.keyIdentifier(of: body.publicKey) ? key : nil
            }
            let linked = try await database.link(token: body.token, publicKey: key, recipientKey: recipient)
            return try Self.json(
                SyncWire.LinkAnswer(
                    role: linked.role.rawValue, accountID: linked.accountID, classID: linked.classID, className: linked.className,
                    teacherKey: linked.teacherKey))
        }
        let signed = signedRoutes(of: router, allowingTokenInAddress: false)
        signed.post("/v1/sync") { request, context in
            let caller = try context.caller
            guard caller.role == .student else {
                throw ServerError(.forbidden, "only students sync work; a teacher's key cannot")
            }
            let body = try await Self.decoded(SyncWire.SyncRequest.self, from: request)
            try OperationCheck.check(body.operations)
            try OperationRetention.check(body.operations)
            return try Self.json(try await database.apply(body.operations, toClass: body.classID, as: caller.accountID))
        }
        signed.post("/v1/classes/:class/handouts") { request, context in
            let caller = try context.caller
            guard caller.role == .teacher else {
                throw ServerError(.forbidden, "only the class's teacher registers its handouts; a student's key cannot")
            }
            let body = try await Self.decoded(SyncWire.HandoutRequest.self, from: request)
            try OperationCheck.check(body.handouts)
            return try Self.json(
                try await database.registerHandouts(body.handouts, inClass: try Self.classID(context), as: caller.accountID))
        }
        signed.get("/v1/classes") { _, context in
            let caller = try context.caller
            return try Self.json(try await database.classes(of: caller.accountID))
        }
        let reports = self.reports
        signed.get("/api/class-report.json") { request, context in
            let (caller, classID) = try Self.teachersClass(of: request, context)
            let page = try Self.studentPage(of: request)
            let answer = try await database.classReport(classID, as: caller.accountID, students: page)
            let next = answer.nextAfter.map { Self.nextPage("/api/class-report.json", of: request, classID: classID, after: $0) }
            return Self.json(data: try reports.encode(answer.report, of: classID, page: page, next: next), next: next)
        }
        signed.get("/api/xapi.json") { request, context in
            let (caller, classID) = try Self.teachersClass(of: request, context)
            let homePage = request.uri.queryParameters.get("homePage") ?? XAPIStatementBuilder.Configuration.defaultHomePage
            guard let url = URL(string: homePage), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ServerError(.invalidValue, "homePage must be an absolute http or https address, such as https://school.example")
            }
            let page = try Self.studentPage(of: request)
            let answer = try await database.classReport(classID, as: caller.accountID, students: page, summarizing: .pageOnly)
            let builder = XAPIStatementBuilder(configuration: .init(homePage: homePage))
            return Self.json(
                data: try XAPIStatement.jsonArray(builder.statements(for: answer.report)),
                next: answer.nextAfter.map { Self.nextPage("/api/xapi.json", of: request, classID: classID, after: $0) })
        }
    }

    /// The page of students a report request asks for: `?after=ID` (the account id the page
    /// before ended with, as its next link gives it) and `?limit=N`, 1 to
    /// ``ClassWire/SyncWire/maximumReportStudentsPerPage`` (by default
    /// ``ClassWire/SyncWire/reportStudentsPerPage``).
    /// - Throws: ``ServerError`` `.invalidValue` naming the parameter that is not one of those.
    static func studentPage(of request: Request) throws -> ServerDatabase.StudentPage {
        let query = request.uri.queryParameters
        var page = ServerDatabase.StudentPage()
        if let text = query.get("limit") {
            do {
                page.limit = try ClassReport.studentsPerPage(limit: text)
            } catch {
                throw ServerError(.invalidValue, error.message)
            }
        }
        if let text = query.get("after") {
            guard let after = UUID(uuidString: text) else {
                throw ServerError(
                    .invalidValue, "after is a student's account id, as the next link of the page before gives it, not \(text.prefix(40))")
            }
            page.after = after
        }
        return page
    }

    /// The address of the page after a student: the request's own, with `after` set.
    static func nextPage(_ path: String, of request: Request, classID: UUID, after student: UUID) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        let kept = ["limit", "homePage"].compactMap { name in
            request.uri.queryParameters.get(name).map { "&\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0)" }
        }
        return "\(path)?class=\(classID.uuidString.lowercased())&after=\(student.uuidString.lowercased())" + kept.joined()
    }

    /// Routes added to the group that comes back take only a request whose token
    /// ``SignedCallerMiddleware`` verifies, and read its signer as `context.caller`.
    /// - Parameter allowingTokenInAddress: True for the pages, which a browser opens with the
    ///   token in the address (`?token=`); every other route takes it in `Authorization` only.
    func signedRoutes(of router: Router<ServerRequestContext>, allowingTokenInAddress: Bool) -> RouterGroup<ServerRequestContext> {
        router.group().add(
            middleware: SignedCallerMiddleware(
                database: database, audiences: audiences, keys: keys,
                allowsTokenInAddress: allowingTokenInAddress))
    }

    /// The teacher and the class a report request names (`?class=ID`).
    private static func teachersClass(of request: Request, _ context: ServerRequestContext) throws -> (ServerDatabase.Caller, UUID) {
        let caller = try context.caller
        guard let text = request.uri.queryParameters.get("class"), let classID = UUID(uuidString: text) else {
            throw ServerError(.invalidValue, "name the class as ?class=ID (GET /v1/classes lists yours)")
        }
        guard caller.role == .teacher else {
            throw ServerError(.forbidden, "the class report is its teacher's; a student's key cannot read it")
        }
        return (caller, classID)
    }

    /// The teacher's pages of a class, the same pages as `clsfile serve`, read from PostgreSQL.
    /// A browser cannot sign a token, so the address carries one (`?token=`, at most 30
    /// minutes, as `clsfile class-report --server URL --link` makes it), and the links carry it on.
    func addPages(to router: Router<ServerRequestContext>) {
        let database = self.database
        let pages = signedRoutes(of: router, allowingTokenInAddress: true)
        DashboardPages(source: .classServer(reloadSeconds: 10)).add(to: pages, under: "/classes/:class") { request, context in
            let (caller, classID) = try Self.pageTeacher(context)
            let report = try await database.classReport(classID, as: caller.accountID)
            return DashboardPages.Context(
                report: report, base: "/classes/\(classID.uuidString.lowercased())",
                linkToken: request.uri.queryParameters.get("token"),
                evidence: database.evidenceReader(ofClass: classID, as: caller.accountID))
        }
    }

    /// The teacher whose token a class page's address carries, and the class it names.
    /// - Throws: ``ServerError`` `.forbidden` for a student's token, `.invalidValue` for an
    ///   address without a class id, and what ``ServerRequestContext/caller`` throws.
    static func pageTeacher(_ context: ServerRequestContext) throws -> (ServerDatabase.Caller, UUID) {
        let caller = try context.caller
        guard caller.role == .teacher else {
            throw ServerError(.forbidden, "the class pages are its teacher's; a student's key cannot read them")
        }
        return (caller, try Self.classID(context))
    }

    /// The class id of a route under `/classes/:class` or `/v1/classes/:class`.
    static func classID<Context: RequestContext>(_ context: Context) throws -> UUID {
        guard let id = context.parameters.get("class").flatMap(UUID.init(uuidString:)) else {
            throw ServerError(.invalidValue, "the address names no class id: GET /v1/classes lists yours")
        }
        return id
    }

    /// The token of `Authorization: Bearer`, else, for a page, of `?token=`.
    static func token(of request: Request, allowingAddress: Bool) throws -> String {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            return String(header.dropFirst("Bearer ".count))
        }
        if allowingAddress, let token = request.uri.queryParameters.get("token"), !token.isEmpty { return token }
        throw ServerError(
            .unauthorized, "the request carries no token: send Authorization: Bearer TOKEN, signed by your device key (clsfile does)")
    }

    private static func decoded<Body: Decodable>(_ type: Body.Type, from request: Request) async throws -> Body {
        let bytes = try await request.body.collect(upTo: SyncWire.maximumBodyBytes)
        do {
            return try SyncWire.decoder.decode(Body.self, from: Data(buffer: bytes))
        } catch {
            throw ServerError(.invalidValue, "the body is not the JSON this route takes: \(JSONCoding.describe(error))")
        }
    }

    static func json(_ value: some Encodable) throws -> Response {
        json(data: try SyncWire.encoder.encode(value))
    }

    /// - Parameter next: The address of the next page, sent as `Link: <ADDRESS>; rel="next"`.
    static func json(data: Data, status: HTTPResponse.Status = .ok, next: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let next, let link = HTTPFields.Element.Name("Link") { headers[link] = "<\(next)>; rel=\"next\"" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }
}

/// Turns every error into the JSON refusal `{id, code, message}` with its HTTP status, and logs
/// the id, so that a user's report can be found in the server's log.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let (status, name, message) = Self.described(error)
            let code = CatalogDocument.isCatalogPath(request.uri.path) ? CatalogDocument.code(of: name) : name
            let answer = SyncWire.ErrorAnswer(
                code: code, message: message,
                assignments: (error as? ServerError).flatMap { $0.assignments.isEmpty ? nil : $0.assignments })
            if status.code >= 500 {
                var metadata: Logger.Metadata = ["id": "\(answer.id)", "path": "\(request.uri.path)", "error": "\(error)"]
                // What failed underneath (PostgreSQL's own error, say), which the refusal does not show.
                if let underlying = (error as? ServerError)?.underlyingError {
                    metadata["underlying"] = "\(String(reflecting: underlying))"
                }
                context.logger.error("request failed", metadata: metadata)
            } else {
                context.logger.info("request refused", metadata: ["id": "\(answer.id)", "path": "\(request.uri.path)", "code": "\(code)"])
            }
            return ServerRoutes.json(data: (try? SyncWire.encoder.encode(answer)) ?? Data(), status: status)
        }
    }

    static func described(_ error: any Error) -> (HTTPResponse.Status, String, String) {
        switch error {
        case let error as ServerError:
            let status = error.httpStatus
            let message = status == .serviceUnavailable ? "the server cannot use its database now; try again later" : error.message
            return (status, "\(error.code)", message)
        case let error as WireError:
            return (error.httpStatus, "\(error.code)", error.message)
        case is NIOTooManyBytesError:
            return (
                .contentTooLarge, "tooLarge",
                "the body is larger than this route takes (\(SyncWire.maximumBodyBytes) bytes for a sync, \(CatalogWire.maximumContextsBytes) for contexts, \(CatalogWire.maximumThumbnailBytes) for a thumbnail): send less a request"
            )
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                return (
                    .notFound, "notFound",
                    "no such route: the API is POST /v1/join, POST /v1/sync, GET /v1/classes, POST /v1/classes/ID/handouts, GET /api/class-report.json?class=ID, GET /api/xapi.json?class=ID, GET /v1/classes/ID/assignments, the pages GET /classes/ID/ and GET /classes/ID/catalog, and the Catalog API (GET /v1/openapi.yaml)"
                )
            case .methodNotAllowed:
                return (.methodNotAllowed, "methodNotAllowed", "this route takes another method")
            default:
                return (error.status, "http\(error.status.code)", error.body ?? error.status.reasonPhrase)
            }
        default:
            return (.internalServerError, "internal", "the server failed on this request; its log has the id")
        }
    }
}
