import AsyncHTTPClient
import ClassServer
import ClassSync
import ClassWire
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import OpenClassKit
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Finds the class server's capacity: 10,000 simulated students on a private PostgreSQL, their
/// syncs spread over two real `clsfile-server serve` processes, all on loopback. A student's
/// requests go to one process, as nginx's hash on `Clsfile-Key` sends them
/// (`Samples/class-server`): chosen by the client, or by nginx itself with `--nginx`;
/// `--round-robin` spreads each student's requests over the processes instead. The offered rate of operations is raised step
/// by step, each student syncing a small batch at its turn, until the sync p99 passes 50 ms (or
/// the server falls behind, or requests fail); the highest rate held is the capacity. Then a
/// teacher reads a large class report.
///
///     swift run -c release ClassServerBenchmark [--quick] [--students 10000] [--servers 2] [--nginx]
///                                               [--batch 5] [--start-rate 1000] [--step-seconds 15]
///                                               [--report-students 40] [--assignments 50] [--report-rounds 30]
///                                               [--rate R] [--round-robin] [--lti | --lti-held] [--score-interval 600]
///
/// Each step offers its rate for `--step-seconds` (requests at fixed times, their latency counted
/// from the time each was due, so that a server falling behind shows in the p99); rates rise by
/// half each step, and after the first step that fails, two steps halve the gap to the last that
/// held. `--quick`: 1,000 students, 5 s steps, 10 report rounds. `--rate R`: one step at R
/// operations/s and no search (to compare two builds of the server at one load). `--lti`: the
/// load class's assignments are tied to an LMS's gradebook, a sink in this process
/// (``GradebookSink``), so that the servers send each student's score as their work changes
/// (grade passback, at most once per the platform's score interval, 10 minutes by default, per
/// student and assignment); each step then also
/// reports the scores the sink took and those ready to send but not sent yet. `--lti-held`: as
/// `--lti`, but every score is held (due only a day later), so that the servers send none: what
/// marking the scores costs without sending them. `--score-interval S`: the LMS's interval between two
/// scores of a student on an assignment (600 s, as `clsfile-server lti register` registers one). Each
/// of N students writes 3 assignments, so at R operations/s at most 3N / (R × S) scores are sent
/// per operation: 10,000 students at 2,000/s and 600 s, one per 40 operations, as 1,000 students at 60 s.
///
/// Reported: the highest rate held with its p50/p99, the servers' resident memory when the load
/// starts (after every student synced once to each server) and when it ends, and the CPU time of one applied
/// operation (server processes and every
/// PostgreSQL process, from /proc) at that rate. Goals (the class server issue), with servers,
/// PostgreSQL and this load generator on one 2-core machine: ≥ 5,000 applied operations/s at
/// p99 ≤ 50 ms; resident memory at the end within 20% of the start; a class report of 40 students
/// × 50 assignments p50 ≤ 50 ms. Needs PostgreSQL (apt-get install postgresql), and nginx for `--nginx`.
@main
struct ClassServerBenchmark {
    static func main() async throws {
        let quick = CommandLine.arguments.contains("--quick")
        let students = option("--students", default: quick ? 1_000 : 10_000)
        let serverCount = max(1, option("--servers", default: 2))
        let batch = option("--batch", default: 5)
        let startRate = Double(option("--start-rate", default: quick ? 500 : 1_000))
        let stepSeconds = Double(option("--step-seconds", default: quick ? 5 : 15))
        let reportStudents = option("--report-students", default: 40)
        let assignments = option("--assignments", default: 50)
        let reportRounds = option("--report-rounds", default: quick ? 10 : 30)
        let throughNginx = CommandLine.arguments.contains("--nginx")
        let roundRobin = CommandLine.arguments.contains("--round-robin")
        let fixedRate = arguments.text("--rate").flatMap(Double.init)
        let holdingScores = CommandLine.arguments.contains("--lti-held")
        let gradePassback = holdingScores || CommandLine.arguments.contains("--lti")
        let scoreInterval = option("--score-interval", default: 600)
        guard Tool.initdb.url != nil else { fail("PostgreSQL is not installed: apt-get install -y postgresql") }
        if throughNginx, Tool.nginx.url == nil { fail("nginx is not installed: apt-get install -y nginx") }
        let serverProgram = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "clsfile-server")
        guard FileManager.default.isExecutableFile(atPath: serverProgram.path) else {
            fail("\(serverProgram.path) is missing: run `swift build -c release --product clsfile-server` first")
        }

