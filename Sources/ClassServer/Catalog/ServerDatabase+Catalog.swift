import ClassWire
public import Crypto
import Foundation
import OpenClassKit
public import PostgresNIO

/// The Catalog API's side of the database: publishers, and each team's catalogs of contexts and
/// thumbnails, read and written in transactions as the team (``ServerDatabase/asPublisher(_:_:)``).
extension ServerDatabase {
    /// A content tool's key, registered by the administrator for a team.
    public struct Publisher: Sendable, Equatable {
        public var team: String
        public var keyIdentifier: String
    }

    // MARK: The administrator's commands

    /// Registers a publisher's public key for a team, under the key id its tokens name.
    /// - Throws: ``ServerError`` `.invalidValue` for a key id taken, or a team or key id empty,
    ///   longer than 64 characters or with characters other than letters, digits, `.`, `_` and `-`.
    public func addPublisher(team: String, keyIdentifier kid: String, publicKey: P256.Signing.PublicKey) async throws -> Publisher {
        try CatalogCheck.checkName(team, what: "a team id")
        try CatalogCheck.checkName(kid, what: "a key id")
        let key = publicKey.x963Representation
        return try await translating("adding the publisher \(kid) of \(team)") {
            try await client.withTransaction(logger: logger) { connection in
                let taken = try await connection.run("SELECT team FROM clsfile.publisher WHERE kid = \(kid)", logger: logger)
                    .decode(String.self).collected()
                if let owner = taken.first {
                    throw ServerError(.invalidValue, "the key id \(kid) is registered already, for the team \(owner)")
                }
                try await connection.run(
                    """
                    INSERT INTO clsfile.publisher (kid, team, public_key) VALUES (\(kid), \(team), \(key))
                    """, logger: logger)
                return Publisher(team: team, keyIdentifier: kid)
            }
        }
    }

    /// Every publisher key, by team.
    public func publishers() async throws -> [Publisher] {
        try await translating("listing the publishers") {
            try await client.query("SELECT team, kid FROM clsfile.publisher ORDER BY team, created_at", logger: logger)
                .decode((String, String).self).collected().map { Publisher(team: $0.0, keyIdentifier: $0.1) }
        }
    }

    // MARK: Requests

    /// The team and public key registered under a key id, looked up before the publisher is known.
    public func publisherKey(named kid: String) async throws -> (team: String, key: P256.Signing.PublicKey)? {
        try await translating("looking up a publisher key") {
            let rows = try await client.query("SELECT team, public_key FROM clsfile.publisher_key_named(\(kid))", logger: logger)
                .decode((String, Data).self).collected()
            guard let (team, key) = rows.first else { return nil }
            return (team, try P256.Signing.PublicKey(x963Representation: key))
        }
    }

