import AsyncHTTPClient
import ClassServer
import ClassSync
import Crypto
import Foundation
import NIOConcurrencyHelpers
import OpenClassKit
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Loads a real `clsfile-server serve` on a private PostgreSQL, all on loopback: simulated
/// students each sync a small batch every few seconds (by default 1,000 students, 5 operations
/// every 2.4 s: 2,083 operations a second offered), then a teacher reads a large class report.
///
///     swift run -c release ClassServerBenchmark [--students 1000] [--seconds 60] [--batch 5] [--every 2.4]
///                                               [--report-students 40] [--assignments 50] [--report-rounds 30]
///
/// Goals (the class server issue), with server, PostgreSQL and this load generator on one
/// 2-core machine: ≥ 2,000 applied operations/s and a sync p99 ≤ 50 ms; a class report of 40
/// students × 50 assignments p50 ≤ 50 ms. Needs PostgreSQL (apt-get install postgresql).
@main
struct ClassServerBenchmark {
    static func main() async throws {
        let students = option("--students", default: 1_000)
        let seconds = Double(option("--seconds", default: 60))
        let batch = option("--batch", default: 5)
        let every = Double(text("--every") ?? "2.4") ?? 2.4
        let reportStudents = option("--report-students", default: 40)
        let assignments = option("--assignments", default: 50)
        let reportRounds = option("--report-rounds", default: 30)
        guard Tool.initdb.url != nil else { fail("PostgreSQL is not installed: apt-get install -y postgresql") }
        let server = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("clsfile-server")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            fail("\(server.path) is missing: run `swift build -c release --product clsfile-server` first")
        }

        let cluster = try PostgresCluster()
        try cluster.psql("CREATE ROLE clsfile_owner LOGIN PASSWORD 'owner'")
        try cluster.psql("CREATE ROLE clsfile_app LOGIN PASSWORD 'app'")
        try cluster.psql("CREATE DATABASE clsfile OWNER clsfile_owner")
        let owner = try DatabaseAddress(cluster.url(user: "clsfile_owner", password: "owner", database: "clsfile"))
        let teacherKey = P256.Signing.PrivateKey()
        let (loadClass, reportClass) = try await makeClasses(owner, teacher: teacherKey.publicKey)
        let running = try await ServerProcess(program: server.path, ["serve", "--port", "0"],
                                              environment: ["DATABASE_URL": cluster.url(user: "clsfile_app", password: "app", database: "clsfile")],
                                              in: cluster.folder, name: "server", announcing: "clsfile-server listening on ")
        defer { running.process.signal(SIGTERM); _ = running.process.waitBlocking(timeout: 30) }
        guard let serverURL = URL(string: running.url) else { fail("clsfile-server printed no address: \(running.url)") }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

        // Everyone joins.
        let joining = ContinuousClock.now
        let loadStudents = try await join(students, code: loadClass.joinCode, server: serverURL, http: http)
        print("ClassServerBenchmark: \(students) students joined in \(joining.duration(to: .now))")

        // Each student syncs a batch every `every` seconds (first at a random moment), for `seconds`.
        let latencies = NIOLockedValueBox<[Double]>([])
        let applied = NIOLockedValueBox(0)
        let failures = NIOLockedValueBox<[String]>([])
        let start = ContinuousClock.now
        let end = start.advanced(by: .seconds(seconds))
        await withTaskGroup(of: Void.self) { group in
            for (index, student) in loadStudents.enumerated() {
                group.addTask {
                    var clock = ContinuousClock.now.advanced(by: .seconds(Double.random(in: 0..<every)))
                    var round = 0
                    while clock < end {
                        try? await Task.sleep(until: clock)
                        let operations = (0..<batch).map { operation(student: index, round: round, number: $0, assignments: 3) }
                        let sent = ContinuousClock.now
                        do {
                            let answer = try await student.client.send(operations, classID: loadClass.id)
                            let elapsed = milliseconds(sent.duration(to: .now))
                            latencies.withLockedValue { $0.append(elapsed) }
                            applied.withLockedValue { $0 += answer.applied }
                        } catch {
                            failures.withLockedValue { $0.append("\(error)") }
                        }
                        round += 1
                        clock = clock.advanced(by: .seconds(every))
                    }
                }
            }
        }
        let elapsed = Self.seconds(start.duration(to: .now))
        let sorted = latencies.withLockedValue { $0 }.sorted()
        let rate = Double(applied.withLockedValue { $0 }) / elapsed
        let p99 = percentile(sorted, 0.99)
        print(String(format: "  sync: %d requests, %d operations applied in %.1f s = %.0f operations/s   goal ≥ 2,000: %@",
                     sorted.count, applied.withLockedValue { $0 }, elapsed, rate, rate >= 2_000 ? "met" : "MISSED"))
        print(String(format: "  sync latency: p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms   goal p99 ≤ 50 ms: %@",
                     percentile(sorted, 0.5), percentile(sorted, 0.9), p99, sorted.last ?? 0, p99 <= 50 ? "met" : "MISSED"))
        let failed = failures.withLockedValue { $0 }
        if !failed.isEmpty { print("  \(failed.count) requests failed; the first: \(failed[0])") }

