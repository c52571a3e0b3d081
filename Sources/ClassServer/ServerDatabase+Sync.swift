import Classroom
import ClassSync
import Crypto
import Foundation
import OpenClassKit
import PostgresNIO

/// The requests of students and teachers, each in a transaction as the caller (``ServerDatabase/asAccount(_:_:)``).
extension ServerDatabase {
    /// The account a token's key belongs to.
    public struct Caller: Sendable, Equatable {
        public var accountID: UUID
        public var role: Account.Role
    }

    /// The account and public key registered under a key id, looked up before the caller is known.
    public func deviceKey(named kid: String) async throws -> (caller: Caller, key: P256.Signing.PublicKey)? {
        try await translating("looking up a device key") {
            let rows = try await client.query("SELECT account_id, role, public_key FROM clsfile.device_key_named(\(kid))", logger: logger)
                .decode((UUID, String, Data).self).collected()
            guard let (account, role, key) = rows.first, let role = Account.Role(rawValue: role) else { return nil }
            return (Caller(accountID: account, role: role), try P256.Signing.PublicKey(x963Representation: key))
        }
    }

    /// Applies a student's operations in one transaction, in order, each at most once: an
    /// operation whose id was applied before is counted as repeated and changes nothing.
    /// - Throws: ``ServerError`` `.notFound` when the student has not joined the class.
    public func apply(_ operations: [SyncOperation], toClass classID: UUID, as student: UUID) async throws -> SyncWire.SyncAnswer {
        try await asAccount(student) { connection in
            let joined = try await connection.run("""
                SELECT 1 FROM clsfile.enrolment WHERE class_id = \(classID) AND student_id = \(student)
                """, logger: logger).decode(Int.self).collected()
            guard !joined.isEmpty else {
                throw ServerError(.notFound, "you have not joined the class \(classID.uuidString.lowercased()): join it with its code (clsfile join URL --code CODE)")
            }
            var states: [String: WorkState] = [:]
            var loaded: Set<String> = []
            var answer = SyncWire.SyncAnswer(applied: 0, repeated: 0)
            for operation in operations {
                let fresh = try await connection.run("""
                    INSERT INTO clsfile.applied_operation (student_id, operation_id) VALUES (\(student), \(operation.id))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger).decode(Int.self).collected()
                guard !fresh.isEmpty else {
                    answer.repeated += 1
                    continue
                }
                let assignment = operation.assignmentIdentifier
                if !loaded.contains(assignment) {
                    loaded.insert(assignment)
                    let held = try await connection.run("""
                        SELECT detail::text FROM clsfile.work WHERE student_id = \(student) AND assignment_id = \(assignment) FOR UPDATE
                        """, logger: logger).decode(String.self).collected()
                    if let text = held.first {
                        states[assignment] = try Self.decodedState(text, assignment: assignment)
                    }
                }
                if states[assignment] == nil { states[assignment] = WorkState(startingWith: operation) }
                states[assignment]?.apply(operation)
                answer.applied += 1
            }
            for (assignment, state) in states {
                let detail = String(decoding: try WorkStateCoding.encoder.encode(state), as: UTF8.self)
                try await connection.run("""
                    INSERT INTO clsfile.work (class_id, student_id, assignment_id, detail, updated_at)
                    VALUES (\(classID), \(student), \(assignment), \(detail)::jsonb, now())
                    ON CONFLICT (student_id, assignment_id)
                    DO UPDATE SET class_id = excluded.class_id, detail = excluded.detail, updated_at = now()
                    """, logger: logger)
            }
            return answer
        }
    }

    /// The classes an account teaches or joined, by name.
    public func classes(of account: UUID) async throws -> [SyncWire.ClassEntry] {
        try await asAccount(account) { connection in
            try await connection.run("""
                SELECT id, name, teacher_id = clsfile.caller() FROM clsfile.class ORDER BY name, id
                """, logger: logger).decode((UUID, String, Bool).self).collected()
                .map { SyncWire.ClassEntry(id: $0.0, name: $0.1, isTaught: $0.2) }
        }
    }

    /// A class's report from the work synced to it, for its teacher: the same report, with the
    /// same averages, as `clsfile class-report` makes from collected submissions.
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class.
    public func classReport(_ classID: UUID, as teacher: UUID) async throws -> ClassReport {
        try await asAccount(teacher) { connection in
            let taught = try await connection.run("""
                SELECT name FROM clsfile.class WHERE id = \(classID) AND teacher_id = clsfile.caller()
                """, logger: logger).decode(String.self).collected()
            guard let className = taught.first else {
                throw ServerError(.notFound, "you teach no class \(classID.uuidString.lowercased()): GET /v1/classes lists yours")
            }
            let rows = try await connection.run("""
                SELECT w.student_id, a.name, w.assignment_id, w.detail::text, w.updated_at
                FROM clsfile.work w JOIN clsfile.account a ON a.id = w.student_id WHERE w.class_id = \(classID)
                """, logger: logger).decode((UUID, String, String, String, Date).self).collected()
            var byAssignment: [String: [(state: WorkState, row: ClassReport.StudentRow)]] = [:]
            for (student, name, assignment, detail, updated) in rows {
                let state = try Self.decodedState(detail, assignment: assignment)
                byAssignment[assignment, default: []].append((state, ClassReport.StudentRow(
                    studentIdentifier: student.uuidString.lowercased(), studentName: name, submittedAt: updated,
                    work: StudentWork(state: state))))
            }
            let summaries = byAssignment.map { identifier, entries in
                let info = entries.max { $0.state.updatedAt < $1.state.updatedAt }?.state.assignment
                    ?? SyncOperation.AssignmentInfo(title: identifier, documentName: identifier)
                let assignment = Assignment(
                    identifier: identifier, title: info.title, className: info.className ?? className,
                    dueDate: info.dueDate.map(Date.init(timeIntervalSince1970:)), targetWordCount: info.targetWords,
                    documentName: info.documentName, documentDigest: "", teacherKey: nil, contextPath: info.contextPath)
                let students = entries.map(\.row).sorted { ($0.studentName, $0.studentIdentifier) < ($1.studentName, $1.studentIdentifier) }
                return ClassReport.summary(of: assignment, rows: students)
            }.sorted { ($0.title, $0.identifier) < ($1.title, $1.identifier) }
            return ClassReport(assignments: summaries)
        }
    }

    private static func decodedState(_ text: String, assignment: String) throws -> WorkState {
        do {
            return try WorkStateCoding.decoder.decode(WorkState.self, from: Data(text.utf8))
        } catch {
            throw ServerError(.database, "the stored work on \(assignment) cannot be read (\(error)); it was left as it is")
        }
    }
}

/// How work is kept in the `detail` column.
enum WorkStateCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    static let decoder = JSONDecoder()
}
