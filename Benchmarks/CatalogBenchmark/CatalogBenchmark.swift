import ClassServer
import ClassSync
import ClassWire
import Crypto
import Foundation
import Logging
import OpenClassKit
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Times `clsfile catalog publish` end to end, the command as a content tool runs it (`clsfile`
/// runs `clsfile-sync` beside it), against a
/// real `clsfile-server serve` on a private PostgreSQL, all on loopback: a manifest of 10,000
/// contexts (50 requests of 200, then the check of what the catalog holds beyond it), published
/// into an empty catalog, again unchanged, and again after a unit of 500 contexts was deleted.
///
///     swift run -c release CatalogBenchmark [--contexts 10000] [--rounds 5]
///
/// Goal (the Catalog API issue): 10,000 contexts published in ≤ 5 s end to end on this 2-core
/// machine, server and PostgreSQL included. Needs PostgreSQL (apt-get install postgresql).
@main
struct CatalogBenchmark {
    static let arguments = BenchmarkArguments(program: "CatalogBenchmark")

    static func main() async throws {
        let contexts = arguments.option("--contexts", default: 10_000)
        let rounds = arguments.option("--rounds", default: 5)
        guard Tool.initdb.url != nil else { arguments.fail("PostgreSQL is not installed: apt-get install -y postgresql") }
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let (server, clsfile) = (folder.appendingPathComponent("clsfile-server"), folder.appendingPathComponent("clsfile"))
        for program in [server, clsfile, folder.appendingPathComponent("clsfile-sync")]
        where !FileManager.default.isExecutableFile(atPath: program.path) {
            arguments.fail("\(program.path) is missing: run `swift build -c release --product \(program.lastPathComponent)` first")
        }

        let cluster = try PostgresCluster()
        try cluster.psql("CREATE ROLE clsfile_owner LOGIN PASSWORD 'owner'")
        try cluster.psql("CREATE ROLE clsfile_app LOGIN PASSWORD 'app'")
        try cluster.psql("CREATE DATABASE clsfile OWNER clsfile_owner")
        let key = P256.Signing.PrivateKey()
        try await registerPublisher(
            key.publicKey, in: try DatabaseAddress(cluster.url(user: "clsfile_owner", password: "owner", database: "clsfile")))
        let running = try await ServerProcess(
            program: server.path, ["serve", "--port", "0"],
            environment: ["DATABASE_URL": cluster.url(user: "clsfile_app", password: "app", database: "clsfile")],
            in: cluster.folder, name: "server", announcing: "clsfile-server listening on ")
        defer {
            running.process.signal(SIGTERM)
            _ = running.process.waitBlocking(timeout: 30)
        }
        guard let serverURL = URL(string: running.url) else { arguments.fail("clsfile-server printed no address: \(running.url)") }

        let keyFile = cluster.folder.appendingPathComponent("key.pem")
        try Data(key.pemRepresentation.utf8).write(to: keyFile)
        let manifest = try writeManifest(contexts: contexts, in: cluster.folder)
        let publish = [
            clsfile.path, "catalog", "publish", manifest.path, "--server", serverURL.absoluteString,
            "--team", "press", "--kid", "press-1", "--key", keyFile.path
        ]
        let client = try CatalogClient(serverURL: serverURL, team: "press", kid: "press-1", key: key, environment: .development)

        var times: [String: [Double]] = [:]
        for _ in 0..<rounds {
            times["into an empty catalog", default: []].append(try timed(publish))
            times["again, unchanged", default: []].append(try timed(publish))
            _ = try await client.delete(["book", "u1"])
            times["again, after a unit was deleted", default: []].append(try timed(publish))
            _ = try await client.delete(["book"])
        }
        print(
            "CatalogBenchmark: clsfile catalog publish of \(contexts) contexts (\((contexts + 199) / 200) requests), \(rounds) rounds, release build, loopback"
        )
        for name in ["into an empty catalog", "again, unchanged", "again, after a unit was deleted"] {
            let sorted = (times[name] ?? []).sorted()
            let median = sorted[sorted.count / 2]
            print(
                "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + String(format: "median %.2f s  max %.2f s   goal ≤ 5 s: %@", median, sorted.last ?? 0, median <= 5 ? "met" : "MISSED")
            )
        }
    }

    /// Migrates the schema and registers the publisher `press-1` of the team `press`.
    static func registerPublisher(_ key: P256.Signing.PublicKey, in owner: DatabaseAddress) async throws {
        try await ServerDatabase.withDatabase(owner, logger: .benchmark) { database in
            _ = try await database.migrate(appRole: "clsfile_app")
            _ = try await database.addPublisher(team: "press", keyIdentifier: "press-1", publicKey: key)
        }
    }

    /// Runs a program and returns its wall time in seconds; fails when it fails.
    static func timed(_ command: [String]) throws -> Double {
        let start = ContinuousClock.now
        let result = try run(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: [:])
        let elapsed = start.duration(to: .now)
        guard result.status == 0 else { arguments.fail("\(command.joined(separator: " ")) failed: \(result.errorOutput)") }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// A course: a book, 20 units of 10 sections, and exercises spread over the sections.
    static func writeManifest(contexts: Int, in folder: URL) throws -> URL {
        var entries: [[String: Any]] = [["data": ["identifierPath": ["book"], "title": "Book", "type": "book"]]]
        for unit in 0..<20 {
            entries.append([
                "data": [
                    "identifierPath": ["book", "u\(unit)"], "title": "Unit \(unit)", "type": "chapter",
                    "summary": "Part \(unit) of the book", "suggestedAge": [11, 14]
                ]
            ])
        }
        for section in 0..<200 {
            entries.append([
                "data": [
                    "identifierPath": ["book", "u\(section / 10)", "s\(section)"], "title": "Section \(section)",
                    "type": "section", "progressReportingCapabilities": [["kind": "percent"]]
                ]
            ])
        }
        for exercise in 0..<max(0, contexts - entries.count) {
            let section = exercise % 200
            entries.append([
                "data": [
                    "identifierPath": ["book", "u\(section / 10)", "s\(section)", "e\(exercise)"],
                    "title": "Exercise \(exercise)", "type": "exercise"
                ]
            ])
        }
        let url = folder.appendingPathComponent("course.json")
        try JSONSerialization.data(withJSONObject: ["contexts": entries]).write(to: url)
        return url
    }
}

extension Logger {
    /// Where the benchmark's database logs, at the level the server's database logger had.
    static let benchmark = Logger(label: "benchmark.database")
}
