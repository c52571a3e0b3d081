import Classroom
import ClassWire
import Foundation
import OpenClassKit
internal import PostgresNIO

/// The assignments a class has: its teacher's registered handouts and its catalog assignments.
/// What the class's report says of an assignment comes from here, never from a student's work.
extension ServerDatabase {
    /// The most handouts one class may have registered.
    static let maximumHandoutsPerClass = 2_000

    /// Registers the assignments of a teacher's handouts with their class, or updates them.
    /// - Returns: How many handouts the class has now.
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class; `.tooLarge` past
    ///   `maximumHandoutsPerClass`.
    public func registerHandouts(
        _ handouts: [SyncWire.HandoutRequest.Handout], inClass classID: UUID,
        as teacher: UUID
    ) async throws -> SyncWire.HandoutAnswer {
        try await asAccount(teacher) { connection in
            try await checkTeaches(classID, on: connection)
            // The last registration of an assignment in the request wins.
            let latest = Dictionary(handouts.map { ($0.identifier, $0.assignment) }, uniquingKeysWith: { _, later in later })
            let identifiers = Array(latest.keys)
            let details = try identifiers.map { String(decoding: try WorkStateCoding.encoder.encode(latest[$0]), as: UTF8.self) }
            try await connection.run(
                """
                INSERT INTO clsfile.handout (class_id, assignment_id, detail)
                SELECT \(classID), assignment, detail::jsonb FROM unnest(\(identifiers)::text[], \(details)::text[]) AS h(assignment, detail)
                ON CONFLICT (class_id, assignment_id) DO UPDATE SET detail = excluded.detail
                """, logger: logger)
            let count =
                try await connection.run("SELECT count(*)::bigint FROM clsfile.handout WHERE class_id = \(classID)", logger: logger)
                .decode(Int.self).collected().first ?? 0
            guard count <= Self.maximumHandoutsPerClass else {
                throw ServerError(
                    .tooLarge,
                    "the class would have \(count) handouts registered, more than \(Self.maximumHandoutsPerClass); nothing was registered")
            }
            return SyncWire.HandoutAnswer(registered: count)
        }
    }

    /// The teacher's word on each assignment that students' operations name: a registered
    /// handout's details; a catalog assignment's; for the work of a context under a catalog
    /// assignment (`ctx-` identifiers, derived on the student's side), the assignment's title and
    /// due date, once the context is found assignable under it in the catalog as it was assigned
    /// (by the title the student's clsfile derives for it; the document name is the student's file's).
    /// - Parameters:
    ///   - claimed: What the student's operations say of each assignment, by identifier.
    ///   - registered: The class's registered handouts among them, as stored (JSON text).
    /// - Throws: ``ServerError`` `.unknownAssignment` listing the assignments the class does not have.
    func teachersDetails(
        of claimed: [String: SyncOperation.AssignmentInfo], registered: [String: String], inClass classID: UUID,
        on connection: PostgresConnection
    ) async throws -> [String: SyncOperation.AssignmentInfo] {
        var details: [String: SyncOperation.AssignmentInfo] = [:]
        for (assignment, text) in registered where claimed[assignment] != nil {
            details[assignment] = try Self.handoutInfo(text, assignment: assignment)
        }
        let pending = claimed.filter { details[$0.key] == nil }
        if !pending.isEmpty {
            let offered = try await classAssignments(
                classID,
                matching: (
                    pending.keys.compactMap { UUID(uuidString: $0) },
                    Array(Set(pending.values.compactMap(\.contextPath)))
                ), on: connection)
            for (assignment, info) in pending {
                for catalog in offered {
                    let path = catalog.identifierPath, due = catalog.dueDate?.timeIntervalSince1970
                    if UUID(uuidString: assignment) == catalog.id {
                        details[assignment] = .init(
                            title: catalog.title, documentName: path.last ?? catalog.title, dueDate: due, contextPath: path)
                    } else if assignment.hasPrefix("ctx-"), info.contextPath == path,
                        Self.namesAssignableContext(info.title, assignedAs: catalog.title, under: path, in: catalog.contexts)
                    {
                        details[assignment] = .init(title: info.title, documentName: info.documentName, dueDate: due, contextPath: path)
                    }
                }
            }
        }
        let unknown = claimed.keys.filter { details[$0] == nil }.sorted()
        guard unknown.isEmpty else {
            let named = unknown.prefix(3).map { "'\(claimed[$0]?.title.prefix(80) ?? "")' (\($0.prefix(60)))" }.joined(separator: ", ")
            throw ServerError(
                .unknownAssignment,
                "the class \(classID.uuidString.lowercased()) has no assignment \(named)\(unknown.count > 3 ? " and \(unknown.count - 3) more" : ""): its teacher registers a handout with `clsfile assign --server URL` or `clsfile register --server URL`; the work waits on your side until then",
                assignments: unknown)
        }
        return details
    }

    /// Whether a derived assignment's title is one the student's clsfile gives the work of an
    /// assignable context at or below the assigned path: the assignment's title for the assigned
    /// context, "TITLE: CONTEXT" for one below it (as `ClassroomTables.derive` names them).
    private static func namesAssignableContext(
        _ claimed: String, assignedAs title: String, under path: [String],
        in entries: [CourseManifest.Entry]
    ) -> Bool {
        entries.contains { entry in
            let contextPath = entry.data.identifierPath
            guard entry.data.isAssignable != false, contextPath.starts(with: path) else { return false }
            return claimed == (contextPath.count == path.count ? title : "\(title): \(entry.data.title)")
        }
    }

    /// The registered handouts of a class, by assignment, read as the caller.
    func registeredHandouts(ofClass classID: UUID, on connection: PostgresConnection) async throws -> [String: SyncOperation.AssignmentInfo]
    {
        var handouts: [String: SyncOperation.AssignmentInfo] = [:]
        for (assignment, text) in try await connection.run(
            """
            SELECT assignment_id, detail::text FROM clsfile.handout WHERE class_id = \(classID)
            """, logger: logger
        ).decode((String, String).self).collected() {
            handouts[assignment] = try Self.handoutInfo(text, assignment: assignment)
        }
        return handouts
    }

    private static func handoutInfo(_ text: String, assignment: String) throws -> SyncOperation.AssignmentInfo {
        do {
            return try WorkStateCoding.decoder.decode(SyncOperation.AssignmentInfo.self, from: Data(text.utf8))
        } catch {
            throw ServerError(.database, "the registered handout \(assignment) cannot be read back (\(error)); it was left as it is")
        }
    }
}
