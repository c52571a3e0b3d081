public import AsyncHTTPClient
import ClassWire
public import Crypto
import Foundation
internal import NIOCore
internal import NIOHTTP1
import OpenClassKit

/// A content tool's side of the Catalog API: publishing a course manifest's contexts and
/// thumbnails to one catalog of a class server, listing and deleting them.
///
/// ```swift
/// let client = try CatalogClient(serverURL: URL(string: "https://class.example.org")!, team: "acme",
///                                kid: "acme-1", key: key, environment: .development)
/// let outcome = try await client.publish(try CourseManifest.read(from: manifestURL))
/// ```
public struct CatalogClient: Sendable {
    public let serverURL: URL
    /// The publisher's team, which the server's administrator registered the key for.
    public let team: String
    /// The key's id, as the administrator registered it.
    public let kid: String
    public let key: P256.Signing.PrivateKey
    /// The catalog published to.
    public let environment: CatalogWire.Environment
    /// How many times a request is tried when the server cannot be reached or cannot take it
    /// now, waiting ½, 1, 2, 4 … seconds between.
    public var attempts = 5
    private let connection: ServerConnection

    /// A client of a server's catalog.
    /// - Throws: ``SyncError`` `.invalidValue` for an address that is not http(s) with a host.
    public init(
        serverURL: URL, team: String, kid: String, key: P256.Signing.PrivateKey,
        environment: CatalogWire.Environment, http: HTTPClient = SyncClient.sharedHTTP
    ) throws {
        self.serverURL = try SyncClient.serverURL(serverURL.absoluteString)
        self.team = team
        self.kid = kid
        self.key = key
        self.environment = environment
        connection = ServerConnection(
            serverURL: self.serverURL, http: http, timeout: .seconds(60),
            retrying: "publish again later: publishing again changes nothing that is there already")
    }

    // MARK: Calls

    /// Adds or updates at most 200 contexts, parents before children.
    public func post(_ contexts: [CatalogWire.Context]) async throws -> CatalogWire.Status {
        try await decoded(CatalogWire.Status.self, .POST, "v1/contexts", body: (try SyncWire.encoder.encode(contexts), "application/json"))
    }

    /// Every context of the catalog, or the one at `path` and its descendants, parents first.
    public func contexts(under path: [String]? = nil) async throws -> [CatalogWire.Context] {
        var contexts: [CatalogWire.Context] = [], after: String?
        repeat {
            var query = Self.query(path: path ?? [])
            if let after { query += "&after=" + Self.escaped(after) }
            let page = try await decoded(CatalogWire.ContextPage.self, .GET, "v1/contexts", query: query, body: nil)
            contexts += page.contexts
            after = page.next
        } while after != nil
        return contexts
    }

    /// Deletes a context and its descendants.
    public func delete(_ path: [String]) async throws -> CatalogWire.Status {
        try await decoded(CatalogWire.Status.self, .DELETE, "v1/contexts", query: Self.query(path: path), body: nil)
    }

    /// Deletes at most 200 contexts and their descendants in one request.
    public func delete(_ paths: [[String]]) async throws -> CatalogWire.Status {
        try await decoded(
            CatalogWire.Status.self, .DELETE, "v1/contexts",
            body: (try SyncWire.encoder.encode(CatalogWire.Deletion(identifierPaths: paths)), "application/json"))
    }

    /// Uploads a thumbnail that a context of the catalog references.
    public func uploadThumbnail(_ image: Data, id: String) async throws -> CatalogWire.Status {
        guard let format = ThumbnailImage.format(of: image) else {
            throw SyncError(.invalidValue, "the thumbnail \(id) is not a PNG or JPEG image")
        }
        return try await decoded(
            CatalogWire.Status.self, .POST, "v1/thumbnails", query: "&id=\(Self.escaped(id))",
            body: (image, format.mediaType))
    }

    /// What a change request did.
    public func status(of id: UUID) async throws -> CatalogWire.Status {
        try await decoded(CatalogWire.Status.self, .GET, "v1/status/\(id.uuidString.lowercased())", body: nil)
    }

    // MARK: Publishing a manifest

    /// What ``publish(_:progress:)`` did.
    public struct Outcome: Sendable, Equatable {
        /// Contexts sent, and of those how many were new or changed.
        public var contexts = 0
        public var changed = 0
        /// Thumbnails uploaded.
        public var thumbnails = 0
        /// Contexts of the catalog not in the manifest, deleted with their descendants.
        public var deleted = 0
        /// Requests made.
        public var requests = 0
    }

