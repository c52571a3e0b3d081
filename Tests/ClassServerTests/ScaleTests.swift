@testable import ClassServer
import AsyncHTTPClient
import ClassWire
import Classroom
import ClassSync
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import OpenClassKit
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// More than one server process: two `clsfile-server serve` behind Debian's nginx on one
/// PostgreSQL primary, with a streaming replica made in the test (`pg_basebackup -R`) serving
/// the teacher's reports; a process killed mid-load; a teacher reading their own writes; and the
/// record of applied operations pruned without letting an operation apply twice.
@Suite(.serialized)
struct ScaleTests {
    /// A primary with a replica, a teacher with a class, servers reading from the replica, nginx in front.
    final class Deployment: Sendable {
        let school: ServerDatabaseTests.School
        let replica: PostgresCluster
        let scratch: Scratch
        let servers: [SyncTests.RunningServer]
        let nginx: NginxProcess
        let teacherKey: P256.Signing.PrivateKey
        let classID: UUID
        let joinCode: String

        init(servers count: Int = 2) async throws {
            // First, so that a machine without them skips the test before making anything.
            try Tool.require(.nginx, .pgBasebackup)
            school = try await ServerDatabaseTests.School()
            let key = P256.Signing.PrivateKey()
            teacherKey = key
            (classID, joinCode) = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
                let teacher = try await database.addTeacher(
                    name: "Ms Rivera", publicKey: key.publicKey,
                    recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
                let made = try await database.createClass(name: "7B", teacher: teacher.id.uuidString)
                return (made.id, made.joinCode)
            }
            replica = try PostgresCluster(replicaOf: school.cluster)
            #expect(try replica.psql("SELECT pg_is_in_recovery()") == "t")
            scratch = try Scratch()
            let readURL = replica.url(user: "clsfile_app", password: "app-secret", database: "clsfile")
            // Tokens name the address students are given: nginx's, which each server is told.
            let front = try LoopbackSocket.unusedPort()
            var started: [SyncTests.RunningServer] = []
            for index in 0..<count {
                started.append(
                    try await SyncTests.RunningServer(
                        school, in: scratch.url, name: "server-\(index)",
                        options: ["--read-database", readURL, "--public-url", "http://127.0.0.1:\(front)"]))
            }
            servers = started
            nginx = try await NginxProcess(upstreams: started.map(\.server.port), port: front, in: scratch.url)
            // The teacher registers the essay, on which the students' work is taken.
            let teacher = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { try await $0.teachers().first?.id }
            let classID = self.classID
            try await ServerDatabase.withDatabase(school.app, logger: .tests) {
                try await ScaleTests.registerEssay(in: classID, by: try #require(teacher), on: $0)
            }
        }

        /// A student with a key of their own, joined to the class through nginx.
        func student(_ name: String) async throws -> SyncClient {
            let client = try SyncClient(serverURL: nginx.url, key: P256.Signing.PrivateKey())
            _ = try await client.join(code: joinCode, name: name)
            return client
        }

        /// The class report through nginx, as the teacher reads it.
        func report() async throws -> ClassReport {
            let data = try await SyncClient(serverURL: nginx.url, key: teacherKey).classReport(classID: classID)
            return try Self.reportDecoder.decode(ClassReport.self, from: data)
        }

        /// Waits up to 20 s for the replica to replay everything the primary committed so far.
        func awaitReplica() async throws {
            let target = try school.cluster.psql("SELECT pg_current_wal_lsn()")
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if try replica.psql("SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn") == "t" { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("the replica did not replay up to \(target) within 20 s")
        }

        static let reportDecoder: JSONDecoder = {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return decoder
        }()

        /// Work as the report's JSON carries it (whole seconds).
        static func asReported(_ state: WorkState) throws -> StudentWork {
            try reportDecoder.decode(StudentWork.self, from: DashboardPagesEncoding.encoder.encode(StudentWork(state: state)))
        }
    }

    /// A client that gives up on a server that does not accept the connection at once (killed),
    /// where clsfile's waits 5 s for one that is away.
    static let http = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(
            timeout: HTTPClient.Configuration.Timeout(connect: .milliseconds(500), read: .seconds(20))))

