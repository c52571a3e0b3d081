import ClassWire
import Foundation
import OpenClassKit
internal import PostgresNIO

/// Teachers and the catalog: browsing the production catalogs a level at a time, assigning a
/// context to a class, and the class's students reading what was assigned. Each call is a
/// transaction as the caller (``ServerDatabase/asAccount(_:_:)``): the policies let teachers read
/// the production catalogs only, and a class's assignments only to its teacher and students.
extension ServerDatabase {
    /// One level of a team's production catalog, as a teacher browses it.
    public struct CatalogLevel: Sendable {
        /// A context of the level, with how many children it has.
        public struct Entry: Sendable {
            public var context: CatalogWire.Context
            public var childCount: Int
        }

        /// The teams that published a production catalog, by name.
        public var teams: [String]
        /// The contexts from the team's top down to the one shown (itself last); empty at the top.
        public var ancestors: [CatalogWire.Context]
        /// The children of the context shown (the team's top contexts at the top), by display
        /// order and title, at most ``ServerDatabase/maximumCatalogEntries``.
        public var entries: [Entry]
        /// Whether the level has more children than ``entries`` holds.
        public var isTruncated: Bool
        /// The class's assignments from the catalog, newest first.
        public var assignments: [SyncWire.ClassAssignment]
    }

    /// The most children a level shows.
    public static let maximumCatalogEntries = 1_000

    /// The most contexts an assignment may cover (its context, its ancestors and descendants).
    public static let maximumAssignedContexts = 10_000

    /// A level of a team's production catalog for the teacher of a class: the children of the
    /// context at `path` (the top contexts without one). Read from the replica when the server
    /// has one (`asReader(_:_:)`): after the teacher assigns a context, from the primary until
    /// the replica has the assignment.
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class, or for a path
    ///   the catalog does not hold.
    public func catalogLevel(ofClass classID: UUID, team: String?, path: [String]?, as teacher: UUID) async throws -> CatalogLevel {
        if let team { try CatalogCheck.checkName(team, what: "a team") }
        let keys = try (path ?? []).indices.map { try CatalogRow.key(of: Array(path![...$0])) }
        return try await asReader(teacher) { connection in
            try await checkTeaches(classID, on: connection)
            let teams = try await connection.run(
                """
                SELECT DISTINCT team FROM clsfile.catalog_context WHERE environment = 'production' AND depth = 1 ORDER BY team
                """, logger: logger
            ).decode(String.self).collected()
            let assignments = try await classAssignments(classID, on: connection)
            guard let team else {
                return CatalogLevel(teams: teams, ancestors: [], entries: [], isTruncated: false, assignments: assignments)
            }
            let ancestors = try await connection.run(
                """
                SELECT data::text, metadata::text FROM clsfile.catalog_context
                WHERE environment = 'production' AND team = \(team) AND path_key = ANY(\(keys)::text[]) ORDER BY depth
                """, logger: logger
            ).decode((String, String?).self).collected().map { try CatalogRow.context(data: $0.0, metadata: $0.1) }
            guard ancestors.count == keys.count else {
                throw ServerError(
                    .notFound,
                    "the production catalog of \(team) has no context \((path ?? []).joined(separator: "/")); it may have been deleted since"
                )
            }
            let rows = try await connection.run(
                """
                SELECT c.data::text, c.metadata::text,
                       (SELECT count(*) FROM clsfile.catalog_context k
                        WHERE k.environment = c.environment AND k.team = c.team AND k.parent_key = c.path_key)::bigint
                FROM clsfile.catalog_context c
                WHERE c.environment = 'production' AND c.team = \(team)
                  AND (CASE WHEN \(keys.last ?? "")::text = '' THEN c.depth = 1 ELSE c.parent_key = \(keys.last ?? "") END)
                ORDER BY coalesce((c.data->>'displayOrder')::bigint, 0), c.data->>'title', c.path_key
                LIMIT \(Self.maximumCatalogEntries + 1)
                """, logger: logger
            ).decode((String, String?, Int64).self).collected()
            let entries = try rows.prefix(Self.maximumCatalogEntries).map {
                CatalogLevel.Entry(context: try CatalogRow.context(data: $0.0, metadata: $0.1), childCount: Int($0.2))
            }
            return CatalogLevel(
                teams: teams, ancestors: ancestors, entries: entries,
                isTruncated: rows.count > Self.maximumCatalogEntries, assignments: assignments)
        }
    }