    /// Makes the catalog equal to a manifest: its contexts in batches of at most 200, parents
    /// first, then its thumbnails (each under the first 32 hexadecimal digits of its SHA-256),
    /// then deletes what the catalog holds beyond the manifest. Publishing the same manifest again
    /// changes nothing.
    /// - Parameters:
    ///   - manifest: The catalog as it should be.
    ///   - progress: Called after each request with the steps done and the steps in all.
    /// - Throws: ``SyncError``; `.invalidValue` for a thumbnail file that cannot be read, is not
    ///   a PNG or JPEG of 330 × 330 pixels or does not decode, before anything is sent.
    public func publish(_ manifest: CourseManifest, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> Outcome {
        var thumbnails: [String: Data] = [:]
        var contexts: [CatalogWire.Context] = []
        for entry in manifest.contexts {
            var data = CatalogWire.ContextData(entry.data)
            if let file = entry.thumbnail {
                let image = try Self.thumbnail(file, in: manifest.folder)
                let id = String(SHA256.hash(data: image).prefix(16).map { String(format: "%02x", $0) }.joined())
                data.thumbnailId = id
                thumbnails[id] = image
            }
            contexts.append(CatalogWire.Context(data: data, metadata: entry.metadata))
        }
        // Every context's parent is in the manifest (the top contexts have none), or publishing
        // would prune the parent, and the child with it.
        let paths = Set(contexts.map(\.data.description.identifierPath))
        if let orphan = contexts.map(\.data.description.identifierPath).first(where: {
            $0.count > 1 && !paths.contains(Array($0.dropLast()))
        }) {
            throw SyncError(
                .invalidValue,
                "the manifest has \(orphan.joined(separator: "/")) but not its parent \(orphan.dropLast().joined(separator: "/")): a catalog equal to the manifest holds every context's parent; add it"
            )
        }
        // Parents before children, whatever the manifest's order; the manifest's order within a depth.
        let ordered = contexts.enumerated().sorted {
            ($0.element.data.description.identifierPath.count, $0.offset) < ($1.element.data.description.identifierPath.count, $1.offset)
        }.map(\.element)
        let batches = stride(from: 0, to: ordered.count, by: CatalogWire.maximumContexts).map {
            Array(ordered[$0..<min($0 + CatalogWire.maximumContexts, ordered.count)])
        }
        let steps = batches.count + thumbnails.count + 1
        var outcome = Outcome()
        for batch in batches {
            let status = try await post(batch)
            outcome.contexts += batch.count
            outcome.changed += status.count
            outcome.requests += 1
            progress?(outcome.requests, steps)
        }
        for (id, image) in thumbnails.sorted(by: { $0.key < $1.key }) {
            _ = try await uploadThumbnail(image, id: id)
            outcome.thumbnails += 1
            outcome.requests += 1
            progress?(outcome.requests, steps)
        }
        // What the catalog holds beyond the manifest: the topmost of it, deleted with its descendants.
        let wanted = Set(ordered.map(\.data.description.identifierPath))
        let extra = try await self.contexts().map(\.data.description.identifierPath).filter { !wanted.contains($0) }
        let extraSet = Set(extra)
        outcome.requests += 1
        let topmost = extra.filter { path in !(1..<path.count).contains { extraSet.contains(Array(path.prefix($0))) } }
        for start in stride(from: 0, to: topmost.count, by: CatalogWire.maximumContexts) {
            outcome.deleted += try await delete(Array(topmost[start..<min(start + CatalogWire.maximumContexts, topmost.count)])).count
            outcome.requests += 1
        }
        progress?(steps, steps)
        return outcome
    }

    /// A thumbnail file of a manifest, checked.
    private static func thumbnail(_ file: String, in folder: URL?) throws -> Data {
        let url = URL(fileURLWithPath: file, relativeTo: folder ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let image: Data
        do {
            image = try Data(contentsOf: url)
        } catch {
            throw SyncError(.invalidValue, "cannot read the thumbnail \(url.path): \(error.localizedDescription)")
        }
        let side = CatalogWire.thumbnailSide
        guard let format = ThumbnailImage.format(of: image), format.width == side, format.height == side,
            image.count <= CatalogWire.maximumThumbnailBytes
        else {
            throw SyncError(
                .invalidValue, "the thumbnail \(url.path) is not a PNG or JPEG of \(side)×\(side) pixels and at most 1 MiB: scale it first")
        }
        if let problem = ThumbnailImage.problem(with: image) {
            throw SyncError(.invalidValue, "\(url.path): \(problem)")
        }
        return image
    }

    // MARK: Requests

    private func decoded<Answer: Decodable>(
        _ type: Answer.Type, _ method: HTTPMethod, _ path: String, query: String = "",
        body: (Data, String)?
    ) async throws -> Answer {
        let address = "\(path)?environment=\(environment.rawValue)\(query)"
        var wait: Duration = .milliseconds(500), attempt = 1
        while true {
            do {
                let token = try await CatalogToken.make(key: key, kid: kid, team: team)
                let answer = try await connection.request(method, address, body: body.map { (data: $0.0, contentType: $0.1) }, token: token)
                do {
                    return try SyncWire.decoder.decode(Answer.self, from: answer.data)
                } catch {
                    throw SyncError(
                        .unreachable,
                        "\(serverURL.absoluteString) answered \(path) with something that is not the Catalog API (\(error)); check the address"
                    )
                }
            } catch let error as SyncError where error.code == .unreachable && attempt < attempts {
                try await Task.sleep(for: wait)
                wait *= 2
                attempt += 1
            }
        }
    }

    private static func query(path: [String]) -> String {
        path.map { "&path=" + escaped($0) }.joined()
    }

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
