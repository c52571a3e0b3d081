import Classroom
import ClassWire
internal import Crypto
import Foundation
import Hummingbird
internal import NIOCore
internal import NIOFoundationCompat
import OpenClassKit

/// The Catalog API: content tools publish their context trees, and the thumbnails of their
/// contexts, to a development and a production catalog. Every call names the catalog
/// (`?environment=development|production`) and carries a ``ClassWire/CatalogToken``; a team sees
/// and changes only its own catalogs. The document of the API is `GET /v1/openapi.yaml`.
struct CatalogRoutes: Sendable {
    let database: ServerDatabase
    /// The publisher keys verified lately, each kept a minute.
    let keys = KeyCache<(team: String, key: P256.Signing.PublicKey)>()

    func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/v1/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: CatalogDocument.openAPI)))
        }
        router.post("/v1/contexts") { request, _ in
            let (team, environment) = try await caller(of: request)
            let bytes = try await request.body.collect(upTo: CatalogWire.maximumContextsBytes)
            let contexts: [CatalogWire.Context]
            do {
                contexts = try JSONDecoder().decode([CatalogWire.Context].self, from: Data(buffer: bytes))
            } catch {
                throw ServerError(
                    .invalidValue,
                    "the body is not a JSON array of contexts ({\"data\": {...}, \"metadata\": {...}}): \(JSONCoding.describe(error))")
            }
            guard !contexts.isEmpty else {
                throw ServerError(.invalidValue, "the body holds no context: send 1 to \(CatalogWire.maximumContexts)")
            }
            guard contexts.count <= CatalogWire.maximumContexts else {
                throw ServerError(
                    .tooManyContexts,
                    "the body holds \(contexts.count) contexts, more than \(CatalogWire.maximumContexts): send them in several requests, parents first"
                )
            }
            return try ServerRoutes.json(try await database.publishContexts(contexts, team: team, environment: environment))
        }
        router.get("/v1/contexts") { request, _ in
            let (team, environment) = try await caller(of: request)
            let query = request.uri.queryParameters
            let limit =
                try query.get("limit").map { text in
                    guard let limit = Int(text), (1...1_000).contains(limit) else {
                        throw ServerError(.invalidValue, "limit is a number from 1 to 1000, not \(text.prefix(20))")
                    }
                    return limit
                } ?? 1_000
            let page = try await database.contexts(
                team: team, environment: environment, under: try Self.path(of: request, required: false),
                after: query.get("after"), limit: limit)
            return try ServerRoutes.json(page)
        }
        router.delete("/v1/contexts") { request, _ in
            let (team, environment) = try await caller(of: request)
            let bytes = try await request.body.collect(upTo: CatalogWire.maximumContextsBytes)
            let paths: [[String]], named = bytes.readableBytes == 0
            if named {
                paths = [try Self.path(of: request, required: true) ?? []]
            } else {
                do {
                    paths = try JSONDecoder().decode(CatalogWire.Deletion.self, from: Data(buffer: bytes)).identifierPaths
                } catch {
                    throw ServerError(.invalidValue, "the body is not {\"identifierPaths\": [[...], ...]}: \(JSONCoding.describe(error))")
                }
                guard (1...CatalogWire.maximumContexts).contains(paths.count) else {
                    throw ServerError(
                        .tooManyContexts, "the body names \(paths.count) contexts; name 1 to \(CatalogWire.maximumContexts) a request")
                }
                try paths.forEach(Self.check(path:))
            }
            return try ServerRoutes.json(
                try await database.deleteContexts(under: paths, requiringOne: named, team: team, environment: environment))
        }
        router.post("/v1/thumbnails") { request, _ in
            let (team, environment) = try await caller(of: request)
            let id = try Self.thumbnailID(of: request)
            let bytes = try await request.body.collect(upTo: CatalogWire.maximumThumbnailBytes)
            let thumbnail = try CatalogThumbnail(checking: Data(buffer: bytes), contentType: request.headers[.contentType])
            return try ServerRoutes.json(try await database.putThumbnail(thumbnail, id: id, team: team, environment: environment))
        }
        router.get("/v1/thumbnails") { request, _ in
            let (team, environment) = try await caller(of: request)
            let id = try Self.thumbnailID(of: request)
            guard let thumbnail = try await database.thumbnail(id: id, team: team, environment: environment) else {
                throw ServerError(.notFound, "the \(environment.rawValue) catalog has no thumbnail \(id)")
            }
            return Response(
                status: .ok, headers: [.contentType: thumbnail.mediaType],
                body: ResponseBody(byteBuffer: ByteBuffer(data: thumbnail.bytes)))
        }
        router.delete("/v1/thumbnails") { request, _ in
            let (team, environment) = try await caller(of: request)
            return try ServerRoutes.json(
                try await database.deleteThumbnail(id: try Self.thumbnailID(of: request), team: team, environment: environment))
        }
        router.get("/v1/status/:id") { request, context in
            let (team, _) = try await caller(of: request, needsEnvironment: false)
            guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else {
                throw ServerError(.invalidValue, "the address names no request id: give the id a change answered with")
            }
            return try ServerRoutes.json(try await database.catalogStatus(of: id, team: team))
        }
    }

    /// The team whose key signed the request's token, and the catalog it names.
    private func caller(of request: Request, needsEnvironment: Bool = true) async throws -> (String, CatalogWire.Environment) {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw ServerError(
                .unauthorized,
                "the request carries no token: send Authorization: Bearer TOKEN, a JWT signed with ES256 by your registered key (clsfile catalog makes them)"
            )
        }
        let (database, keys) = (self.database, self.keys)
        let verified = try await CatalogToken.verify(String(header.dropFirst("Bearer ".count))) { kid in
            try await keys.entry(named: kid, lookingUp: database.publisherKey(named:))
        }
        let named = request.uri.queryParameters.get("environment")
        guard let environment = named.flatMap({ CatalogWire.Environment(rawValue: $0) }) ?? (needsEnvironment ? nil : .development) else {
            throw ServerError(
                .invalidEnvironment,
                "name the catalog with environment=development or environment=production\(named.map { ", not \($0.prefix(40))" } ?? "")")
        }
        return (verified.team, environment)
    }

    /// The identifier path the query names, one `path=` per identifier, top first.
    private static func path(of request: Request, required: Bool) throws -> [String]? {
        let path = request.uri.queryParameters.getAll("path").map { String($0) }
        guard !path.isEmpty else {
            if required { throw ServerError(.invalidValue, "name the context with one path= per identifier of its path, top first") }
            return nil
        }
        try check(path: path)
        return path
    }

    private static func check(path: [String]) throws {
        guard (1...32).contains(path.count), path.allSatisfy({ (1...256).contains($0.utf8.count) }) else {
            throw ServerError(.invalidValue, "a path has 1 to 32 identifiers of 1 to 256 bytes each")
        }
    }

    private static func thumbnailID(of request: Request) throws -> String {
        guard let id = request.uri.queryParameters.get("id") else {
            throw ServerError(.invalidValue, "name the thumbnail with id=, the thumbnailId its contexts give")
        }
        try CatalogCheck.checkName(id, what: "a thumbnail id")
        return id
    }
}
