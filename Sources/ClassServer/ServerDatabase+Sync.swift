import Classroom
import ClassSync
import Crypto
import Foundation
import NIOConcurrencyHelpers
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
        let notJoined = ServerError(.notFound, "you have not joined the class \(classID.uuidString.lowercased()): join it with its code (clsfile join URL --code CODE)")
        return try await asAccount(student) { connection in
            // Three statements a request, whatever its size, besides the transaction and the
            // caller's account: the ids applied now, the work they change (locked), the work written back.
            let fresh = try await Set(connection.run("""
                INSERT INTO clsfile.applied_operation (student_id, operation_id)
                SELECT \(student), id FROM unnest(\(operations.map(\.id))::uuid[]) AS id
                ON CONFLICT DO NOTHING RETURNING operation_id
                """, logger: logger).decode(UUID.self).collected())
            var pending = fresh
            let applied = operations.filter { pending.remove($0.id) != nil }
            let answer = SyncWire.SyncAnswer(applied: applied.count, repeated: operations.count - applied.count)
            // Nothing written, nothing read: a caller who has not joined the class learns nothing.
            guard !applied.isEmpty else { return answer }
            let assignments = Array(Set(applied.map(\.assignmentIdentifier)))
            var states: [String: WorkState] = [:]
            for (assignment, text) in try await connection.run("""
                SELECT assignment_id, detail::text FROM clsfile.work
                WHERE class_id = \(classID) AND student_id = \(student) AND assignment_id = ANY(\(assignments)::text[]) FOR UPDATE
                """, logger: logger).decode((String, String).self).collected() {
                states[assignment] = try decodedWork.state(of: student, in: classID, on: assignment, stored: text) {
                    try Self.decodedState(text, assignment: assignment)
                }
            }
            for operation in applied {
                states[operation.assignmentIdentifier, default: WorkState(startingWith: operation)].apply(operation)
            }
            for (assignment, state) in states where state.spans.count > Self.maximumSpans {
                throw ServerError(.tooLarge, "the work on \(assignment) would hold \(state.spans.count) time spans, more than \(Self.maximumSpans)")
            }
            let written = Array(states)
            let details = try written.map { String(decoding: try WorkStateCoding.encoder.encode($0.value), as: UTF8.self) }
            // The policy on work refuses a class the student has not joined (and the whole
            // transaction, operation ids included, is rolled back).
            // The text PostgreSQL keeps (jsonb's own form) comes back, so that the next request and
            // report find these states decoded already.
            try await Self.refusingRowSecurity(as: notJoined) {
                for (assignment, text) in try await connection.run("""
                    INSERT INTO clsfile.work (class_id, student_id, assignment_id, detail, updated_at)
                    SELECT \(classID), \(student), assignment, detail::jsonb, now()
                    FROM unnest(\(written.map(\.key))::text[], \(details)::text[]) AS w(assignment, detail)
                    ON CONFLICT (class_id, student_id, assignment_id)
                    DO UPDATE SET detail = excluded.detail, updated_at = now()
                    RETURNING assignment_id, detail::text
                    """, logger: logger).decode((String, String).self).collected() {
                    if let state = states[assignment] { decodedWork.keep(state, of: student, in: classID, on: assignment, stored: text) }
                }
            }
            return answer
        }
    }

    /// The most time spans one student's work on one assignment may hold, as a submission may.
    static let maximumSpans = 100_000

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
    /// Read from the replica when the server has one (``asReader(_:_:)``).
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class.
    public func classReport(_ classID: UUID, as teacher: UUID) async throws -> ClassReport {
        try await asReader(teacher) { connection in
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
                let state = try decodedWork.state(of: student, in: classID, on: assignment, stored: detail) {
                    try Self.decodedState(detail, assignment: assignment)
                }
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
            // The contexts assigned from the catalog are titled as the catalog titled them.
            var titles: [[String]: String] = [:]
            for (key, title) in try await connection.run("""
                SELECT path_key, context_title FROM clsfile.catalog_assignment WHERE class_id = \(classID)
                """, logger: logger).decode((String, String?).self).collected() {
                if let path = try? JSONDecoder().decode([String].self, from: Data(key.utf8)), let title { titles[path] = title }
            }
            return ClassReport(assignments: summaries, contextTitles: titles)
        }
    }

    /// Runs a statement, turning PostgreSQL's row-level security refusal (SQLSTATE 42501) into `error`.
    private static func refusingRowSecurity(as error: ServerError, _ statement: () async throws -> Void) async throws {
        do {
            try await statement()
        } catch let failure as PSQLError where failure.serverInfo?[.sqlState] == "42501" {
            throw error
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

/// The work last decoded from each row, so that a report decodes only the rows that changed since
/// the last one (the teacher's pages reload every 10 seconds). Consulted only for rows the
/// caller's query returned, and only when the stored text is the same, so it cannot show anything
/// the database would not. At most 200,000 rows are kept; past that it starts again.
final class DecodedWorkCache: Sendable {
    private struct Key: Hashable {
        var student: UUID
        var classID: UUID
        var assignment: String
    }

    private let entries = NIOLockedValueBox<[Key: (text: String, state: WorkState)]>([:])
    static let capacity = 200_000

    /// The state of a row: the one decoded before when its text is unchanged, else `decode()`'s.
    func state(of student: UUID, in classID: UUID, on assignment: String, stored text: String,
               decode: () throws -> WorkState) rethrows -> WorkState {
        let key = Key(student: student, classID: classID, assignment: assignment)
        if let kept = entries.withLockedValue({ $0[key] }), kept.text == text { return kept.state }
        let state = try decode()
        keep(state, of: student, in: classID, on: assignment, stored: text)
        return state
    }

    /// Keeps the state a row's text holds.
    func keep(_ state: WorkState, of student: UUID, in classID: UUID, on assignment: String, stored text: String) {
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[Key(student: student, classID: classID, assignment: assignment)] = (text, state)
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