    /// What one save of the essay sends: a closed span, progress, a word count.
    static func operation(student: Int, round: Int, number: Int, madeAt: Double = Date().timeIntervalSince1970) -> SyncOperation {
        var operation = SyncOperation(
            id: UUID(), assignmentIdentifier: "essay", attempt: 1, madeAt: madeAt,
            assignment: .init(title: "Essay", documentName: "essay.md", targetWords: 500))
        let start = madeAt - 60 + Double(number)
        operation.spans = [SyncOperation.Span(id: "s\(student)-\(round)-\(number)", start: start, end: start + 0.5, lastPulse: start + 0.5)]
        operation.progressBasisChange = SyncOperation.BasisChange(basis: ProgressBasis.targetWords.rawValue, restarts: false)
        operation.ranges = [SyncOperation.Range(lower: 0, upper: min(1, Double(round * 5 + number + 1) / 100))]
        operation.rangesBasis = ProgressBasis.targetWords.rawValue
        operation.items = [
            SyncOperation.Item(
                identifier: "words", title: "Words", isPrimary: true, kind: "quantity",
                value: Double(round * 5 + number), createdAt: madeAt - 60, modifiedAt: madeAt)
        ]
        return operation
    }

    /// The teacher registers the essay's handout with a class: the server takes work on it.
    static func registerEssay(in classID: UUID, by teacher: UUID, on database: ServerDatabase) async throws {
        _ = try await database.registerHandouts(
            [.init(identifier: "essay", assignment: .init(title: "Essay", documentName: "essay.md", targetWords: 500))],
            inClass: classID, as: teacher)
    }

    /// The work the server must hold after applying operations once each, in order.
    static func expected(_ operations: [SyncOperation]) -> WorkState? {
        guard let first = operations.first else { return nil }
        var state = WorkState(startingWith: first)
        for operation in operations { state.apply(operation) }
        return state
    }

