import Classroom
import Foundation
internal import PostgresNIO

/// Who is in a class, for the administrator: the students of a class with what tells them apart,
/// an enrolment ended, a join code replaced.
extension ServerDatabase {
    /// A student of a class, as the administrator lists them.
    public struct RosterEntry: Sendable, Equatable {
        public var accountID: UUID
        public var name: String
        /// The fingerprint of the student's first device key.
        public var keyFingerprint: String?
        public var joinedAt: Date
    }

    /// The students of a class, by enrolment date.
    /// - Throws: ``ServerError`` `.notFound` when no class has the id.
    public func roster(ofClass classID: UUID) async throws -> [RosterEntry] {
        try await translating("listing the students of the class \(classID.uuidString.lowercased())") {
            try await client.withTransaction(logger: logger) { connection in
                _ = try await found(classID, on: connection)
                return try await connection.run(
                    """
                    SELECT a.id, a.name, e.joined_at,
                           (SELECT k.public_key FROM clsfile.device_key k WHERE k.account_id = a.id ORDER BY k.created_at, k.kid LIMIT 1)
                    FROM clsfile.enrolment e JOIN clsfile.account a ON a.id = e.student_id
                    WHERE e.class_id = \(classID) ORDER BY e.joined_at, a.id
                    """, logger: logger
                ).decode((UUID, String, Date, Data?).self).collected().map {
                    RosterEntry(accountID: $0.0, name: $0.1, keyFingerprint: $0.3.map(Identity.fingerprint(of:)), joinedAt: $0.2)
                }
            }
        }
    }

    /// Ends a student's enrolment in a class: their work in it goes with it, and their syncs to
    /// it are refused from then on (their clsfile keeps the work waiting). The account stays,
    /// with its other classes.
    /// - Throws: ``ServerError`` `.notFound` when the student is not in the class.
    public func removeStudent(_ student: UUID, fromClass classID: UUID) async throws {
        try await translating("removing a student from the class \(classID.uuidString.lowercased())") {
            try await client.withTransaction(logger: logger) { connection in
                let removed = try await connection.run(
                    """
                    DELETE FROM clsfile.enrolment WHERE class_id = \(classID) AND student_id = \(student) RETURNING 1
                    """, logger: logger
                ).collect().count
                guard removed == 1 else {
                    throw ServerError(
                        .notFound,
                        "the class \(classID.uuidString.lowercased()) has no student \(student.uuidString.lowercased()): clsfile-server student list --class ID lists them"
                    )
                }
            }
        }
    }

    /// A class of the school, as the administrator sees it.
    /// - Throws: ``ServerError`` `.notFound` when no class has the id.
    public func schoolClass(_ classID: UUID) async throws -> SchoolClass {
        try await translating("reading the class \(classID.uuidString.lowercased())") {
            try await client.withConnection { try await found(classID, on: $0) }
        }
    }

    /// Gives a class a new join code; the old one joins no one any more (students in the class stay).
    /// - Returns: The class with its new code.
    /// - Throws: ``ServerError`` `.notFound` when no class has the id.
    public func rotateJoinCode(ofClass classID: UUID) async throws -> SchoolClass {
        try await translating("replacing the join code of the class \(classID.uuidString.lowercased())") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.run("UPDATE clsfile.class SET join_code = \(JoinCode.random()) WHERE id = \(classID)", logger: logger)
                return try await found(classID, on: connection)
            }
        }
    }

    private func found(_ classID: UUID, on connection: PostgresConnection) async throws -> SchoolClass {
        guard let found = try await Self.classes(classID, on: connection, logger: logger).first else {
            throw ServerError(.notFound, "no class has the id \(classID.uuidString.lowercased()): clsfile-server class list shows them")
        }
        return found
    }
}
