import ClassDashboard
import ClassWire
import Foundation
import Hummingbird
internal import NIOCore
internal import NIOFoundationCompat
import OpenClassKit

/// A class and the catalog: the teacher's catalog page (`/classes/ID/catalog`, with the token in
/// the address as the other pages), its thumbnails and its form that assigns a context to the
/// class, and the class's catalog assignments for its students' clsfile
/// (`GET /v1/classes/ID/assignments`).
struct ClassCatalogRoutes: Sendable {
    let routes: ServerRoutes
    var database: ServerDatabase { routes.database }

    func add(to router: Router<ServerRequestContext>) {
        routes.signedRoutes(of: router, allowingTokenInAddress: false).get("/v1/classes/:class/assignments") { _, context in
            let caller = try context.caller
            return try ServerRoutes.json(
                try await database.catalogAssignments(ofClass: try ServerRoutes.classID(context), as: caller.accountID))
        }
        let pages = routes.signedRoutes(of: router, allowingTokenInAddress: true)
        pages.get("/classes/:class/catalog") { request, context in
            let (teacher, classID) = try Self.teacher(context)
            let query = request.uri.queryParameters
            let assigned = query.get("assigned")
            return try await page(classID, team: query.get("team"), path: query.getAll("path"), as: teacher, request: request) { page in
                page.assignments.first { $0.identifier == assigned }.map {
                    CatalogPage.Notice("Assigned ‘\($0.title)’ to the class: students receive it at their next sync.", isRefusal: false)
                }
            }.response()
        }
        pages.get("/classes/:class/catalog/thumbnail") { request, context in
            let (teacher, _) = try Self.teacher(context)
            let query = request.uri.queryParameters
            guard let team = query.get("team"), let id = query.get("id"),
                let thumbnail = try await database.catalogThumbnail(id: id, team: team, as: teacher)
            else {
                throw ServerError(
                    .notFound,
                    "the production catalogs have no thumbnail \(request.uri.queryParameters.get("id") ?? "") of \(request.uri.queryParameters.get("team") ?? ""): reload the catalog page, whose images name the thumbnails there are"
                )
            }
            var headers = HTTPFields()
            headers[.contentType] = thumbnail.mediaType
            headers[.cacheControl] = "no-store"
            headers[.xContentTypeOptions] = "nosniff"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: thumbnail.bytes)))
        }
        pages.post("/classes/:class/catalog/assignments") { request, context in
            let (teacher, classID) = try Self.teacher(context)
            let form = try await Self.form(of: request)
            let team = form.first { $0.0 == "team" }?.1 ?? ""
            let path = form.filter { $0.0 == "path" }.map(\.1)
            let title = form.first { $0.0 == "title" }?.1 ?? ""
            do {
                let due = try Self.dueDate(form.first { $0.0 == "due" }?.1)
                let assignment = try await database.assignCatalogContext(
                    path, team: team, toClass: classID, title: title, dueDate: due,
                    instructions: form.first { $0.0 == "instructions" }?.1, as: teacher)
                var level = CatalogPage.address(
                    base: Self.base(classID), token: request.uri.queryParameters.get("token"),
                    team: team, path: Array(path.dropLast()))
                level += (level.contains("?") ? "&" : "?") + "assigned=\(assignment.id.uuidString.lowercased())"
                return Response(status: .seeOther, headers: [.location: level, .cacheControl: "no-store"])
            } catch let error as ServerError where [.invalidValue, .alreadyAssigned, .notFound].contains(error.code) {
                let (status, _, _) = JSONErrorMiddleware<ServerRequestContext>.described(error)
                let shown = try? await page(classID, team: team, path: Array(path.dropLast()), as: teacher, request: request) { _ in
                    CatalogPage.Notice(error.message, isRefusal: true)
                }
                guard let shown else { throw error }
                return shown.response(status: status)
            }
        }
    }

    /// The catalog page of a level; a level the catalog no longer holds shows the list of
    /// publishers, saying so.
    private func page(
        _ classID: UUID, team: String?, path: [String], as teacher: UUID, request: Request,
        notice: (CatalogPage) -> CatalogPage.Notice?
    ) async throws -> CatalogPage {
        var level: ServerDatabase.CatalogLevel
        var missing: CatalogPage.Notice?
        var team = team.flatMap { $0.isEmpty ? nil : $0 }
        do {
            level = try await database.catalogLevel(ofClass: classID, team: team, path: path, as: teacher)
        } catch let error as ServerError where error.code == .notFound && team != nil {
            missing = CatalogPage.Notice(error.message, isRefusal: true)
            team = nil
            level = try await database.catalogLevel(ofClass: classID, team: nil, path: nil, as: teacher)
        }
        var page = CatalogPage(
            base: Self.base(classID), token: request.uri.queryParameters.get("token"), teams: level.teams, team: team,
            ancestors: level.ancestors.map(\.data.description),
            entries: level.entries.map {
                CatalogPage.Entry(
                    context: $0.context.data.description, thumbnailID: $0.context.data.thumbnailId,
                    childCount: $0.childCount)
            },
            isTruncated: level.isTruncated,
            assignments: level.assignments.map { assigned in
                CatalogPage.Assigned(
                    identifier: assigned.id.uuidString.lowercased(), title: assigned.title, team: assigned.team,
                    identifierPath: assigned.identifierPath,
                    contextTitle: assigned.contexts.first { $0.data.identifierPath == assigned.identifierPath }?.data.title ?? "",
                    dueDate: assigned.dueDate, createdAt: assigned.createdAt)
            })
        page.notice = missing ?? notice(page)
        return page
    }

    private static func teacher(_ context: ServerRequestContext) throws -> (UUID, UUID) {
        let (caller, classID) = try ServerRoutes.pageTeacher(context)
        return (caller.accountID, classID)
    }

    private static func base(_ classID: UUID) -> String { "/classes/\(classID.uuidString.lowercased())" }

    /// The fields of an `application/x-www-form-urlencoded` body, in order.
    private static func form(of request: Request) async throws -> [(String, String)] {
        let bytes = try await request.body.collect(upTo: 64 << 10)
        // By hand: Foundation's URLComponents traps on a body that is not valid percent-encoding.
        func decoded(_ text: Substring) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        return String(decoding: Data(buffer: bytes), as: UTF8.self).split(separator: "&").map { field in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    /// A form's due day, `YYYY-MM-DD`, as the end of that day in the server's time zone; nil when empty.
    private static func dueDate(_ text: String?) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        guard text.count == 10, let date = formatter.date(from: "\(text) 23:59:59") else {
            throw ServerError(.invalidValue, "the due day is YYYY-MM-DD, not \(text.prefix(40))")
        }
        // The range students' operations may carry (OperationCheck).
        guard (946_684_800.0...4_102_444_800.0).contains(date.timeIntervalSince1970) else {
            throw ServerError(.invalidValue, "the due day \(text) is not between 2000 and 2100")
        }
        return date
    }
}
