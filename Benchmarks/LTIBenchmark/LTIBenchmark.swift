import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Times LTI 1.3 launches (login → launch → page) of the release `clsfile-server serve` on a
/// private PostgreSQL, from the test LMS of the LTI tests (`Tests/LTIPlatform`, on
/// `lti1p3platform` 0.1.8), all on loopback: one instructor launch, which makes the course's
/// class and fetches the platform's keys, then `--launches` learner launches (each a new learner)
/// and as many launches of that instructor.
///
///     swift run -c release LTIBenchmark [--launches 200]
///
/// A launch's server time is the time the tool took to answer the login initiation plus the time
/// it took to answer the launch's form post, as the harness times its two HTTP calls (a new
/// connection each, like a browser's first request to a host): the server's time plus the
/// socket's and the Python client's. The harness's whole launch (its own authorization endpoint,
/// which signs the id_token, included) is shown beside it.
///
/// Goal (the LTI issue): server time p50 ≤ 50 ms. Needs PostgreSQL (apt-get install postgresql),
/// python3-venv, and PyPI the first time (the venv is the tests': `.build/test-venvs/lti-platform`).
///
/// What one launch costs the database, read from `LTIRoutes` and the functions of
/// `ServerSchema+LTI` (each call one round trip, outside a transaction; the private cluster runs
/// with `fsync=off`):
/// - login: 2 round trips, 2 statements (`lti_platform_named`: a select; `lti_begin_login`: an insert);
/// - launch: `lti_take_login` (a delete returning the login, with its platform), then
///   - a learner: `lti_learner_launch` (select the class, insert the link token, select whether
///     linked): 4 round trips and 6 statements per launch, 3 of them writes;
///   - an instructor whose clsfile is not tied yet, as here: `lti_instructor_launch` (select the
///     teacher for update, select the class, select the answer) and `lti_teacher_link_token` (an
///     insert): 5 round trips and 7 statements, 3 of them writes;
///   - the course's first instructor launch: 5 more inserts in `lti_instructor_launch` (account,
///     device key, LTI user, class, LTI context): 12 statements.
/// The platform's keys are fetched once, at the first launch, and kept in memory.
@main
struct LTIBenchmark {
    static let arguments = BenchmarkArguments(program: "LTIBenchmark")
    static let learner = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
    static let instructor = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"

    static func main() async throws {
        let launches = max(1, arguments.option("--launches", default: 200))
        guard Tool.initdb.url != nil else { arguments.fail("PostgreSQL is not installed: apt-get install -y postgresql") }
        let server = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("clsfile-server")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            arguments.fail("\(server.path) is missing: run `swift build -c release --product clsfile-server` first")
        }

        let cluster = try PostgresCluster()
        try cluster.psql("CREATE ROLE clsfile_owner LOGIN PASSWORD 'owner'")
        try cluster.psql("CREATE ROLE clsfile_app LOGIN PASSWORD 'app'")
        try cluster.psql("CREATE DATABASE clsfile OWNER clsfile_owner")
        let owner = ["DATABASE_URL": cluster.url(user: "clsfile_owner", password: "owner", database: "clsfile")]
        try administer(server, ["migrate"], environment: owner)
        let running = try await ServerProcess(
            program: server.path, ["serve", "--port", "0"],
            environment: ["DATABASE_URL": cluster.url(user: "clsfile_app", password: "app", database: "clsfile")],
            in: cluster.folder, name: "server", announcing: "clsfile-server listening on ")
        defer {
            running.process.signal(SIGTERM)
            _ = running.process.waitBlocking(timeout: 30)
        }
        let platform = try await LTIPlatformHarness(tool: running.url, in: cluster.folder)
        defer { platform.stop() }
        try administer(server, ["lti", "register"] + platform.registration, environment: owner)

        let first = try await platform.launch("t-1", name: "Ms Okafor", role: instructor)
        var learners: [LTIPlatformHarness.LaunchTime] = []
        for number in 1...launches {
            learners.append(try await platform.launch("s-\(number)", name: "Student \(number)", role: learner))
        }
        var instructors: [LTIPlatformHarness.LaunchTime] = []
        for _ in 0..<launches {
            instructors.append(try await platform.launch("t-1", name: "Ms Okafor", role: instructor))
        }

        #if DEBUG
        let build = "debug build (not the figure: swift run -c release)"
        #else
        let build = "release build"
        #endif
        print("LTIBenchmark: LTI 1.3 launches (login → launch → page), \(build), loopback, times in ms")
        print(
            String(
                format:
                    "  first launch (an instructor: makes the class, fetches the platform's keys): server %.1f (login %.1f + launch %.1f), whole %.1f",
                first.server, first.login, first.launch, first.whole))
        for (role, times) in [("learner", learners), ("instructor", instructors)] {
            print("  \(launches) \(role) launches:")
            for (name, values) in [
                ("server", times.map(\.server)), ("  login", times.map(\.login)), ("  launch", times.map(\.launch)),
                ("whole", times.map(\.whole))
            ] {
                print("    " + name.padding(toLength: 10, withPad: " ", startingAt: 0) + summary(of: values))
            }
        }
        let medians = [learners, instructors].map { percentile(50, of: $0.map(\.server)) }
        print(
            String(
                format: "  goal server time p50 ≤ 50 ms: %@ (learner %.1f ms, instructor %.1f ms)",
                medians.allSatisfy { $0 <= 50 } ? "met" : "not met", medians[0], medians[1]))
    }

    /// Runs `clsfile-server` with an administrator's command; fails when it fails.
    static func administer(_ server: URL, _ command: [String], environment: [String: String]) throws {
        let result = try run(server, command, environment: environment)
        guard result.status == 0 else {
            arguments.fail("clsfile-server \(command.prefix(2).joined(separator: " ")) failed: \(result.errorOutput)")
        }
    }

    /// p50, p90, p99 and the greatest of `values`.
    static func summary(of values: [Double]) -> String {
        String(
            format: "p50 %6.2f  p90 %6.2f  p99 %6.2f  max %6.2f", percentile(50, of: values), percentile(90, of: values),
            percentile(99, of: values), values.max() ?? 0)
    }

    /// The nearest-rank percentile: the least value that `rank` percent of `values` do not exceed.
    static func percentile(_ rank: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = Int((rank / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(index, 0), sorted.count - 1)]
    }
}
