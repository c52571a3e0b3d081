import Classroom
import ClassWire
public import Crypto
import Foundation
internal import NIOConcurrencyHelpers
import OpenClassKit
internal import PostgresNIO

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
    package func apply(_ operations: [SyncOperation], toClass classID: UUID, as student: UUID) async throws -> SyncWire.SyncAnswer {
        let notJoined = ServerError(
            .notFound,
            "you have not joined the class \(classID.uuidString.lowercased()): join it with its code (clsfile join URL --code CODE)")
        let named = Array(Set(operations.map(\.assignmentIdentifier))).sorted()
        // The rows this process holds decoded, taken now: the database sends the text only of
        // rows whose version is not one of these.
        let held = decodedWork.held(of: student, in: classID, on: named)
        let heldVersions = held.map { (assignment: $0.key, version: $0.value.version) }
        return try await translating("the request") {
            try await client.withTransaction(logger: logger) { connection in
                // Four statements a request, whatever its size: BEGIN, the two functions, COMMIT
                // (ServerSchema.version7). The first sets the caller, records the ids not applied
                // before and, when there are any, reads the class, its handouts among those named
                // and the student's work in it (locked).
                var fresh = Set<UUID>()
                var joined = false
                var registered: [String: String] = [:]
                var contextWork: [String: String] = [:]
                var versions: [String: Int64] = [:]
                var storedBytes: [String: Int] = [:]
                var texts: [String: String] = [:]
                for (kind, name, version, bytes, title, detail) in try await connection.run(
                    """
                    SELECT * FROM clsfile.sync_begin(\(student), \(classID), \(operations.map(\.id))::uuid[], \(named)::text[],
                                                     \(heldVersions.map(\.assignment))::text[], \(heldVersions.map(\.version))::bigint[])
                    """, logger: logger
                ).decode((String, String?, Int64?, Int?, String?, String?).self).collected() {
                    switch (kind, name) {
                    case ("applied", let id?):
                        if let id = UUID(uuidString: id) { fresh.insert(id) }
                    case ("class", _):
                        joined = true
                    case ("handout", let assignment?):
                        registered[assignment] = detail
                    case ("work", let assignment?):
                        if let title { contextWork[title] = assignment }
                        if let version { versions[assignment] = version }
                        if let detail { texts[assignment] = detail }
                        storedBytes[assignment] = bytes ?? 0
                    default:
                        throw ServerError(
                            .database,
                            "the database answered a sync with a row of kind \(kind) that this server does not know; run the clsfile-server of the version that migrated the schema"
                        )
                    }
                }
                var pending = fresh
                let applied = operations.filter { pending.remove($0.id) != nil }
                let answer = SyncWire.SyncAnswer(applied: applied.count, repeated: operations.count - applied.count)
                // Nothing written, nothing read: a caller who has not joined the class learns nothing.
                guard !applied.isEmpty else { return answer }
                guard joined else { throw notJoined }
                // What each assignment is comes from its teacher: the operations' own words are replaced.
                let claimed = Dictionary(applied.map { ($0.assignmentIdentifier, $0.assignment) }, uniquingKeysWith: { first, _ in first })
                let teachers = try await teachersDetails(of: claimed, registered: registered, inClass: classID, on: connection)
                let operations = Dictionary(
                    grouping: applied.map { operation in
                        var operation = operation
                        operation.assignment = teachers[operation.assignmentIdentifier] ?? operation.assignment
                        return operation
                    }, by: \.assignmentIdentifier)
                // The work the operations change: the text the database sent, or else the state
                // held of that very version.
                var states: [String: WorkState] = [:]
                for (assignment, version) in versions where operations[assignment] != nil {
                    if let text = texts[assignment] {
                        let state = try Self.decodedState(text, assignment: assignment)
                        decodedWork.keep(state, of: student, in: classID, on: assignment, version: version)
                        states[assignment] = state
                    } else if let kept = held[assignment], kept.version == version {
                        states[assignment] = kept.state
                    } else {
                        throw ServerError(
                            .database,
                            "the database sent no text for the work on \(assignment) of a version this server does not hold (\(version)); is clsfile.sync_begin the one of this server's schema? Run clsfile-server migrate"
                        )
                    }
                }
                // The work on one context of a catalog assignment is one record a student: another
                // id for a context held already would count it twice in the assignment's figures.
                for (assignment, info) in teachers.sorted(by: { $0.key < $1.key }) where assignment.hasPrefix("ctx-") {
                    if let held = contextWork[info.title], held != assignment {
                        throw ServerError(
                            .invalidValue,
                            "your work on '\(info.title)' is held already under \(held); the work of another id (\(assignment)) on the same context is not taken"
                        )
                    }
                    contextWork[info.title] = assignment
                }
                try WorkLimits.check(adding: operations, to: states, amongAssignments: storedBytes.count, inClass: classID)
                // The process evidence the operations carry, which follows the attempt of the work held.
                let evidence = EvidenceChanges.of(operations, heldAttempts: states.mapValues(\.attempt))
                for (assignment, changes) in operations {
                    states[assignment, default: WorkState(startingWith: changes[0])].apply(contentsOf: changes)
                }
                // In one order, so that two requests of one student on two server processes lock
                // the same rows in the same order (in a dictionary's, they could deadlock).
                let written = states.sorted { $0.key < $1.key }
                let details = try written.map { String(decoding: try WorkStateCoding.encoder.encode($0.value), as: UTF8.self) }
                // The policy on work refuses a class the student has not joined (and the whole
                // transaction, operation ids included, is rolled back). The rows' new versions
                // come back, so that the next request and report find these states decoded
                // already (a transaction rolled back leaves a version no row has).
                var writtenBytes = 0
                try await Self.refusingRowSecurity(as: notJoined) {
                    for (assignment, version, bytes) in try await connection.run(
                        """
                        SELECT * FROM clsfile.sync_finish(\(student), \(classID), \(written.map(\.key))::text[], \(details)::text[])
                        """, logger: logger
                    ).decode((String, Int64, Int).self).collected() {
                        if let state = states[assignment] {
                            decodedWork.keep(state, of: student, in: classID, on: assignment, version: version)
                        }
                        writtenBytes += bytes
                    }
                    if !evidence.isEmpty { try await writeEvidence(evidence, inClass: classID, as: student, on: connection) }
                }
                // Past the budget, the transaction is rolled back: nothing of the request stays.
                // The rows not rewritten count by the size they had.
                let otherBytes = storedBytes.filter { operations[$0.key] == nil }.values.reduce(0, +)
                try WorkLimits.check(storedBytes: otherBytes + writtenBytes, inClass: classID)
                return answer
            }
        }
    }

    /// The classes an account teaches or joined, by name.
    public func classes(of account: UUID) async throws -> [SyncWire.ClassEntry] {
        try await asAccount(account) { connection in
            try await connection.run(
                """
                SELECT id, name, teacher_id = clsfile.caller() FROM clsfile.class ORDER BY name, id
                """, logger: logger
            ).decode((UUID, String, Bool).self).collected()
                .map { SyncWire.ClassEntry(id: $0.0, name: $0.1, isTaught: $0.2) }
        }
    }

    /// A class's report from the work synced to it, for its teacher: the same report, with the
    /// same averages, as `clsfile class-report` makes from collected submissions. Every
    /// student's rows: for the archive and the teacher's pages; the JSON routes answer pages of
    /// it (``classReport(_:as:students:summarizing:)``).
    /// Read from the replica when the server has one (`asReader(_:_:)`).
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class.
    public func classReport(_ classID: UUID, as teacher: UUID) async throws -> ClassReport {
        try await classReport(classID, as: teacher, students: nil).report
    }

    /// Which of a class's students a page of its report holds: those with work in the class
    /// whose account id sorts after `after` (by PostgreSQL's order of `uuid`, which is that of
    /// the lowercase text), at most `limit` of them.
    ///
    /// A page starts after a key, not at an offset, so that a student who joins (or is
    /// forgotten) between two pages moves no other student from one page to another: following
    /// the pages gives every student once. One who joins meanwhile is on a later page when their
    /// id sorts after the page read last, and on none of this walk otherwise.
    public struct StudentPage: Sendable, Hashable {
        /// The account id the page before ended with; nil for the first page.
        public var after: UUID?
        /// The most students the page holds.
        public var limit: Int

        public init(after: UUID? = nil, limit: Int = SyncWire.reportStudentsPerPage) {
            self.after = after
            self.limit = limit
        }
    }

    /// What a page's averages, counts and contexts are taken over.
    public enum SummaryScope: Sendable, Equatable {
        /// Every student of the class, whichever page: a page's summaries are the class's, and
        /// only its rows are the page's.
        case wholeClass
        /// The page's students only, whose work alone is read: for answers that use the rows
        /// and not the summaries (xAPI statements).
        case pageOnly
    }

    /// A page of a class's report, and where the next one starts.
    public struct ClassReportPage: Sendable, Equatable {
        /// The assignments with the page's students' rows.
        public var report: ClassReport
        /// The ``StudentPage/after`` of the next page; nil when no student follows.
        public var nextAfter: UUID?
    }

    /// A page of a class's report: the rows of some of its students (see ``StudentPage``),
    /// each assignment's rows sorted by name as in the whole report.
    ///
    /// The students of the page are chosen by the database (the primary key of `work` starts
    /// with the class and the student), and their names, keys and enrolments alone are read.
    /// With ``SummaryScope/wholeClass`` every assignment with work in the class is listed, with
    /// the averages and counts of the whole class and its contexts' too, so that a page's figures
    /// are the class's; an assignment none of the page's students worked on has no rows there.
    /// Those figures are computed from every row's work, decoded once per version of the row
    /// and kept: a page reads the versions of the class's rows, and the text of those changed
    /// since they were last decoded.
    /// - Parameters:
    ///   - classID: The class.
    ///   - teacher: The account of its teacher, who reads it.
    ///   - page: The page; nil for every student.
    ///   - scope: What the summaries are taken over.
    /// - Throws: ``ServerError`` `.notFound` unless the caller teaches the class.
    public func classReport(
        _ classID: UUID, as teacher: UUID, students page: StudentPage?,
        summarizing scope: SummaryScope = .wholeClass
    ) async throws -> ClassReportPage {
        try await asReader(teacher) { connection in
            let taught = try await connection.run(
                """
                SELECT name FROM clsfile.class WHERE id = \(classID) AND teacher_id = clsfile.caller()
                """, logger: logger
            ).decode(String.self).collected()
            guard let className = taught.first else {
                throw ServerError(.notFound, "you teach no class \(classID.uuidString.lowercased()): GET /v1/classes lists yours")
            }
            // The page's students, one more to learn whether another page follows.
            var shown: [UUID]?
            var nextAfter: UUID?
            if let page {
                let following = try await connection.run(
                    """
                    SELECT DISTINCT student_id FROM clsfile.work
                    WHERE class_id = \(classID) AND (\(page.after == nil) OR student_id > \(page.after))
                    ORDER BY student_id LIMIT \(page.limit + 1)
                    """, logger: logger
                ).decode(UUID.self).collected()
                shown = Array(following.prefix(page.limit))
                nextAfter = following.count > page.limit ? shown?.last : nil
            }
            // Whose work is read: the page's, or the class's for its summaries.
            let onlyShown = scope == .pageOnly && shown != nil
            let rows = try await connection.run(
                """
                SELECT w.student_id, w.assignment_id, w.xmin::text::bigint, w.updated_at FROM clsfile.work w
                WHERE w.class_id = \(classID) AND (NOT \(onlyShown) OR w.student_id = ANY(\(shown ?? [])::uuid[]))
                """, logger: logger
            ).decode((UUID, String, Int64, Date).self).collected()
            // Each student's name, enrolment and first key (which tell two students of one name
            // apart), by their ids. Work has an enrolment (its foreign key), so a student missing
            // here left the class between the two statements.
            var roster: [UUID: (name: String, joined: Date, fingerprint: String?)] = [:]
            for (student, name, joined, key) in try await connection.run(
                """
                SELECT * FROM clsfile.class_students(\(classID), \(Array(Set(rows.map(\.0))))::uuid[])
                """, logger: logger
            ).decode((UUID, String, Date, Data?).self).collected() {
                roster[student] = (name, joined, key.map(Identity.fingerprint(of:)))
            }
            // Only the rows written since they were last decoded are read whole.
            var states: [String: WorkState] = [:]
            var stale: [(UUID, String, Int64, Date)] = []
            for row in rows {
                if let kept = decodedWork.state(of: row.0, in: classID, on: row.1, version: row.2) {
                    states["\(row.0)/\(row.1)"] = kept
                } else {
                    stale.append(row)
                }
            }
            if !stale.isEmpty {
                let versions = Dictionary(stale.map { ("\($0.0)/\($0.1)", $0.2) }, uniquingKeysWith: { first, _ in first })
                for (student, assignment, text) in try await connection.run(
                    """
                    SELECT w.student_id, w.assignment_id, w.detail::text FROM clsfile.work w
                    JOIN unnest(\(stale.map(\.0))::uuid[], \(stale.map(\.1))::text[]) AS s(student_id, assignment_id)
                      ON s.student_id = w.student_id AND s.assignment_id = w.assignment_id
                    WHERE w.class_id = \(classID)
                    """, logger: logger
                ).decode((UUID, String, String).self).collected() {
                    guard let version = versions["\(student)/\(assignment)"] else { continue }
                    let state = try Self.decodedState(text, assignment: assignment)
                    decodedWork.keep(state, of: student, in: classID, on: assignment, version: version)
                    states["\(student)/\(assignment)"] = state
                }
            }
            let handouts = try await registeredHandouts(ofClass: classID, on: connection)
            var byAssignment: [String: [(state: WorkState, row: ClassReport.StudentRow)]] = [:]
            for (student, assignment, _, updated) in rows {
                guard let state = states["\(student)/\(assignment)"], let known = roster[student] else {
                    throw ServerError(
                        .database, "the work of a student on \(assignment) left the class while the report was read; read it again")
                }
                byAssignment[assignment, default: []].append(
                    (
                        state,
                        ClassReport.StudentRow(
                            studentIdentifier: student.uuidString.lowercased(), studentName: known.name, submittedAt: updated,
                            keyFingerprint: known.fingerprint, enrolledAt: known.joined,
                            work: StudentWork(state: state))
                    ))
            }
            let summaries = byAssignment.map { identifier, entries in
                // The teacher's registration; for catalog work, what the server took from the
                // catalog when the work came (no student's words reach a report since handouts
                // were registered).
                let info =
                    handouts[identifier] ?? entries.max { $0.state.updatedAt < $1.state.updatedAt }?.state.assignment
                    ?? SyncOperation.AssignmentInfo(title: identifier, documentName: identifier)
                let assignment = Assignment(
                    identifier: identifier, title: info.title, className: info.className ?? className,
                    dueDate: info.dueDate.map(Date.init(timeIntervalSince1970:)), targetWordCount: info.targetWords,
                    documentName: info.documentName, documentDigest: "", teacherKey: nil, contextPath: info.contextPath,
                    aiStatementRequirement: info.aiStatement.flatMap(AIStatement.Requirement.init(rawValue:)))
                let students = entries.map(\.row).sorted { ($0.studentName, $0.studentIdentifier) < ($1.studentName, $1.studentIdentifier) }
                return ClassReport.summary(of: assignment, rows: students)
            }.sorted { ($0.title, $0.identifier) < ($1.title, $1.identifier) }
            // The contexts assigned from the catalog are titled as the catalog titled them.
            var titles: [[String]: String] = [:]
            for (key, title) in try await connection.run(
                """
                SELECT path_key, context_title FROM clsfile.catalog_assignment WHERE class_id = \(classID)
                """, logger: logger
            ).decode((String, String?).self).collected() {
                if let path = try? JSONDecoder().decode([String].self, from: Data(key.utf8)), let title { titles[path] = title }
            }
            // The figures are taken over every row read; the rows given are the page's.
            var report = ClassReport(assignments: summaries, contextTitles: titles)
            if let shown {
                let identifiers = Set(shown.map { $0.uuidString.lowercased() })
                for index in report.assignments.indices {
                    report.assignments[index].students.removeAll { !identifiers.contains($0.studentIdentifier) }
                }
            }
            return ClassReportPage(report: report, nextAfter: nextAfter)
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

    static func decodedState(_ text: String, assignment: String) throws -> WorkState {
        do {
            return try WorkStateCoding.decoder.decode(WorkState.self, from: Data(text.utf8))
        } catch {
            throw ServerError(.database, "the stored work on \(assignment) cannot be read (\(error)); it was left as it is")
        }
    }
}

/// The work last decoded from each row, by the row's version (`xmin`: the transaction that wrote
/// it), so that a request or report decodes only the rows written since (the teacher's pages
/// reload every 10 seconds; a busy student sends a request every few). Consulted only for rows the
/// caller's query returned, and only for the same version, so it cannot show anything the
/// database would not, whichever server process wrote the row. At most 200,000 rows are kept;
/// past that it starts again.
final class DecodedWorkCache: Sendable {
    private struct Key: Hashable {
        var student: UUID
        var classID: UUID
        var assignment: String
    }

    private let entries = NIOLockedValueBox<[Key: (version: Int64, state: WorkState)]>([:])
    static let capacity = 200_000

    /// The states held decoded of a student's work on `assignments`, with their versions, by assignment.
    func held(of student: UUID, in classID: UUID, on assignments: [String]) -> [String: (version: Int64, state: WorkState)] {
        entries.withLockedValue { entries in
            var held: [String: (version: Int64, state: WorkState)] = [:]
            for assignment in assignments {
                held[assignment] = entries[Key(student: student, classID: classID, assignment: assignment)]
            }
            return held
        }
    }

    /// The state decoded from a row's version, if it was.
    func state(of student: UUID, in classID: UUID, on assignment: String, version: Int64) -> WorkState? {
        let key = Key(student: student, classID: classID, assignment: assignment)
        guard let kept = entries.withLockedValue({ $0[key] }), kept.version == version else { return nil }
        return kept.state
    }

    /// Keeps the state a row's version holds.
    func keep(_ state: WorkState, of student: UUID, in classID: UUID, on assignment: String, version: Int64) {
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[Key(student: student, classID: classID, assignment: assignment)] = (version, state)
        }
    }
}

/// How work is kept in the `detail` column. jsonb keeps keys in an order of its own, so the
/// text is not sorted here: sorting would be work that jsonb undoes.
enum WorkStateCoding {
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()
}
