@testable import ClassServer
import ClassWire
import Classroom
import ClassSync
import Crypto
import Foundation
import Logging
import OpenClassKit
import PostgresNIO
import Testing
import TestSupport

/// A student who sends what clsfile never would, straight to the server's database: each
/// collection of a record is capped before any merge work, the caps hold across requests, a
/// refused request leaves nothing behind, and the student's share of the database is bounded.
@Suite(.serialized)
struct HostileStudentTests {
    /// A class with one student in it, on a real PostgreSQL.
    struct Room {
        let school: ServerDatabaseTests.School
        let classID: UUID
        let teacher: UUID
        let student: UUID

        init() async throws {
            school = try await ServerDatabaseTests.School()
            let teacherKey = P256.Signing.PrivateKey()
            let created = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
                let teacher = try await database.addTeacher(
                    name: "Ms Ruiz", publicKey: teacherKey.publicKey,
                    recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
                return (teacher.id, try await database.createClass(name: "9A", teacher: teacher.id.uuidString))
            }
            let enrolment = try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await database.joinClass(
                    code: created.1.joinCode, studentName: "Mallory", publicKey: P256.Signing.PrivateKey().publicKey)
            }
            (classID, teacher, student) = (created.1.id, created.0, enrolment.accountID)
            try await register(["essay"])
        }