    /// A thumbnail of a team's production catalog, for a teacher; nil when there is none. Read
    /// from the replica when the server has one.
    public func catalogThumbnail(id: String, team: String, as teacher: UUID) async throws -> CatalogThumbnail? {
        try CatalogCheck.checkName(id, what: "a thumbnail id")
        try CatalogCheck.checkName(team, what: "a team")
        return try await asReader(teacher) { connection in
            try await connection.run(
                """
                SELECT media_type, image FROM clsfile.catalog_thumbnail
                WHERE environment = 'production' AND team = \(team) AND id = \(id)
                """, logger: logger
            ).decode((String, Data).self).collected().first.map { CatalogThumbnail(mediaType: $0.0, bytes: $0.1) }
        }
    }

    /// Assigns a context of a team's production catalog to a class: the assignment keeps the
    /// context's ancestors, itself and its descendants as they are now.
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class or for a context
    ///   not in the catalog; `.invalidValue` for a context that is not assignable, a title that is
    ///   empty or too long, or a context with more than ``maximumAssignedContexts`` below it;
    ///   `.alreadyAssigned` when the class has it assigned already.
    public func assignCatalogContext(
        _ path: [String], team: String, toClass classID: UUID, title: String,
        dueDate: Date?, instructions: String?, as teacher: UUID
    ) async throws -> SyncWire.ClassAssignment {
        try CatalogCheck.checkName(team, what: "a team")
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(title.unicodeScalars.count),
            !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ServerError(.invalidValue, "an assignment's title is 1 to 200 characters, without control characters")
        }
        let instructions = instructions?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (instructions?.unicodeScalars.count ?? 0) <= 4_000, !(instructions ?? "").unicodeScalars.contains(where: { $0 == "\u{0}" })
        else {
            throw ServerError(.invalidValue, "instructions are at most 4,000 characters")
        }
        guard !path.isEmpty else { throw ServerError(.invalidValue, "name the context to assign by its identifier path") }
        let keys = try path.indices.map { try CatalogRow.key(of: Array(path[...$0])) }
        let key = keys[keys.count - 1]
        return try await asAccount(teacher) { connection in
            try await checkTeaches(classID, on: connection)
            let rows = try await connection.run(
                """
                SELECT depth, data::text, metadata::text FROM clsfile.catalog_context
                WHERE environment = 'production' AND team = \(team)
                  AND (path_key = ANY(\(keys)::text[]) OR starts_with(path_key, \(CatalogRow.childPrefix(key))))
                ORDER BY depth, path_key LIMIT \(Self.maximumAssignedContexts + 1)
                """, logger: logger
            ).decode((Int, String, String?).self).collected()
            let contexts = try rows.map { try CatalogRow.context(data: $0.1, metadata: $0.2) }
            guard let assigned = contexts.first(where: { $0.data.description.identifierPath == path }),
                contexts.filter({ path.starts(with: $0.data.description.identifierPath) }).count == path.count
            else {
                throw ServerError(
                    .notFound,
                    "the production catalog of \(team) has no context \(path.joined(separator: "/")); it may have been deleted since")
            }
            guard assigned.data.description.isAssignable != false else {
                throw ServerError(
                    .invalidValue,
                    "\(assigned.data.description.title) (\(path.joined(separator: "/"))) is not assignable: its publisher marked it as a container; assign one of its contexts"
                )
            }
            guard contexts.count <= Self.maximumAssignedContexts else {
                throw ServerError(
                    .invalidValue,
                    "\(path.joined(separator: "/")) has more than \(Self.maximumAssignedContexts) contexts with its ancestors and descendants; assign a context further down"
                )
            }
            // A context's work reports to one assignment: a context above or below one assigned
            // already would take work from it.
            let overlapping = try await connection.run(
                """
                SELECT title FROM clsfile.catalog_assignment
                WHERE class_id = \(classID) AND team = \(team)
                  AND (path_key = ANY(\(keys)::text[]) OR starts_with(path_key, \(CatalogRow.childPrefix(key))))
                """, logger: logger
            ).decode(String.self).collected()
            if let other = overlapping.first {
                throw ServerError(
                    .alreadyAssigned,
                    "\(assigned.data.description.title) (\(path.joined(separator: "/"))) is assigned to this class already, or a context above or below it is (as ‘\(other)’): the work on a context reports to one assignment"
                )
            }
            let entries = contexts.map { CourseManifest.Entry(data: $0.data.description, metadata: $0.metadata) }
            let assignment = SyncWire.ClassAssignment(
                id: UUID(), title: title, dueDate: dueDate, instructions: instructions?.isEmpty == false ? instructions : nil,
                team: team, identifierPath: path, contexts: entries, createdAt: Date())
            let json = String(decoding: try CatalogRow.encoder.encode(entries), as: UTF8.self)
            let inserted = try await connection.run(
                """
                INSERT INTO clsfile.catalog_assignment (id, class_id, team, path_key, context_title, title, due_at, instructions, contexts, created_at)
                VALUES (\(assignment.id), \(classID), \(team), \(key), \(assigned.data.description.title), \(title), \(dueDate), \(assignment.instructions), \(json)::jsonb, \(assignment.createdAt))
                ON CONFLICT (class_id, team, path_key) DO NOTHING RETURNING 1
                """, logger: logger
            ).collect().count
            guard inserted == 1 else {
                throw ServerError(
                    .alreadyAssigned,
                    "\(assigned.data.description.title) (\(path.joined(separator: "/"))) is assigned to this class already: a context's work reports to one assignment"
                )
            }
            return assignment
        }
    }

    /// The assignments a class's teacher made from the catalog, newest first: for its teacher
    /// and its students.
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches or joined the class.
    public func catalogAssignments(ofClass classID: UUID, as account: UUID) async throws -> [SyncWire.ClassAssignment] {
        try await asAccount(account) { connection in
            guard try await connection.run("SELECT 1 FROM clsfile.class WHERE id = \(classID)", logger: logger).collect().count == 1 else {
                throw ServerError(
                    .notFound, "you neither teach nor joined a class \(classID.uuidString.lowercased()): GET /v1/classes lists yours")
            }
            return try await classAssignments(classID, on: connection)
        }
    }

    /// The catalog assignments of a class, newest first; only those of the ids or assigned paths
    /// given, when `matching` is given.
    func classAssignments(
        _ classID: UUID, matching: (ids: [UUID], paths: [[String]])? = nil,
        on connection: PostgresConnection
    ) async throws -> [SyncWire.ClassAssignment] {
        let keys = try (matching?.paths ?? []).map { try CatalogRow.key(of: $0) }
        return try await connection.run(
            """
            SELECT id, title, due_at, instructions, team, path_key, contexts::text, created_at FROM clsfile.catalog_assignment
            WHERE class_id = \(classID)
              AND (\(matching == nil) OR id = ANY(\(matching?.ids ?? [])::uuid[]) OR path_key = ANY(\(keys)::text[]))
            ORDER BY created_at DESC, id
            """, logger: logger
        ).decode((UUID, String, Date?, String?, String, String, String, Date).self).collected().map { row in
            guard let path = try? JSONDecoder().decode([String].self, from: Data(row.5.utf8)),
                let contexts = try? JSONDecoder().decode([CourseManifest.Entry].self, from: Data(row.6.utf8))
            else {
                throw ServerError(
                    .database, "the catalog assignment \(row.0.uuidString.lowercased()) cannot be read back; it was left as it is")
            }
            return SyncWire.ClassAssignment(
                id: row.0, title: row.1, dueDate: row.2, instructions: row.3, team: row.4,
                identifierPath: path, contexts: contexts, createdAt: row.7)
        }
    }

    func checkTeaches(_ classID: UUID, on connection: PostgresConnection) async throws {
        guard
            try await connection.run(
                """
                SELECT 1 FROM clsfile.class WHERE id = \(classID) AND teacher_id = clsfile.caller()
                """, logger: logger
            ).collect().count == 1
        else {
            throw ServerError(.notFound, "you teach no class \(classID.uuidString.lowercased()): GET /v1/classes lists yours")
        }
    }
}