    /// Runs `body` in a transaction as a publishing team: it sees and writes only that team's catalogs.
    /// - Parameters:
    ///   - team: The publishing team.
    ///   - environment: The catalog the transaction changes, if any: changes of one catalog
    ///     take turns (a transaction-level advisory lock), so that a child is never published
    ///     under a parent deleted meanwhile, nor a thumbnail stored for a context deleted meanwhile.
    ///   - body: The work, on the transaction's connection.
    public func asPublisher<Result: Sendable>(
        _ team: String, writing environment: CatalogWire.Environment? = nil,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await translating("a catalog request of the team \(team)") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.run("SELECT set_config('clsfile.team', \(team), true)", logger: logger)
                if let environment {
                    try await connection.run(
                        "SELECT pg_advisory_xact_lock(\(Self.catalogLock), hashtext(\(environment.rawValue + "/" + team)))", logger: logger)
                }
                return try await body(connection)
            }
        }
    }

    /// The first key of the advisory locks of catalog changes (the second is the catalog's hash).
    private static let catalogLock: Int32 = 0x636C_6361

    /// Adds or updates contexts, in order: each context's parent must be in the catalog already
    /// or earlier in `contexts`. A context whose every field is unchanged is not written again.
    /// A thumbnail no context references any more goes.
    /// - Throws: ``ServerError`` `.parentNotFound` for a context whose parent is missing.
    public func publishContexts(
        _ contexts: [CatalogWire.Context], team: String,
        environment: CatalogWire.Environment
    ) async throws -> CatalogWire.Status {
        let rows = try contexts.map { try CatalogRow($0) }
        return try await asPublisher(team, writing: environment) { connection in
            var seen = Set<String>(), wanted: [String: Int] = [:]
            for (index, row) in rows.enumerated() {
                if let parent = row.parentKey, !seen.contains(parent) { wanted[parent] = wanted[parent] ?? index }
                guard seen.insert(row.key).inserted else {
                    throw ServerError(
                        .invalidValue,
                        "context \(index) repeats the identifierPath \(row.path.joined(separator: "/")) of a context before it in this request: send each context once"
                    )
                }
            }
            if !wanted.isEmpty {
                let found = try await Set(
                    connection.run(
                        """
                        SELECT path_key FROM clsfile.catalog_context
                        WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND path_key = ANY(\(Array(wanted.keys))::text[])
                        """, logger: logger
                    ).decode(String.self).collected())
                if let (parent, index) = wanted.filter({ !found.contains($0.key) }).min(by: { $0.value < $1.value }) {
                    let path = rows[index].path.joined(separator: "/")
                    let later = seen.contains(parent) ? ", and comes later in this request: send parents before their children" : ""
                    throw ServerError(
                        .parentNotFound, "context \(index) (\(path)) has no parent \(parent) in the \(environment.rawValue) catalog\(later)"
                    )
                }
            }
            let changed = try await connection.run(
                """
                INSERT INTO clsfile.catalog_context (environment, team, path_key, parent_key, depth, data, metadata, thumbnail_id)
                SELECT \(environment.rawValue), clsfile.publishing_team(), k, nullif(parent, ''), d, data::jsonb, nullif(meta, '')::jsonb, nullif(thumb, '')
                FROM unnest(\(rows.map(\.key))::text[], \(rows.map { $0.parentKey ?? "" })::text[], \(rows.map(\.depth))::int[],
                            \(rows.map(\.data))::text[], \(rows.map(\.metadata))::text[], \(rows.map(\.thumbnail))::text[])
                     AS c(k, parent, d, data, meta, thumb)
                ON CONFLICT (environment, team, path_key) DO UPDATE
                    SET data = excluded.data, metadata = excluded.metadata, thumbnail_id = excluded.thumbnail_id, updated_at = now()
                    WHERE (catalog_context.data, catalog_context.metadata, catalog_context.thumbnail_id)
                          IS DISTINCT FROM (excluded.data, excluded.metadata, excluded.thumbnail_id)
                RETURNING 1
                """, logger: logger
            ).collect().count
            try await dropUnreferencedThumbnails(environment, on: connection)
            return try await record("contexts.post", count: changed, environment, on: connection)
        }
    }

    /// A page of a team's catalog, parents before children: the whole catalog, or the context at
    /// `path` and its descendants.
    /// - Throws: ``ServerError`` `.invalidValue` for a cursor that is not one this server made.
    public func contexts(
        team: String, environment: CatalogWire.Environment, under path: [String]? = nil,
        after cursor: String? = nil, limit: Int = 1_000
    ) async throws -> CatalogWire.ContextPage {
        let after = try cursor.map(CatalogCursor.init(text:)) ?? CatalogCursor(depth: 0, key: "")
        let subtree = try path.map { try CatalogRow.key(of: $0) }
        return try await asPublisher(team) { connection in
            let rows = try await connection.run(
                """
                SELECT depth, path_key, data::text, metadata::text FROM clsfile.catalog_context
                WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team()
                  AND (\(subtree ?? "")::text = '' OR path_key = \(subtree ?? "") OR starts_with(path_key, \(subtree.map(CatalogRow.childPrefix) ?? "")))
                  AND (depth, path_key) > (\(after.depth), \(after.key))
                ORDER BY depth, path_key LIMIT \(limit + 1)
                """, logger: logger
            ).decode((Int, String, String, String?).self).collected()
            let contexts = try rows.prefix(limit).map { try CatalogRow.context(data: $0.2, metadata: $0.3) }
            let next = rows.count > limit ? CatalogCursor(depth: rows[limit - 1].0, key: rows[limit - 1].1).text : nil
            return CatalogWire.ContextPage(contexts: contexts, next: next)
        }
    }

    /// Deletes contexts and their descendants, and the thumbnails only they referenced.
    /// - Parameters:
    ///   - paths: The identifier paths of the contexts.
    ///   - requiringOne: Whether finding none of the contexts is an error (a delete of one context
    ///     named in the query) rather than a count of 0 (of several, in a body, which a client
    ///     may send again after a lost answer).
    ///   - team: The publishing team whose catalog it is.
    ///   - environment: The catalog, development or production.
    /// - Throws: ``ServerError`` `.notFound` when `requiringOne` and the catalog has none of them.
    public func deleteContexts(
        under paths: [[String]], requiringOne: Bool = true, team: String,
        environment: CatalogWire.Environment
    ) async throws -> CatalogWire.Status {
        let keys = try paths.map { try CatalogRow.key(of: $0) }
        return try await asPublisher(team, writing: environment) { connection in
            // The contexts named, then their children, level by level: each level one look-up by
            // the index on parent_key (a recursive query's join is planned badly on a table
            // PostgreSQL has no statistics of yet, as after a first publish).
            var level = try await connection.run(
                """
                SELECT path_key FROM clsfile.catalog_context
                WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND path_key = ANY(\(keys)::text[])
                """, logger: logger
            ).decode(String.self).collected()
            var doomed = level
            while !level.isEmpty {
                level = try await connection.run(
                    """
                    SELECT path_key FROM clsfile.catalog_context
                    WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND parent_key = ANY(\(level)::text[])
                    """, logger: logger
                ).decode(String.self).collected()
                doomed += level
            }
            let deleted = try await connection.run(
                """
                DELETE FROM clsfile.catalog_context
                WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND path_key = ANY(\(doomed)::text[])
                RETURNING 1
                """, logger: logger
            ).collect().count
            guard deleted > 0 || !requiringOne else {
                let named = paths.count == 1 ? "context \(paths[0].joined(separator: "/"))" : "of the \(paths.count) contexts named"
                throw ServerError(.notFound, "the \(environment.rawValue) catalog has no \(named)")
            }
            try await dropUnreferencedThumbnails(environment, on: connection)
            return try await record("contexts.delete", count: deleted, environment, on: connection)
        }
    }

    /// Stores a thumbnail under its id; a context must reference it already.
    /// - Throws: ``ServerError`` `.thumbnailNotReferenced` when no context of the catalog names it.
    public func putThumbnail(
        _ thumbnail: CatalogThumbnail, id: String, team: String,
        environment: CatalogWire.Environment
    ) async throws -> CatalogWire.Status {
        try CatalogCheck.checkName(id, what: "a thumbnail id")
        return try await asPublisher(team, writing: environment) { connection in
            let referenced =
                try await connection.run(
                    """
                    SELECT count(*) FROM clsfile.catalog_context
                    WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND thumbnail_id = \(id)
                    """, logger: logger
                ).decode(Int.self).collected().first ?? 0
            guard referenced > 0 else {
                throw ServerError(
                    .thumbnailNotReferenced,
                    "no context of the \(environment.rawValue) catalog references the thumbnail \(id): upload the contexts (with thumbnailId \(id)) first, then the thumbnail"
                )
            }
            try await connection.run(
                """
                INSERT INTO clsfile.catalog_thumbnail (environment, team, id, media_type, image)
                VALUES (\(environment.rawValue), clsfile.publishing_team(), \(id), \(thumbnail.mediaType), \(thumbnail.bytes))
                ON CONFLICT (environment, team, id) DO UPDATE SET media_type = excluded.media_type, image = excluded.image, updated_at = now()
                """, logger: logger)
            return try await record("thumbnails.post", count: 1, environment, on: connection)
        }
    }

    /// A thumbnail of the team's catalog, or nil when there is none under the id.
    public func thumbnail(id: String, team: String, environment: CatalogWire.Environment) async throws -> CatalogThumbnail? {
        try CatalogCheck.checkName(id, what: "a thumbnail id")
        return try await asPublisher(team) { connection in
            try await connection.run(
                """
                SELECT media_type, image FROM clsfile.catalog_thumbnail
                WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND id = \(id)
                """, logger: logger
            ).decode((String, Data).self).collected().first.map { CatalogThumbnail(mediaType: $0.0, bytes: $0.1) }
        }
    }

    /// Deletes a thumbnail; the contexts that reference it keep the reference, so it can be uploaded again.
    /// - Throws: ``ServerError`` `.notFound` when there is none under the id.
    public func deleteThumbnail(id: String, team: String, environment: CatalogWire.Environment) async throws -> CatalogWire.Status {
        try CatalogCheck.checkName(id, what: "a thumbnail id")
        return try await asPublisher(team, writing: environment) { connection in
            let deleted = try await connection.run(
                """
                DELETE FROM clsfile.catalog_thumbnail
                WHERE environment = \(environment.rawValue) AND team = clsfile.publishing_team() AND id = \(id) RETURNING 1
                """, logger: logger
            ).collect().count
            guard deleted > 0 else { throw ServerError(.notFound, "the \(environment.rawValue) catalog has no thumbnail \(id)") }
            return try await record("thumbnails.delete", count: deleted, environment, on: connection)
        }
    }

    /// What a change request of the team did.
    /// - Throws: ``ServerError`` `.notFound` for an id the team made no request under.
    public func catalogStatus(of id: UUID, team: String) async throws -> CatalogWire.Status {
        try await asPublisher(team) { connection in
            guard
                let (operation, count, completed) = try await connection.run(
                    """
                    SELECT operation, count, completed_at FROM clsfile.catalog_request WHERE id = \(id)
                    """, logger: logger
                ).decode((String, Int, Date).self).collected().first
            else {
                throw ServerError(.notFound, "your team made no catalog request \(id.uuidString.lowercased())")
            }
            return CatalogWire.Status(id: id, operation: operation, count: count, completedAt: completed)
        }
    }

    private func dropUnreferencedThumbnails(_ environment: CatalogWire.Environment, on connection: PostgresConnection) async throws {
        try await connection.run(
            """
            DELETE FROM clsfile.catalog_thumbnail t
            WHERE t.environment = \(environment.rawValue) AND t.team = clsfile.publishing_team()
              AND NOT EXISTS (SELECT 1 FROM clsfile.catalog_context c
                              WHERE c.environment = t.environment AND c.team = t.team AND c.thumbnail_id = t.id)
            """, logger: logger)
    }

    private func record(
        _ operation: String, count: Int, _ environment: CatalogWire.Environment,
        on connection: PostgresConnection
    ) async throws -> CatalogWire.Status {
        let id = UUID()
        let completed =
            try await connection.run(
                """
                INSERT INTO clsfile.catalog_request (id, team, environment, operation, count)
                VALUES (\(id), clsfile.publishing_team(), \(environment.rawValue), \(operation), \(count)) RETURNING completed_at
                """, logger: logger
            ).decode(Date.self).collected().first ?? Date()
        return CatalogWire.Status(id: id, operation: operation, count: count, completedAt: completed)
    }
}