        /// The teacher registers handouts of these identifiers with the class.
        func register(_ identifiers: [String], title: String = "Essay") async throws {
            let handouts = identifiers.map {
                SyncWire.HandoutRequest.Handout(
                    identifier: $0,
                    assignment: .init(
                        title: title, className: "9A", documentName: "essay.txt",
                        dueDate: HostileStudentTests.now + 86_400, targetWords: 500))
            }
            _ = try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                for start in stride(from: 0, to: handouts.count, by: 500) {
                    _ = try await database.registerHandouts(
                        Array(handouts[start..<min(handouts.count, start + 500)]), inClass: classID, as: teacher)
                }
            }
        }

        /// Applies operations as the student, as `POST /v1/sync` does after its checks.
        func send(_ operations: [SyncOperation]) async throws -> SyncWire.SyncAnswer {
            try OperationCheck.check(operations)
            return try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await database.apply(operations, toClass: classID, as: student)
            }
        }

        /// The student's work as the teacher's report holds it, by assignment.
        func work() async throws -> [String: WorkState] {
            try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await database.asAccount(teacher) { connection in
                    var states: [String: WorkState] = [:]
                    for (assignment, text) in try await connection.run(
                        """
                        SELECT assignment_id, detail::text FROM clsfile.work WHERE class_id = \(classID)
                        """, logger: database.logger
                    ).decode((String, String).self).collected() {
                        states[assignment] = try WorkStateCoding.decoder.decode(WorkState.self, from: Data(text.utf8))
                    }
                    return states
                }
            }
        }

        /// How many operation ids the server recorded as applied for the student.
        func appliedCount() async throws -> Int {
            try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await ServerDatabaseTests.count("applied_operation", as: student, in: database)
            }
        }

        /// Fills the student's essay with items to the cap, 500 a request.
        func fillItems() async throws {
            for first in stride(from: 0, to: WorkLimits.maximumItems, by: 500) {
                var adding = HostileStudentTests.operation()
                adding.items = HostileStudentTests.items(500, from: first)
                _ = try await send([adding])
            }
        }
    }

    static let now = Date().timeIntervalSince1970

    static func operation(on assignment: String = "essay", madeAt: Double = now - 600) -> SyncOperation {
        SyncOperation(
            assignmentIdentifier: assignment, attempt: 0, madeAt: madeAt,
            assignment: .init(title: "Essay", documentName: "essay.txt"))
    }

    static func items(_ count: Int, from first: Int = 0, title: String = "Words") -> [SyncOperation.Item] {
        (first..<first + count).map {
            SyncOperation.Item(
                identifier: "item-\($0)", title: title, isPrimary: false, kind: "quantity", value: Double($0),
                createdAt: now - 900, modifiedAt: now - 900)
        }
    }

    /// Expects a refusal of `code` whose message holds `text`, and that it applied nothing.
    static func expectRefusal(
        _ room: Room, _ operations: [SyncOperation], code: ServerError.Code, saying text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = (try await room.work(), try await room.appliedCount())
        let error = await #expect(throws: ServerError.self, sourceLocation: sourceLocation) { try await room.send(operations) }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.message.contains(text) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        let after = (try await room.work(), try await room.appliedCount())
        #expect(after.0 == before.0 && after.1 == before.1, "a refused request changed the stored work", sourceLocation: sourceLocation)
    }

    @Test func itemsRangesAndSpansAreCappedAcrossRequestsBeforeAnyMerge() async throws {
        let room = try await Room()
        // Items: each request within the per-operation bound, the record reaching its cap.
        try await room.fillItems()
        #expect(try await room.work()["essay"]?.items.count == WorkLimits.maximumItems)
        var oneMore = Self.operation()
        oneMore.items = Self.items(1, from: WorkLimits.maximumItems)
        try await Self.expectRefusal(room, [oneMore], code: .tooLarge, saying: "would hold 1001 activity items, more than the 1000")
        // At the cap, the items held may still change, and one removed makes room for another.
        var changing = Self.operation()
        changing.items = Self.items(1, from: 7, title: "Changed")
        changing.deletedItems = ["item-0"]
        _ = try await room.send([changing])
        _ = try await room.send([oneMore])
        let items = try #require(try await room.work()["essay"]?.items)
        #expect(items.count == WorkLimits.maximumItems)
        #expect(items.first { $0.identifier == "item-7" }?.title == "Changed")
        #expect(!items.contains { $0.identifier == "item-0" })

        // Ranges: disjoint ones, each request under the per-operation bound.
        func ranges(_ count: Int, from first: Int) -> [SyncOperation.Range] {
            (first..<first + count).map { SyncOperation.Range(lower: Double($0) / 1e6, upper: Double($0) / 1e6 + 1e-7) }
        }
        var ranged = Self.operation()
        ranged.ranges = ranges(WorkLimits.maximumRanges, from: 0)
        _ = try await room.send([ranged])
        ranged.id = UUID()
        ranged.ranges = ranges(1, from: WorkLimits.maximumRanges)
        try await Self.expectRefusal(room, [ranged], code: .tooLarge, saying: "progress ranges, more than the \(WorkLimits.maximumRanges)")

        // Spans: 500 operations of 41 spans each pass the per-operation bound, not the record's;
        // refused whole, and so is every later try.
        let spans = (0..<500).map { index in
            var operation = Self.operation()
            operation.spans = (0..<41).map {
                let start = Self.now - 86_400 + Double(index * 41 + $0)
                return SyncOperation.Span(id: "span-\(index)-\($0)", start: start, end: start + 0.5, lastPulse: start + 0.5)
            }
            return operation
        }
        try await Self.expectRefusal(room, spans, code: .tooLarge, saying: "would hold 20500 time spans, more than the 5000")
        try await Self.expectRefusal(room, spans, code: .tooLarge, saying: "nothing of this request was applied")
    }

    @Test func aSnapshotStartsTheCountsAgain() async throws {
        let room = try await Room()
        try await room.fillItems()
        // A snapshot of 10 items replaces the 1,000 held: it is within the cap, as is what follows it.
        var snapshot = Self.operation()
        snapshot.replacesWork = true
        snapshot.items = Self.items(10, from: 5_000)
        var after = Self.operation()
        after.items = Self.items(5, from: 6_000)
        _ = try await room.send([snapshot, after])
        #expect(try await room.work()["essay"]?.items.count == 15)
    }

    @Test func workOnAnAssignmentTheClassDoesNotHaveIsRefusedAndTheTeachersDetailsAreShown() async throws {
        let room = try await Room()
        // The student's own words on the assignment are replaced by the teacher's.
        var rewriting = Self.operation()
        rewriting.assignment = .init(
            title: "CANCELLED - no need to submit", className: "Detention", documentName: "essay.txt",
            dueDate: 946_684_800, targetWords: 1)
        rewriting.items = Self.items(1)
        _ = try await room.send([rewriting])
        let stored = try #require(try await room.work()["essay"])
        #expect(stored.assignment.title == "Essay" && stored.assignment.className == "9A" && stored.assignment.targetWords == 500)
        let report = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
            try await $0.classReport(room.classID, as: room.teacher)
        }
        #expect(report.assignments.map(\.title) == ["Essay"])
        #expect(report.assignments.first?.targetWords == 500 && report.assignments.first?.className == "9A")
        // An invented assignment is refused, naming it, and nothing of the request stays.
        var invented = Self.operation(on: "fake-1")
        invented.items = Self.items(1)
        try await Self.expectRefusal(room, [rewriting, invented], code: .unknownAssignment, saying: "has no assignment 'Essay' (fake-1)")
        let error = await #expect(throws: ServerError.self) { try await room.send([invented]) }
        #expect(error?.assignments == ["fake-1"])
    }

    @Test func catalogWorkCountsOnlyTheContextsTheCatalogSaysAreAssignableAndOnlyOnce() async throws {
        let room = try await Room()
        // A catalog assignment of lab/measurements, as a teacher makes it from the catalog page.
        let contexts =
            #"[{"data":{"identifierPath":["lab"],"title":"Lab","type":"book"}},"#
            + #"{"data":{"identifierPath":["lab","measurements"],"title":"Measurements","type":"chapter"}},"#
            + #"{"data":{"identifierPath":["lab","measurements","quiz"],"title":"Quiz","type":"quiz"}},"#
            + #"{"data":{"identifierPath":["lab","measurements","box"],"title":"Box","type":"section","isAssignable":false}}]"#
        try room.school.cluster.psql(
            """
            INSERT INTO clsfile.catalog_assignment (id, class_id, team, path_key, context_title, title, due_at, contexts)
            VALUES (gen_random_uuid(), '\(room.classID)', 'acme', '["lab","measurements"]', 'Measurements', 'Measuring', '2030-06-30', '\(contexts)')
            """, database: "clsfile")
        func work(_ id: String, title: String, document: String) -> SyncOperation {
            var operation = SyncOperation(
                assignmentIdentifier: id, attempt: 0, madeAt: Self.now - 600,
                assignment: .init(
                    title: title, className: "Detention", documentName: document, dueDate: 946_684_800,
                    contextPath: ["lab", "measurements"]))
            operation.completedAt = Self.now - 600
            return operation
        }
        _ = try await room.send([
            work("ctx-quiz", title: "Measuring: Quiz", document: "quiz"),
            work("ctx-chapter", title: "Measuring", document: "measurements")
        ])
        let stored = try await room.work()
        #expect(stored["ctx-quiz"]?.assignment.className == nil && stored["ctx-quiz"]?.assignment.dueDate == 1_909_008_000)
        #expect(stored["ctx-chapter"]?.assignment.title == "Measuring")
        // A document the catalog does not have, or a container, is no work of the assignment.
        try await Self.expectRefusal(
            room, [work("ctx-fake", title: "Measuring: Extra credit", document: "extra")],
            code: .unknownAssignment, saying: "has no assignment 'Measuring: Extra credit'")
        try await Self.expectRefusal(
            room, [work("ctx-box", title: "Measuring: Box", document: "box")],
            code: .unknownAssignment, saying: "has no assignment")
        // A second record of the quiz, under another id, would count it twice.
        try await Self.expectRefusal(
            room, [work("ctx-quiz-again", title: "Measuring: Quiz", document: "quiz")],
            code: .invalidValue, saying: "is held already under ctx-quiz")
        // A student registers no handouts.
        let refused = await #expect(throws: ServerError.self) {
            try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
                try await database.registerHandouts(
                    [.init(identifier: "mine", assignment: .init(title: "Mine", documentName: "mine.txt"))],
                    inClass: room.classID, as: room.student)
            }
        }
        #expect(refused?.code == .notFound)
    }

    @Test func aStudentsAssignmentsInAClassAreBoundedEvenWhenTheTeacherRegistersMore() async throws {
        let room = try await Room()
        try await room.register((0..<WorkLimits.maximumAssignments).map { "fake-\($0)" })
        _ = try await room.send((0..<WorkLimits.maximumAssignments - 1).map { Self.operation(on: "fake-\($0)") } + [Self.operation()])
        #expect(try await room.work().count == WorkLimits.maximumAssignments)
        try await Self.expectRefusal(
            room, [Self.operation(on: "fake-\(WorkLimits.maximumAssignments - 1)")], code: .tooLarge,
            saying: "would name \(WorkLimits.maximumAssignments + 1) assignments")
        // Work on an assignment the student has goes on.
        var more = Self.operation(on: "fake-3")
        more.items = Self.items(1)
        #expect(try await room.send([more]).applied == 1)
    }

    @Test func aStudentsShareOfTheDatabaseIsBounded() async throws {
        let room = try await Room()
        var generator = SplitMix(seed: 34)
        // Items with titles of random letters, which PostgreSQL cannot compress much: about
        // 1.3 MB an assignment, so the budget is passed within 13 assignments.
        func bulky(_ assignment: String) -> SyncOperation {
            var operation = Self.operation(on: assignment)
            operation.items = Self.items(WorkLimits.maximumItems).map { item in
                var item = item
                item.title = String((0..<1_000).map { _ in Character(UnicodeScalar(UInt8(97 + generator.next() % 26))) })
                return item
            }
            return operation
        }
        try await room.register((0..<40).map { "bulky-\($0)" })
        var refusal: ServerError?
        for index in 0..<40 where refusal == nil {
            do {
                _ = try await room.send([bulky("bulky-\(index)")])
            } catch let error as ServerError {
                refusal = error
            }
        }
        let error = try #require(refusal, "40 MB of work were all accepted")
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("more than its budget of \(WorkLimits.budgetBytes >> 20) MiB"))
        let stored = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
            try await database.asAccount(room.student) { connection in
                try await connection.run("SELECT sum(pg_column_size(detail))::bigint FROM clsfile.work", logger: database.logger)
                    .decode(Int.self).collected().first ?? 0
            }
        }
        #expect(stored <= WorkLimits.budgetBytes)
        #expect(stored > WorkLimits.budgetBytes / 2)
        // Work on what the student has stays possible when it does not grow.
        var small = Self.operation(on: "bulky-0")
        small.completedAt = Self.now - 60
        #expect(try await room.send([small]).applied == 1)
    }

    @Test func onlyTheClassesTeacherReadsItsStudentsThroughClassStudents() async throws {
        let room = try await Room()
        let other = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { database in
            try await database.addTeacher(
                name: "Mr Lee", publicKey: P256.Signing.PrivateKey().publicKey,
                recipientKey: P256.KeyAgreement.PrivateKey().publicKey
            ).id
        }
        // clsfile.class_students reads past the policies: it must answer the class's teacher alone.
        func students(as caller: UUID) async throws -> [String] {
            try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
                try await database.asAccount(caller) { connection in
                    try await connection.run(
                        """
                        SELECT row_name FROM clsfile.class_students(\(room.classID), \([room.student])::uuid[])
                        """, logger: database.logger
                    ).decode(String.self).collected()
                }
            }
        }
        #expect(try await students(as: room.teacher) == ["Mallory"])
        #expect(try await students(as: room.student).isEmpty)
        #expect(try await students(as: other).isEmpty)
        // The report names the student, with the key they joined with.
        _ = try await room.send([Self.operation()])
        let report = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
            try await $0.classReport(room.classID, as: room.teacher)
        }
        let row = try #require(report.assignments.first?.students.first)
        #expect(row.studentName == "Mallory" && row.keyFingerprint != nil && row.enrolledAt != nil)
    }

    @Test func twoStudentsOfOneNameAreToldApartAndAnEnrolmentAndACodeCanEnd() async throws {
        let room = try await Room()
        let code = try #require(
            try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { try await $0.classes() }.first?.joinCode)
        let (first, second) = (P256.Signing.PrivateKey(), P256.Signing.PrivateKey())
        let alices = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
            [
                try await database.joinClass(code: code, studentName: "Alice", publicKey: first.publicKey),
                try await database.joinClass(code: code, studentName: "Alice", publicKey: second.publicKey)
            ]
        }
        for alice in alices {
            var work = Self.operation()
            work.items = Self.items(1)
            _ = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
                try await $0.apply([work], toClass: room.classID, as: alice.accountID)
            }
        }
        // The report: each Alice with her key's fingerprint and enrolment, the name marked shared.
        let report = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
            try await $0.classReport(room.classID, as: room.teacher)
        }
        let rows = try #require(report.assignments.first?.students.filter { $0.studentName == "Alice" })
        #expect(
            Set(rows.compactMap(\.keyFingerprint)) == [
                Identity.fingerprint(of: first.publicKey.x963Representation),
                Identity.fingerprint(of: second.publicKey.x963Representation)
            ])
        #expect(rows.allSatisfy { $0.enrolledAt != nil })
        #expect(report.assignments.first?.sharedNames == ["Alice"])

        // The administrator lists them, removes one, and replaces the code.
        let server = try builtExecutable("clsfile-server")
        let admin = ["DATABASE_URL": room.school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        let listed = try run(server, ["student", "list", "--class", room.classID.uuidString], environment: admin)
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(listed.output.components(separatedBy: "Alice  (same name as another)").count == 3, "\(listed.output)")
        #expect(
            listed.output.contains(
                alices[1].accountID.uuidString.lowercased() + "  " + Identity.fingerprint(of: second.publicKey.x963Representation)))
        let removed = try run(
            server, ["student", "remove", "--class", room.classID.uuidString, alices[1].accountID.uuidString], environment: admin)
        #expect(removed.status == 0, "\(removed.errorOutput)")
        let again = try run(
            server, ["student", "remove", "--class", room.classID.uuidString, alices[1].accountID.uuidString], environment: admin)
        #expect(again.status == 66 && again.errorOutput.contains("has no student"), "\(again.errorOutput)")
        let refused = await #expect(throws: ServerError.self) {
            try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
                try await $0.apply([Self.operation()], toClass: room.classID, as: alices[1].accountID)
            }
        }
        #expect(refused?.code == .notFound)
        let after = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
            try await $0.classReport(room.classID, as: room.teacher)
        }
        #expect(after.assignments.first?.students.filter { $0.studentName == "Alice" }.count == 1)
        #expect(after.assignments.first?.sharedNames == [])

        let rotated = try run(server, ["class", "code", room.classID.uuidString, "--rotate"], environment: admin)
        #expect(rotated.status == 0, "\(rotated.errorOutput)")
        let newCode = try #require(rotated.output.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(newCode != code && newCode.count == 10)
        await #expect(throws: ServerError.self) {
            try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
                try await $0.joinClass(code: code, studentName: "Eve", publicKey: P256.Signing.PrivateKey().publicKey)
            }
        }
        _ = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) {
            try await $0.joinClass(code: newCode, studentName: "Bea", publicKey: P256.Signing.PrivateKey().publicKey)
        }
    }

    @Test func aSpanOfYearsIsRefused() throws {
        var operation = Self.operation()
        operation.spans = [
            SyncOperation.Span(id: "long", start: Self.now - 26 * 365 * 86_400, end: Self.now - 60, lastPulse: Self.now - 60)
        ]
        let error = #expect(throws: ServerError.self) { try OperationCheck.check([operation]) }
        #expect(error?.message.contains("longer than a year") == true)
        operation.spans = [SyncOperation.Span(id: "running", start: Self.now - 2 * 365 * 86_400, end: nil, lastPulse: Self.now - 60)]
        #expect(throws: ServerError.self) { try OperationCheck.check([operation]) }
    }
}