        let cluster = try PostgresCluster()
        try cluster.psql("CREATE ROLE clsfile_owner LOGIN PASSWORD 'owner'")
        try cluster.psql("CREATE ROLE clsfile_app LOGIN PASSWORD 'app'")
        try cluster.psql("CREATE DATABASE clsfile OWNER clsfile_owner")
        let owner = try DatabaseAddress(cluster.url(user: "clsfile_owner", password: "owner", database: "clsfile"))
        let appURL = cluster.url(user: "clsfile_app", password: "app", database: "clsfile")
        let teacherKey = P256.Signing.PrivateKey()
        let (loadClass, reportClass) = try await makeClasses(owner, teacher: teacherKey.publicKey, assignments: assignments)

        // Everyone joins, through the database function /v1/join calls (in process: 10,000
        // requests of setup would take longer than the steps).
        let joining = ContinuousClock.now
        let keys = (0..<students).map { _ in P256.Signing.PrivateKey() }
        try await join(keys, code: loadClass.joinCode, database: try DatabaseAddress(appURL))
        print("ClassServerBenchmark: \(students) students joined in \(joining.duration(to: .now))")
        // Before the servers start, so that they find the tool's key the platform made.
        let gradebook = gradePassback ? await GradebookSink.start() : nil
        if let gradebook {
            try await linkToGradebook(
                gradebook, classID: loadClass.id, assignments: 3, holdingScores: holdingScores, scoreInterval: scoreInterval,
                owner: owner, cluster: cluster)
            print(
                "  grade passback: the load class's 3 assignments linked to a gradebook at \(gradebook.url)"
                    + (holdingScores ? ", every score held a day" : ""))
        }
        defer { gradebook?.stop() }

        // Behind nginx, tokens name nginx's address, which each server is told.
        let front = try LoopbackSocket.unusedPort()
        var servers: [ServerProcess] = []
        for index in 0..<serverCount {
            let publicURL = throughNginx ? ["--public-url", "http://127.0.0.1:\(front)"] : []
            servers.append(
                try await ServerProcess(
                    program: serverProgram.path, ["serve", "--port", "0"] + publicURL, environment: ["DATABASE_URL": appURL],
                    in: cluster.folder, name: "server-\(index)", announcing: "clsfile-server listening on "))
        }
        defer {
            for server in servers { server.process.signal(SIGTERM) }
            for server in servers { _ = server.process.waitBlocking(timeout: 30) }
        }
        let nginx = throughNginx ? try await NginxProcess(upstreams: servers.map(\.port), port: front, in: cluster.folder) : nil
        let addresses: [URL] =
            nginx.map { [$0.url] }
            ?? servers.map { server in
                guard let url = URL(string: server.url) else { fail("clsfile-server printed no address: \(server.url)") }
                return url
            }
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        // Each student's client of each address. Round robin: a request goes to the next address
        // in turn; otherwise each student has one address, as nginx's hash would give them.
        let clients = try keys.enumerated().map { student, key in
            let own = roundRobin ? addresses : [addresses[student % addresses.count]]
            return try own.map { try SyncClient(serverURL: $0, key: key, http: http) }
        }
        let loadClassID = loadClass.id
        let routing =
            nginx != nil
            ? "behind nginx, a student's requests to one process by their Clsfile-Key"
            : roundRobin ? "requests spread round robin by the client" : "a student's requests to one process, chosen by the client"
        print("  \(serverCount) server processes, \(routing)")

