import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of a test's own: made with `initdb` in a temporary folder, listening on
/// 127.0.0.1 at a free port with its socket in that folder, logins by password (SCRAM), stopped
/// and removed when released.
///
/// PostgreSQL refuses to run as root: when the tests run as root, the cluster runs as the
/// `postgres` user that Debian's package makes, in a folder it owns.
public final class PostgresCluster: Sendable {
    public let folder: URL
    public let port: Int
    /// The superuser's name and password.
    public static let superuser = "postgres"
    public static let superPassword = "cluster-of-a-test"
    private let bin: URL
    private let runsAsPostgres: Bool

    /// Makes and starts a cluster.
    /// - Throws: When PostgreSQL is not installed (skipped, or failed under `CI=true`: see
    ///   ``Tool/require(sourceLocation:)``), or when it does not start.
    public init() throws {
        bin = try Tool.initdb.require().deletingLastPathComponent()
        runsAsPostgres = geteuid() == 0
        folder = try Self.makeFolder(owned: runsAsPostgres)
        let passwordFile = folder.appendingPathComponent("password")
        try Data(Self.superPassword.utf8).write(to: passwordFile)
        if runsAsPostgres {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: passwordFile.path)
        }
        let made = Self.runProgram(
            "initdb", in: bin, asPostgres: runsAsPostgres,
            [
                "-D", folder.appendingPathComponent("data").path, "-U", Self.superuser, "--pwfile", passwordFile.path,
                "-A", "scram-sha-256", "-N", "-E", "UTF8", "--locale", "C.UTF-8"
            ], timeout: 120)
        guard made.status == 0 else { throw ClusterError("initdb failed: \(made.errorOutput)\(made.output)") }
        port = try Self.start(folder, bin: bin, asPostgres: runsAsPostgres)
    }

    /// Makes a streaming replica of a running cluster, as an administrator makes one: a base
    /// backup of it (`pg_basebackup -R`, which writes `standby.signal` and the primary's address),
    /// started on a port of its own as a hot standby that answers reads. Its roles, databases and
    /// passwords are the primary's.
    /// - Throws: When `pg_basebackup` is missing (skipped, or failed under `CI=true`), or when the
    ///   backup or the start fails.
    public init(replicaOf primary: PostgresCluster) throws {
        _ = try Tool.pgBasebackup.require()
        // The primary's version of every program, pg_basebackup included, from the folder its
        // initdb is really in (a PATH may hold links to some of them; Debian's has a wrapper).
        bin = primary.bin.appendingPathComponent("initdb").resolvingSymlinksInPath().deletingLastPathComponent()
        runsAsPostgres = primary.runsAsPostgres
        folder = try Self.makeFolder(owned: runsAsPostgres)
        let copied = Self.runProgram(
            "pg_basebackup", in: bin, asPostgres: runsAsPostgres,
            [
                "-d", "host=127.0.0.1 port=\(primary.port) user=\(Self.superuser) password=\(Self.superPassword)",
                "-D", folder.appendingPathComponent("data").path, "-R", "-X", "stream", "-c", "fast"
            ], timeout: 120, capturingIn: folder)
        guard copied.status == 0 else { throw ClusterError("pg_basebackup failed: \(copied.errorOutput)\(copied.output)") }
        port = try Self.start(folder, bin: bin, asPostgres: runsAsPostgres)
    }

    /// A new folder for a cluster, owned by `postgres` when the cluster runs as it.
    private static func makeFolder(owned byPostgres: Bool) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clsfile-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if byPostgres { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: folder.path) }
        return folder
    }

    /// Starts the cluster in `folder/data` on a random port, tried again when another cluster or
    /// program holds it, and returns the port.
    private static func start(_ folder: URL, bin: URL, asPostgres: Bool) throws -> Int {
        var started = ProcessResult(status: -1, output: "", errorOutput: "")
        var chosen = 0
        for _ in 0..<5 where started.status != 0 {
            chosen = Int.random(in: 40_000..<60_000)
            started = runProgram(
                "pg_ctl", in: bin, asPostgres: asPostgres,
                [
                    "-D", folder.appendingPathComponent("data").path, "-w", "-t", "60", "-l", folder.appendingPathComponent("log").path,
                    "-o", "-c listen_addresses=127.0.0.1 -p \(chosen) -k \(folder.path) -c fsync=off -c max_connections=200",
                    "start"
                ], timeout: 90)
        }
        guard started.status == 0 else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            throw ClusterError("pg_ctl start failed: \(started.errorOutput) \(log.suffix(2000))")
        }
        return chosen
    }

    /// An address for a role of the cluster.
    public func url(
        user: String = PostgresCluster.superuser, password: String = PostgresCluster.superPassword,
        database: String = "postgres"
    ) -> String {
        "postgres://\(user):\(password)@127.0.0.1:\(port)/\(database)"
    }

    /// Runs SQL with psql as the superuser, or as another role with its password.
    @discardableResult
    public func psql(
        _ sql: String, user: String = PostgresCluster.superuser,
        password: String = PostgresCluster.superPassword, database: String = "postgres"
    ) throws -> String {
        let result = runBounded(
            "/usr/bin/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-c", sql
            ], environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"], timeout: 60, capturingIn: folder)
        guard result.status == 0 else { throw ClusterError("psql as \(user) failed on \(sql.prefix(200)): \(result.errorOutput)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Restarts PostgreSQL at once (`pg_ctl restart -m immediate`): every connection drops, as
    /// when the database machine fails over, and the cluster comes back on the same port.
    public func restart() throws {
        let restarted = Self.runProgram(
            "pg_ctl", in: bin, asPostgres: runsAsPostgres,
            [
                "-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "-t", "60", "restart"
            ], timeout: 90)
        guard restarted.status == 0 else { throw ClusterError("pg_ctl restart failed: \(restarted.errorOutput)") }
    }

    /// Stops PostgreSQL at once (`pg_ctl stop -m immediate`), as when its machine fails; the
    /// folder stays until the cluster is let go.
    public func stop() throws {
        let stopped = Self.runProgram(
            "pg_ctl", in: bin, asPostgres: runsAsPostgres,
            [
                "-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "-t", "60", "stop"
            ], timeout: 90)
        guard stopped.status == 0 else { throw ClusterError("pg_ctl stop failed: \(stopped.errorOutput)") }
    }

    /// Stops the cluster and removes its folder, when the test lets it go (also when it failed).
    deinit {
        _ = Self.runProgram(
            "pg_ctl", in: bin, asPostgres: runsAsPostgres,
            [
                "-D", folder.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"
            ], timeout: 60)
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs one of PostgreSQL's programs, through `runuser -u postgres` when the tests run as root.
    private static func runProgram(
        _ name: String, in bin: URL, asPostgres: Bool, _ arguments: [String],
        timeout: TimeInterval, capturingIn folder: URL? = nil
    ) -> ProcessResult {
        let program = bin.appendingPathComponent(name).path
        return asPostgres
            ? runBounded("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments, timeout: timeout, capturingIn: folder)
            : runBounded(program, arguments, timeout: timeout, capturingIn: folder)
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