        // A class of `reportStudents` with work on `assignments` assignments each.
        let reporting = try await join(reportStudents, code: reportClass.joinCode, server: serverURL, http: http)
        for (index, student) in reporting.enumerated() {
            let operations = (0..<assignments).map { operation(student: index, round: 0, number: $0, assignments: assignments) }
            _ = try await student.client.send(operations, classID: reportClass.id)
        }
        let teacher = try SyncClient(serverURL: serverURL, key: teacherKey, http: http)
        var reportTimes: [Double] = []
        for round in 0..<reportRounds {
            // Between reports, as in class, a few students' work changes (the first report reads all).
            if round > 0 {
                for index in 0..<min(4, reporting.count) {
                    let student = (round * 4 + index) % reporting.count
                    _ = try await reporting[student].client.send(
                        [operation(student: student, round: round, number: (round + index) % assignments, assignments: assignments)],
                        classID: reportClass.id)
                }
            }
            let began = ContinuousClock.now
            _ = try await teacher.classReport(classID: reportClass.id)
            reportTimes.append(milliseconds(began.duration(to: .now)))
        }
        // The first report encodes every assignment; later ones those whose work changed since.
        let first = reportTimes.removeFirst()
        reportTimes.sort()
        let reportP50 = percentile(reportTimes, 0.5)
        print(String(format: "  class report, %d students × %d assignments: first %.1f ms, then (4 students syncing between reports) p50 %.1f ms  p90 %.1f ms   goal p50 ≤ 50 ms: %@",
                     reportStudents, assignments, first, reportP50, percentile(reportTimes, 0.9), reportP50 <= 50 ? "met" : "MISSED"))
        try await http.shutdown()
    }

    /// Migrates the schema, registers the teacher and makes the two classes.
    static func makeClasses(_ owner: DatabaseAddress, teacher key: P256.Signing.PublicKey) async throws -> (SchoolClass, SchoolClass) {
        try await ServerDatabase.withDatabase(owner) { database in
            _ = try await database.migrate(appRole: "clsfile_app")
            let teacher = try await database.addTeacher(name: "Ms Rivera", publicKey: key, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            return (try await database.createClass(name: "Load", teacher: teacher.id.uuidString),
                    try await database.createClass(name: "Report", teacher: teacher.id.uuidString))
        }
    }

    struct Student: Sendable {
        let client: SyncClient
    }

    /// Makes students with keys of their own and joins them to a class, 16 at a time.
    static func join(_ count: Int, code: String, server: URL, http: HTTPClient) async throws -> [Student] {
        try await withThrowingTaskGroup(of: (Int, Student).self) { group in
            var students: [Student?] = Array(repeating: nil, count: count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let client = try SyncClient(serverURL: server, key: P256.Signing.PrivateKey(), http: http)
                    _ = try await client.join(code: code, name: "Student \(index + 1)")
                    return (index, Student(client: client))
                }
            }
            while next < min(16, count) { add() }
            while let (index, student) = try await group.next() {
                students[index] = student
                if next < count { add() }
            }
            return students.compactMap { $0 }
        }
    }

    /// What one save of an assigned document sends: a span pulsed, a progress range, the word count.
    static func operation(student: Int, round: Int, number: Int, assignments: Int) -> SyncOperation {
        let now = Date().timeIntervalSince1970
        let assignment = "assignment-\(number % assignments)"
        var operation = SyncOperation(assignmentIdentifier: assignment, attempt: 1, madeAt: now,
                                      assignment: .init(title: "Essay \(number % assignments)", documentName: "essay-\(number % assignments).txt",
                                                        targetWords: 500))
        operation.spans = [SyncOperation.Span(id: "s\(student)-\(round)", start: now - 30, end: nil, lastPulse: now)]
        operation.progressBasisChange = SyncOperation.BasisChange(basis: ProgressBasis.targetWords.rawValue, restarts: false)
        operation.ranges = [SyncOperation.Range(lower: 0, upper: min(1, Double(round + 1) / 100))]
        operation.rangesBasis = ProgressBasis.targetWords.rawValue
        operation.items = [SyncOperation.Item(identifier: "words", title: "Words", isPrimary: true, kind: "quantity",
                                              value: Double(5 * round + number), createdAt: now - 30, modifiedAt: now)]
        return operation
    }

    static func percentile(_ sorted: [Double], _ share: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))]
    }

    static func milliseconds(_ duration: Duration) -> Double { seconds(duration) * 1_000 }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static let arguments = BenchmarkArguments(program: "ClassServerBenchmark")

    static func option(_ name: String, default value: Int) -> Int { arguments.option(name, default: value) }

    static func text(_ name: String) -> String? { arguments.text(name) }

    static func fail(_ message: String) -> Never { arguments.fail(message) }
}