        // Every student syncs once to each of their addresses first, 32 at a time: connection
        // pools are filled, and each server holds what it keeps of its students (their key, their
        // decoded work) before its memory is measured, so that what grows after is what the load
        // leaves behind.
        let load = Load(clients: clients, classID: loadClassID, batch: batch)
        let warming = ContinuousClock.now
        let routes = clients[0].count
        // A student's two syncs never run at once (a client sends one batch at a time).
        let count = clients.count
        try await forEachConcurrently(0..<(count * routes), width: 32) { turn in
            let (student, route) = (turn % count, turn / count)
            let operations = (0..<batch).map { operation(student: student, round: route, number: $0, assignments: 3) }
            _ = try await clients[student][route].send(operations, classID: loadClassID)
        }
        print("  every student synced once to each of their addresses in \(warming.duration(to: .now))")
        if gradePassback, !holdingScores {
            // The first score of every student and assignment is due at once after the warm-up:
            // measured is the load once they are sent, as a school's first scores spread out.
            let draining = ContinuousClock.now
            while ContinuousClock.now - draining < .seconds(600), scoresWaiting(in: cluster).ready > 0 {
                try await Task.sleep(for: .seconds(1))
            }
            print("  grade passback: the first scores sent in \(draining.duration(to: .now))")
        }
        // Whatever the mode, the measured steps start on a database at rest: the warm-up's rows
        // vacuumed and analysed, so that no autovacuum of them falls into the first step of one
        // mode and not of another.
        _ = try cluster.psql("VACUUM ANALYZE", database: "clsfile")
        try await Task.sleep(for: .seconds(5))
        let meter = CPUMeter(serverPIDs: servers.map(\.process.pid), dataFolder: cluster.folder.appendingPathComponent("data"))
        let rssStart = servers.map { CPUMeter.residentKilobytes(of: $0.process.pid) }

        var held: Step?
        var failed: Step?
        var rate = fixedRate ?? startRate
        var refinements = 0
        // At most 12 steps, so that the run is bounded whatever the machine.
        for _ in 0..<(fixedRate == nil ? 12 : 1) {
            let cpuBefore = meter.seconds()
            let scoresBefore = gradebook?.scores ?? 0
            var step = await load.step(rate: rate, seconds: stepSeconds)
            step.cpu = meter.seconds() - cpuBefore
            print(step.line)
            if let gradebook {
                let posted = gradebook.scores - scoresBefore
                let waiting = scoresWaiting(in: cluster)
                print(
                    String(
                        format:
                            "    grade passback: %d scores posted (%.0f/s), %d access tokens so far; at the end %d of %d scores ready to send",
                        posted, Double(posted) / step.seconds, gradebook.tokens, waiting.ready, waiting.all))
            }
            if step.holds {
                held = step.offered > (held?.offered ?? 0) ? step : held
            } else {
                failed = step.offered < (failed?.offered ?? .infinity) ? step : failed
            }
            if let failed {
                // Two steps between the highest rate held and the lowest failed.
                guard refinements < 2 else { break }
                refinements += 1
                rate = ((held?.offered ?? startRate / 2) + failed.offered) / 2
            } else {
                rate *= 1.5
            }
        }
        let rssEnd = servers.map { CPUMeter.residentKilobytes(of: $0.process.pid) }

        print("  capacity:")
        if let held {
            print(
                String(
                    format:
                        "    highest rate held: %.0f operations/s offered, %.0f applied/s, sync p50 %.1f ms p99 %.1f ms   goal ≥ 5,000 at p99 ≤ 50 ms: %@",
                    held.offered, held.appliedRate, held.p50, held.p99, held.appliedRate >= 5_000 ? "met" : "MISSED"))
            let perOperation = held.cpu.total * 1_000 / Double(max(1, held.applied))
            print(
                String(
                    format:
                        "    CPU per applied operation at that rate: %.3f ms (server processes %.3f ms, PostgreSQL %.3f ms: %.1f s of CPU for %d operations in %.0f s); the load generator used %.1f s of CPU over the run",
                    perOperation, held.cpu.servers * 1_000 / Double(max(1, held.applied)),
                    held.cpu.database * 1_000 / Double(max(1, held.applied)),
                    held.cpu.total, held.applied, held.seconds, CPUMeter.ownSeconds()))
            print(
                String(
                    format:
                        "    so one core applies about %.0f operations/s: 100,000 students each saving once a minute (%.0f operations/s) need %.1f cores",
                    1_000 / perOperation, 100_000.0 / 60, 100_000.0 / 60 * perOperation / 1_000))
        } else {
            print(
                "    no rate held: the first step, \(Int(fixedRate ?? startRate)) operations/s, already failed (try \(fixedRate == nil ? "--start-rate" : "--rate") lower)"
            )
        }
        for (index, (start, end)) in zip(rssStart, rssEnd).enumerated() {
            let growth = Double(end - start) / Double(max(1, start))
            print(
                String(
                    format:
                        "    server %d resident memory: %.1f MB when the load started, %.1f MB at the end (%+.0f%%)   goal within 20%%: %@",
                    index, Double(start) / 1_024, Double(end) / 1_024, growth * 100, abs(growth) <= 0.2 ? "met" : "MISSED"))
        }