    @Test(.timeLimit(.minutes(2)))
    func aServerKilledMidLoadBehindNginxLosesAndDoublesNoOperationAndTheReplicaServesTheReport() async throws {
        let deployment = try await Deployment()
        let studentCount = 16, rounds = 8, batch = 5
        var students: [SyncClient] = []
        for index in 0..<studentCount { students.append(try await deployment.student("Student \(index)")) }
        let batches = (0..<studentCount).map { student in
            (0..<rounds).map { round in (0..<batch).map { Self.operation(student: student, round: round, number: $0) } }
        }

        // Each student sends their batches in order, sending a batch again, unchanged, until the
        // server acknowledges it, as clsfile's outbox does; a third of the way in, one server is
        // killed with SIGKILL. A send goes through nginx, which passes a sync the killed server
        // failed on to the other, or straight to one of the servers, whose failure the student
        // meets and sends again elsewhere: an answer lost after its operations were applied.
        let addresses = [deployment.nginx.url] + deployment.servers.map(\.url)
        let routes = try students.map { student in try addresses.map { try SyncClient(serverURL: $0, key: student.key, http: Self.http) } }
        let acknowledged = NIOLockedValueBox(0), applied = NIOLockedValueBox(0), failures = NIOLockedValueBox(0)
        let total = studentCount * rounds
        let killed = deployment.servers[0], acknowledgedAtKill = NIOLockedValueBox(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while acknowledged.withLockedValue({ $0 }) < total / 3 { try await Task.sleep(for: .milliseconds(5)) }
                killed.process.signal(SIGKILL)
                acknowledgedAtKill.withLockedValue { $0 = acknowledged.withLockedValue { $0 } }
            }
            for index in students.indices {
                group.addTask {
                    var attempt = index
                    for operations in batches[index] {
                        let deadline = Date().addingTimeInterval(30)
                        while true {
                            attempt += 1
                            do {
                                let route = routes[index][attempt % routes[index].count]
                                let answer = try await route.send(operations, classID: deployment.classID)
                                applied.withLockedValue { $0 += answer.applied }
                                acknowledged.withLockedValue { $0 += 1 }
                                break
                            } catch {
                                failures.withLockedValue { $0 += 1 }
                                guard Date() < deadline else { throw error }
                                try await Task.sleep(for: .milliseconds(50))
                            }
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await killed.process.wait(timeout: 5) == 128 + SIGKILL)
        #expect(acknowledgedAtKill.withLockedValue { $0 } < total * 2 / 3, "the server was killed with most of the load to come")
        #expect(failures.withLockedValue { $0 } > 0, "sends to the killed server failed and went again")
        print(
            "ScaleTests: killed at \(acknowledgedAtKill.withLockedValue { $0 }) of \(total) batches; \(failures.withLockedValue { $0 }) sends failed and were sent again; \(applied.withLockedValue { $0 }) operations answered as applied"
        )
        let operationCount = studentCount * rounds * batch
        // Each id once: applied now, or before an answer that was lost.
        #expect(
            try deployment.school.cluster.psql("SELECT count(*) FROM clsfile.applied_operation", database: "clsfile") == "\(operationCount)"
        )
        #expect(applied.withLockedValue { $0 } <= operationCount)

        // Through nginx, from the replica once it has caught up: each student's work is what
        // their operations make applied once each.
        try await deployment.awaitReplica()
        let report = try await deployment.report()
        let essay = try #require(report.assignments.first { $0.identifier == "essay" })
        #expect(essay.students.count == studentCount)
        for index in 0..<studentCount {
            let row = try #require(essay.students.first { $0.studentName == "Student \(index)" })
            let state = try #require(Self.expected(batches[index].flatMap { $0 }))
            #expect(row.work == (try Deployment.asReported(state)), "Student \(index)")
            #expect(row.work.additionalItems.isEmpty && row.work.primaryItem?.value == Double(rounds * batch - 1))
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aTeachersOwnWriteIsReadFromThePrimaryUntilTheReplicaHasReplayedIt() async throws {
        let deployment = try await Deployment()
        _ = try await CatalogAssignmentTests.publishCatalog(deployment.school)
        let student = try await deployment.student("Ada")
        let first = Self.operation(student: 0, round: 0, number: 0)
        _ = try await student.send([first], classID: deployment.classID)
        try await deployment.awaitReplica()
        #expect(try await deployment.report().assignments.first?.students.first?.work.primaryItem?.value == 0)

        // The replica stops replaying: what the student syncs now is on the primary only, and
        // the teacher's reports, from the replica on either process, do not show it yet.
        try deployment.replica.psql("SELECT pg_wal_replay_pause()")
        _ = try await student.send([Self.operation(student: 0, round: 1, number: 0)], classID: deployment.classID)
        for _ in deployment.servers {
            #expect(try await deployment.report().assignments.first?.students.first?.work.primaryItem?.value == 0)
        }

        // The teacher assigns a context from the catalog page; the page it is sent to, and
        // every read of theirs on either process, come from the primary while the replica
        // lacks that write: they show the assignment, and the student's new work beside it.
        let token = try await DeviceToken.make(
            key: deployment.teacherKey, audience: try ServerOrigin(deployment.nginx.url), lifetime: 1_800)
        let base = "\(deployment.nginx.url.absoluteString)/classes/\(deployment.classID.uuidString.lowercased())"
        let assigned = try await CatalogAssignmentTests.call(
            "\(base)/catalog/assignments?token=\(token)",
            form: [
                ("team", "acme"), ("path", "fun-with-science"), ("path", "measurements"), ("title", "Measure everything")
            ])
        #expect(assigned.status == 303, "\(assigned.text)")
        let location = try #require(assigned.headers["location"])
        for _ in deployment.servers {
            let page = try await CatalogAssignmentTests.call(deployment.nginx.url.absoluteString + location)
            #expect(page.status == 200 && page.text.contains("Assigned ‘Measure everything’ to the class"), "\(page.text.prefix(400))")
            #expect(try await deployment.report().assignments.first?.students.first?.work.primaryItem?.value == 5)
        }

        // Replaying again, the replica catches up and serves the teacher again, with everything.
        try deployment.replica.psql("SELECT pg_wal_replay_resume()")
        try await deployment.awaitReplica()
        // The teacher's writes (the handout registered, then the assignment from the catalog), as on the primary.
        let generation = try deployment.school.cluster.psql("SELECT generation FROM clsfile.account_write", database: "clsfile")
        #expect(Int(generation) ?? 0 >= 2, "\(generation)")
        #expect(try deployment.replica.psql("SELECT generation FROM clsfile.account_write", database: "clsfile") == generation)
        #expect(try await deployment.report().assignments.first?.students.first?.work.primaryItem?.value == 5)

        // The replica's machine fails: the teacher's reads go to the primary, on either process.
        try deployment.replica.stop()
        for _ in deployment.servers {
            let began = Date()
            #expect(try await deployment.report().assignments.first?.students.first?.work.primaryItem?.value == 5)
            #expect(Date().timeIntervalSince(began) < 15)
        }
    }

    @Test func serveRefusesAReadDatabaseItCannotUse() async throws {
        let school = try await ServerDatabaseTests.School()
        let server = try builtExecutable("clsfile-server")
        let primary = school.cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile")
        let nowhere = "postgres://clsfile_app:app-secret@127.0.0.1:1/clsfile"
        let unreachable = try run(server, ["serve", "--port", "0", "--read-database", nowhere], environment: ["DATABASE_URL": primary])
        #expect(
            unreachable.status == 69 && unreachable.errorOutput.contains("postgres://clsfile_app@127.0.0.1:1/clsfile"),
            "\(unreachable.errorOutput)")
        #expect(!unreachable.errorOutput.contains("app-secret"), "the password stays out of messages")
        let malformed = try run(
            server, ["serve", "--port", "0"], environment: ["DATABASE_URL": primary, "READ_DATABASE_URL": "mysql://x@y/z"])
        #expect(malformed.status == 64 && malformed.errorOutput.contains("is not a postgres:// address"), "\(malformed.errorOutput)")
        // The owner reads past row-level security: refused on the read database as on the primary.
        let owner = school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")
        let unsafe = try run(server, ["serve", "--port", "0", "--read-database", owner], environment: ["DATABASE_URL": primary])
        #expect(unsafe.status == 77 && unsafe.errorOutput.contains("'clsfile_owner'"), "\(unsafe.errorOutput)")
    }

    @Test(.timeLimit(.minutes(2)))
    func pruneDeletesOnlyIdsThatNoClientCanSendAgainUnrefused() async throws {
        let school = try await ServerDatabaseTests.School()
        let scratch = try Scratch()
        let key = P256.Signing.PrivateKey()
        let code = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let teacher = try await database.addTeacher(
                name: "Ms Rivera", publicKey: key.publicKey,
                recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            let made = try await database.createClass(name: "7B", teacher: teacher.id.uuidString)
            try await Self.registerEssay(in: made.id, by: teacher.id, on: database)
            return made.joinCode
        }
        let server = try await SyncTests.RunningServer(school, in: scratch.url)
        let student = try SyncClient(serverURL: server.url, key: P256.Signing.PrivateKey())
        let classID = try await student.join(code: code, name: "Ada").classID
        let day = 86_400.0, now = Date().timeIntervalSince1970
        // Made 89 days ago (offline since): still applied, once.
        let late = Self.operation(student: 0, round: 0, number: 0, madeAt: now - 89 * day)
        #expect(try await student.send([late], classID: classID) == SyncWire.SyncAnswer(applied: 1, repeated: 0))
        let recent = Self.operation(student: 0, round: 0, number: 1)
        #expect(try await student.send([recent], classID: classID).applied == 1)
        // As if `late` had been applied 92 days ago and `recent` 90 days ago.
        let owner = { (sql: String) in
            try school.cluster.psql(sql, user: "clsfile_owner", password: "owner-secret", database: "clsfile")
        }
        _ = try owner(
            "UPDATE clsfile.applied_operation SET applied_at = now() - interval '92 days' WHERE operation_id = '\(late.id.uuidString)'")
        _ = try owner(
            "UPDATE clsfile.applied_operation SET applied_at = now() - interval '90 days' WHERE operation_id = '\(recent.id.uuidString)'")

        let admin = ["DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        let pruned = try run(try builtExecutable("clsfile-server"), ["prune"], environment: admin)
        #expect(pruned.status == 0, "\(pruned.errorOutput)")
        #expect(pruned.output.hasPrefix("pruned 1 operation id applied before "), "\(pruned.output)")
        #expect(try owner("SELECT operation_id FROM clsfile.applied_operation") == recent.id.uuidString.lowercased())
        let again = try run(try builtExecutable("clsfile-server"), ["prune"], environment: admin)
        #expect(again.output.hasPrefix("pruned 0 operation ids applied before "), "\(again.output)")

        // The pruned id comes again as its client holds it, made more than 90 days ago by now:
        // refused for its age, as a value (clsfile sets it aside), and not applied a second time.
        var resent = late
        resent.madeAt = now - 91 * day
        let refused = await #expect(throws: SyncError.self) { try await student.send([resent], classID: classID) }
        #expect(refused?.answer?.code == "invalidValue")
        #expect(refused?.answer?.message.contains("more than 90 days ago") == true, "\(refused?.message ?? "")")
        #expect(try owner("SELECT count(*) FROM clsfile.applied_operation") == "1")
        // The id kept is still recognised.
        #expect(try await student.send([recent], classID: classID) == SyncWire.SyncAnswer(applied: 0, repeated: 1))
        // The app role may not prune.
        let asApp = try run(
            try builtExecutable("clsfile-server"), ["prune"],
            environment: [
                "DATABASE_URL": school.cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile")
            ])
        #expect(asApp.status == 77, "\(asApp.errorOutput)")
    }

    @Test(.timeLimit(.minutes(2)))
    func forgetDeletesAStudentsEveryRowAndArchiveWritesTheReportBeforeDeletingTheClass() async throws {
        let school = try await ServerDatabaseTests.School()
        let scratch = try Scratch()
        let key = P256.Signing.PrivateKey()
        let (algebra, geometry) = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let teacher = try await database.addTeacher(
                name: "Ms Rivera", publicKey: key.publicKey,
                recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            let classes = (
                try await database.createClass(name: "Algebra", teacher: teacher.id.uuidString),
                try await database.createClass(name: "Geometry", teacher: teacher.id.uuidString)
            )
            for made in [classes.0, classes.1] { try await Self.registerEssay(in: made.id, by: teacher.id, on: database) }
            return classes
        }
        let server = try await SyncTests.RunningServer(school, in: scratch.url)
        let ada = try SyncClient(serverURL: server.url, key: P256.Signing.PrivateKey())
        let bo = try SyncClient(serverURL: server.url, key: P256.Signing.PrivateKey())
        _ = try await ada.join(code: algebra.joinCode, name: "Ada")
        _ = try await ada.join(code: geometry.joinCode, name: "Ada")
        _ = try await bo.join(code: algebra.joinCode, name: "Bo")
        for (client, schoolClass, student) in [(ada, algebra, 0), (ada, geometry, 0), (bo, algebra, 1)] {
            _ = try await client.send((0..<3).map { Self.operation(student: student, round: 0, number: $0) }, classID: schoolClass.id)
        }
        let serverProgram = try builtExecutable("clsfile-server")
        let admin = ["DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        let count = { (table: String) in try school.cluster.psql("SELECT count(*) FROM clsfile.\(table)", database: "clsfile") }

        // Ada is forgotten, named by her key id.
        let adaKid = Identity.keyIdentifier(of: ada.key.publicKey.x963Representation)
        let forgotten = try run(serverProgram, ["student", "forget", adaKid], environment: admin)
        #expect(forgotten.status == 0, "\(forgotten.errorOutput)")
        #expect(
            forgotten.output.contains("forgot the student Ada (")
                && forgotten.output.contains("): 1 key, 2 enrolments, 2 work rows, 6 applied operation ids deleted"),
            "\(forgotten.output)")
        #expect(try count("account WHERE name = 'Ada'") == "0")
        #expect(try count("device_key") == "2") // the teacher's and Bo's
        #expect(try count("enrolment") == "1" && (try count("work")) == "1" && (try count("applied_operation")) == "3")
        // Her clsfile is refused, and writes nothing (the server may hold her key for a minute).
        let refused = await #expect(throws: SyncError.self) {
            try await ada.send([Self.operation(student: 0, round: 1, number: 0)], classID: algebra.id)
        }
        #expect(["notFound", "unauthorized"].contains(refused?.answer?.code ?? ""), "\(refused?.message ?? "")")
        #expect(try count("applied_operation") == "3")
        let again = try run(serverProgram, ["student", "forget", adaKid], environment: admin)
        #expect(again.status == 66 && again.errorOutput.contains("no student has the account or key id \(adaKid)"), "\(again.errorOutput)")
        let teacherKid = Identity.keyIdentifier(of: key.publicKey.x963Representation)
        #expect(try run(serverProgram, ["student", "forget", teacherKid], environment: admin).status == 66)

        // Algebra ends: its report is written, exactly as the API gave it, then it is deleted.
        let beforeJSON = try await SyncClient(serverURL: server.url, key: key).classReport(classID: algebra.id)
        let file = scratch.url.appendingPathComponent("algebra.json")
        let archived = try run(serverProgram, ["class", "archive", algebra.joinCode, "--output", file.path], environment: admin)
        #expect(archived.status == 0, "\(archived.errorOutput)")
        #expect(
            archived.output.contains(
                "archived Algebra (\(algebra.id.uuidString.lowercased())) of Ms Rivera to \(file.path): 1 assignment, 1 student, 1 work row deleted; 1 of the students are now in no class"
            ),
            "\(archived.output)")
        let written = try Data(contentsOf: file)
        #expect(
            try Deployment.reportDecoder.decode(ClassReport.self, from: written)
                == Deployment.reportDecoder.decode(ClassReport.self, from: beforeJSON))
        #expect(try count("class") == "1" && (try count("enrolment")) == "0" && (try count("work")) == "0")
        #expect(try count("account WHERE name = 'Bo'") == "1", "students' accounts stay")
        let gone = await #expect(throws: SyncError.self) {
            try await bo.send([Self.operation(student: 1, round: 1, number: 0)], classID: algebra.id)
        }
        #expect(gone?.answer?.code == "notFound")

        // A file that exists is never written over, and nothing is deleted; an unknown class is named.
        let exists = try run(serverProgram, ["class", "archive", geometry.id.uuidString, "--output", file.path], environment: admin)
        #expect(exists.status == 65 && exists.errorOutput.contains("exists already"), "\(exists.errorOutput)")
        #expect(try count("class") == "1")
        let unknown = try run(
            serverProgram, ["class", "archive", "NOSUCHCODE", "--output", scratch.url.appendingPathComponent("x.json").path],
            environment: admin)
        #expect(
            unknown.status == 66 && unknown.errorOutput.contains("no class has the id or join code NOSUCHCODE"), "\(unknown.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("x.json").path))
    }
}

/// The encoder of the report's JSON, for work compared as the report carries it.
private enum DashboardPagesEncoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