        // A class of `reportStudents` with work on `assignments` assignments each.
        let first = try await reportRound(
            students: reportStudents, assignments: assignments, rounds: reportRounds,
            code: reportClass.joinCode, classID: reportClass.id, server: addresses[0],
            teacherKey: teacherKey, http: http)
        print(
            String(
                format:
                    "  class report, %d students × %d assignments: first %.1f ms, then (4 students syncing between reports) p50 %.1f ms  p90 %.1f ms   goal p50 ≤ 50 ms: %@",
                reportStudents, assignments, first.first, first.p50, first.p90, first.p50 <= 50 ? "met" : "MISSED"))
        try await http.shutdown()
    }

    /// One step of load: its rate, its latencies, what it applied.
    struct Step: Sendable {
        var offered: Double
        var seconds: Double
        var requests: Int
        var failures: Int
        var applied: Int
        var p50: Double
        var p99: Double
        var cpu = CPUTime()
        var firstFailure: String?

        var appliedRate: Double { Double(applied) / seconds }
        /// Held: p99 within 50 ms, at least 95% of what was offered applied, at most 0.1% failed.
        var holds: Bool { p99 <= 50 && appliedRate >= offered * 0.95 && failures * 1_000 <= requests }

        var line: String {
            String(
                format:
                    "  %6.0f operations/s offered: %5d requests, %6.0f applied/s, sync p50 %5.1f ms p99 %6.1f ms, %d failed, CPU %.3f ms/operation (servers %.3f, PostgreSQL %.3f)  %@",
                offered, requests, appliedRate, p50, p99, failures, cpu.total * 1_000 / Double(max(1, applied)),
                cpu.servers * 1_000 / Double(max(1, applied)), cpu.database * 1_000 / Double(max(1, applied)), holds ? "held" : "NOT HELD"
            )
                + (firstFailure.map { "\n    first failure: \($0)" } ?? "")
        }
    }

    /// Students syncing at fixed times, one request per student at its turn.
    final class Load: Sendable {
        let clients: [[SyncClient]]
        let classID: UUID
        let batch: Int
        /// The next student to sync, and the next address: turns go round the students and the addresses.
        private let turn = NIOLockedValueBox((student: 0, address: 0, round: 0))

        init(clients: [[SyncClient]], classID: UUID, batch: Int) {
            self.clients = clients
            self.classID = classID
            self.batch = batch
        }

        /// Offers `rate` operations a second for `seconds`: a request of `batch` operations every
        /// `batch / rate` seconds, each to the next student; waits for the last to be answered.
        func step(rate: Double, seconds: Double) async -> Step {
            let interval = Double(batch) / rate
            let count = Int(seconds / interval)
            let latencies = NIOLockedValueBox<[Double]>([])
            let outcome = NIOLockedValueBox((applied: 0, failures: 0, first: String?.none))
            let start = ContinuousClock.now.advanced(by: .milliseconds(20))
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    let due = start.advanced(by: .seconds(Double(index) * interval))
                    if due > .now { try? await Task.sleep(until: due) }
                    let (student, address, round) = turn.withLockedValue { turn in
                        let current = turn
                        turn.student += 1
                        if turn.student == clients.count {
                            turn.student = 0
                            turn.round += 1
                        }
                        turn.address = (turn.address + 1) % clients[0].count
                        return current
                    }
                    let client = clients[student][address]
                    let operations = (0..<batch).map { operation(student: student, round: round, number: $0, assignments: 3) }
                    let classID = self.classID
                    group.addTask {
                        do {
                            let answer = try await client.send(operations, classID: classID)
                            let elapsed = milliseconds(due.duration(to: .now))
                            latencies.withLockedValue { $0.append(elapsed) }
                            outcome.withLockedValue { $0.applied += answer.applied }
                        } catch {
                            outcome.withLockedValue {
                                $0.failures += 1
                                if $0.first == nil { $0.first = "\(error)" }
                            }
                        }
                    }
                }
            }
            let elapsed = max(seconds, ClassServerBenchmark.seconds(start.duration(to: .now)))
            let sorted = latencies.withLockedValue { $0 }.sorted()
            let (applied, failures, first) = outcome.withLockedValue { $0 }
            return Step(
                offered: rate, seconds: elapsed, requests: count, failures: failures, applied: applied,
                p50: percentile(sorted, 0.5), p99: failures == count ? .infinity : percentile(sorted, 0.99), firstFailure: first)
        }
    }

    /// CPU seconds of the server processes and of PostgreSQL.
    struct CPUTime: Sendable {
        var servers = 0.0
        var database = 0.0
        var total: Double { servers + database }

        static func - (after: CPUTime, before: CPUTime) -> CPUTime {
            CPUTime(servers: after.servers - before.servers, database: after.database - before.database)
        }
    }

    /// CPU time from /proc: the server processes', and PostgreSQL's (the postmaster, the
    /// processes it ended, and those running).
    struct CPUMeter {
        let serverPIDs: [pid_t]
        let dataFolder: URL

        /// The CPU seconds used so far by the server processes, and by PostgreSQL.
        func seconds() -> CPUTime {
            let serverTicks = serverPIDs.map { Self.fields(of: $0).map { $0[13] + $0[14] } ?? 0 }.reduce(0, +)
            var databaseTicks = 0
            let postmasterText = (try? String(contentsOf: dataFolder.appendingPathComponent("postmaster.pid"), encoding: .utf8)) ?? ""
            if let postmaster = postmasterText.split(separator: "\n").first.flatMap({ pid_t($0) }) {
                databaseTicks += Self.fields(of: postmaster).map { $0[13] + $0[14] + $0[15] + $0[16] } ?? 0
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                    guard let pid = pid_t(entry), let fields = Self.fields(of: pid), fields[3] == Int(postmaster) else { continue }
                    databaseTicks += fields[13] + fields[14]
                }
            }
            let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
            return CPUTime(servers: Double(serverTicks) / tick, database: Double(databaseTicks) / tick)
        }

        /// This process's own CPU time.
        static func ownSeconds() -> Double {
            Double(fields(of: getpid()).map { $0[13] + $0[14] } ?? 0) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        /// The numeric fields of /proc/PID/stat, numbered as proc(5) numbers them from 1 (index
        /// = number - 1); the name and state read 0.
        static func fields(of pid: pid_t) -> [Int]? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            // After the name, in parentheses (which may hold spaces): the state, then numbers.
            let rest = text[text.index(after: close)...].split(separator: " ")
            return [Int(pid), 0, 0] + rest.dropFirst().map { Int($0) ?? 0 }
        }

        /// VmRSS of a process, in kB.
        static func residentKilobytes(of pid: pid_t) -> Int {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        }
    }

    /// The class report's timing: students with work on many assignments, then reads of the
    /// report with a few students syncing between them.
    static func reportRound(
        students: Int, assignments: Int, rounds: Int, code: String, classID: UUID, server: URL,
        teacherKey: P256.Signing.PrivateKey, http: HTTPClient
    ) async throws -> (first: Double, p50: Double, p90: Double) {
        var reporting: [SyncClient] = []
        for index in 0..<students {
            let client = try SyncClient(serverURL: server, key: P256.Signing.PrivateKey(), http: http)
            _ = try await client.join(code: code, name: "Reporter \(index + 1)")
            reporting.append(client)
        }
        for (index, student) in reporting.enumerated() {
            let operations = (0..<assignments).map { operation(student: index, round: 0, number: $0, assignments: assignments) }
            _ = try await student.send(operations, classID: classID)
        }
        let teacher = try SyncClient(serverURL: server, key: teacherKey, http: http)
        var times: [Double] = []
        for round in 0..<rounds {
            // Between reports, as in class, a few students' work changes (the first report reads all).
            if round > 0 {
                for index in 0..<min(4, reporting.count) {
                    let student = (round * 4 + index) % reporting.count
                    _ = try await reporting[student].send(
                        [operation(student: student, round: round, number: (round + index) % assignments, assignments: assignments)],
                        classID: classID)
                }
            }
            let began = ContinuousClock.now
            _ = try await teacher.classReport(classID: classID)
            times.append(milliseconds(began.duration(to: .now)))
        }
        // The first report encodes every assignment; later ones those whose work changed since.
        let first = times.removeFirst()
        times.sort()
        return (first, percentile(times, 0.5), percentile(times, 0.9))
    }

    /// Migrates the schema, registers the teacher and makes the two classes.
    /// The two classes, each with the teacher's handouts registered (`assignment-0` …), on
    /// which the server takes the students' work.
    static func makeClasses(
        _ owner: DatabaseAddress, teacher key: P256.Signing.PublicKey,
        assignments: Int
    ) async throws -> (SchoolClass, SchoolClass) {
        try await ServerDatabase.withDatabase(owner, logger: .benchmark) { database in
            _ = try await database.migrate(appRole: "clsfile_app")
            let teacher = try await database.addTeacher(
                name: "Ms Rivera", publicKey: key, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            let classes = (
                try await database.createClass(name: "Load", teacher: teacher.id.uuidString),
                try await database.createClass(name: "Report", teacher: teacher.id.uuidString)
            )
            let handouts = (0..<assignments).map {
                SyncWire.HandoutRequest.Handout(
                    identifier: "assignment-\($0)",
                    assignment: .init(title: "Essay \($0)", documentName: "essay-\($0).txt", targetWords: 500))
            }
            for schoolClass in [classes.0, classes.1] {
                _ = try await database.registerHandouts(handouts, inClass: schoolClass.id, as: teacher.id)
            }
            return classes
        }
    }

    /// Joins a student of each key to the class of `code`, 16 at a time.
    static func join(_ keys: [P256.Signing.PrivateKey], code: String, database address: DatabaseAddress) async throws {
        try await ServerDatabase.withDatabase(address, logger: .benchmark) { database in
            try await forEachConcurrently(keys.indices, width: 16) { index in
                _ = try await database.joinClass(code: code, studentName: "Student \(index + 1)", publicKey: keys[index].publicKey)
            }
        }
    }

    /// Runs `body` for each index, at most `width` at a time.
    static func forEachConcurrently(_ indices: Range<Int>, width: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = indices.lowerBound
            while next < min(indices.lowerBound + width, indices.upperBound) {
                let index = next
                group.addTask { try await body(index) }
                next += 1
            }
            while try await group.next() != nil, next < indices.upperBound {
                let index = next
                group.addTask { try await body(index) }
                next += 1
            }
            try await group.waitForAll()
        }
    }

    /// What one save of an assigned document sends: a span pulsed, a progress range, the word count.
    static func operation(student: Int, round: Int, number: Int, assignments: Int) -> SyncOperation {
        let now = Date().timeIntervalSince1970
        let assignment = "assignment-\(number % assignments)"
        var operation = SyncOperation(
            assignmentIdentifier: assignment, attempt: 1, madeAt: now,
            assignment: .init(
                title: "Essay \(number % assignments)", documentName: "essay-\(number % assignments).txt",
                targetWords: 500))
        operation.spans = [SyncOperation.Span(id: "s\(student)-\(round)", start: now - 30, end: nil, lastPulse: now)]
        operation.progressBasisChange = SyncOperation.BasisChange(basis: ProgressBasis.targetWords.rawValue, restarts: false)
        operation.ranges = [SyncOperation.Range(lower: 0, upper: min(1, Double(round + 1) / 100))]
        operation.rangesBasis = ProgressBasis.targetWords.rawValue
        operation.items = [
            SyncOperation.Item(
                identifier: "words", title: "Words", isPrimary: true, kind: "quantity",
                value: Double(5 * round + number), createdAt: now - 30, modifiedAt: now)
        ]
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

    static func fail(_ message: String) -> Never { arguments.fail(message) }
}

extension Logger {
    /// Where the benchmark's database logs, at the level the server's database logger had.
    static let benchmark = Logger(label: "benchmark.database")
}
