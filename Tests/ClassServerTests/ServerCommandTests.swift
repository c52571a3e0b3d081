import ClassServer
import Foundation
import Testing
import TestSupport

/// `clsfile-server` as an administrator runs it: a teacher's key from `clsfile role teacher
/// --public-key`, migrate, teacher add, class create and list, and every refusal with its code.
@Suite(.serialized)
struct ServerCommandTests {
    @Test func anAdministratorSetsUpAClassFromATeachersKey() async throws {
        let school = try await ServerDatabaseTests.School(migrated: false)
        let scratch = try Scratch()
        let teacherHome = [
            "XDG_CONFIG_HOME": scratch.url.appendingPathComponent("config").path,
            "XDG_DATA_HOME": scratch.url.appendingPathComponent("data").path, "CLSFILE_STORE": ""
        ]
        let clsfile = try builtExecutable("clsfile"), server = try builtExecutable("clsfile-server")
        let off = try run(clsfile, ["role", "--public-key"], environment: teacherHome)
        #expect(off.status == 64 && off.errorOutput.contains("with the role off there are no identity keys"))
        #expect(try run(clsfile, ["role", "teacher"], environment: teacherHome).status == 0)
        let pem = try run(clsfile, ["role", "--public-key"], environment: teacherHome)
        #expect(pem.status == 0)
        #expect(pem.output.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(pem.output.components(separatedBy: "-----BEGIN PUBLIC KEY-----").count == 3, "\(pem.output)")
        let keyFile = scratch.url.appendingPathComponent("teacher.pem")
        try Data(pem.output.utf8).write(to: keyFile)
        // A file with the signing key alone, as clsfile printed it before recipient keys.
        let signingOnly = scratch.url.appendingPathComponent("signing.pem")
        let firstBlock = try #require(pem.output.range(of: "-----END PUBLIC KEY-----"))
        try Data(pem.output[..<firstBlock.upperBound].utf8).write(to: signingOnly)

        let database = ["DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        let migrated = try run(server, ["migrate"], environment: database)
        #expect(migrated.status == 0, "\(migrated.errorOutput)")
        #expect(migrated.output == "schema version 0 → \(ServerDatabase.currentVersion); clsfile_app granted\n")
        #expect(
            try run(server, ["migrate"], environment: database).output
                == "schema version \(ServerDatabase.currentVersion), up to date; clsfile_app granted\n")

        let added = try run(server, ["teacher", "add", "--name", "Ms Rivera", "--public-key", keyFile.path], environment: database)
        #expect(added.status == 0, "\(added.errorOutput)")
        let kid = try #require(added.output.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(kid.count == 32)
        let again = try run(server, ["teacher", "add", "--name", "Ms Rivera", "--public-key", keyFile.path], environment: database)
        #expect(again.status == 65)
        #expect(again.errorOutput.contains("registered already"))

        let created = try run(server, ["class", "create", "--name", "Algebra 1", "--teacher", kid], environment: database)
        #expect(created.status == 0, "\(created.errorOutput)")
        let code = try #require(created.output.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 10)
        let listed = try run(server, ["class", "list"], environment: database)
        #expect(listed.output.contains("\(code)  0 students  Algebra 1 (Ms Rivera)"))
        let teachers = try run(server, ["teacher", "list"], environment: database)
        #expect(teachers.output.contains("\(kid)  Ms Rivera"))

        // Refusals, each with its exit code and what to do.
        let noTeacher = try run(server, ["class", "create", "--name", "X", "--teacher", "nobody"], environment: database)
        #expect(noTeacher.status == 66 && noTeacher.errorOutput.contains("no teacher has the id nobody"))
        let notAKey = try run(server, ["teacher", "add", "--name", "Y", "--public-key", "/etc/hostname"], environment: database)
        #expect(notAKey.status == 65 && notAKey.errorOutput.contains("holds no P-256 public key in PEM"))
        let oneKey = try run(server, ["teacher", "add", "--name", "Y", "--public-key", signingOnly.path], environment: database)
        #expect(
            oneKey.status == 65
                && oneKey.errorOutput.contains(
                    "holds one P-256 public key in PEM, not the two P-256 public keys (the signing key, then the recipient key); `clsfile role teacher --public-key` prints both"
                ),
            "\(oneKey.errorOutput)")
        let noFile = try run(server, ["teacher", "add", "--name", "Y", "--public-key", "/nonexistent.pem"], environment: database)
        #expect(noFile.status == 66 && noFile.errorOutput.contains("/nonexistent.pem"))
        // A publisher's file holds one key: the teacher's file of two is refused, and a missing file named.
        let twoKeys = try run(
            server, ["publisher", "add", "--team", "press", "--kid", "press-1", "--public-key", keyFile.path], environment: database)
        #expect(
            twoKeys.status == 65
                && twoKeys.errorOutput.contains("holds 2 PEM blocks, not one P-256 public key; `clsfile catalog keygen` writes one"),
            "\(twoKeys.errorOutput)")
        let noKeyFile = try run(
            server, ["publisher", "add", "--team", "press", "--kid", "press-1", "--public-key", "/nonexistent.pub"], environment: database)
        #expect(
            noKeyFile.status == 66 && noKeyFile.errorOutput.contains("cannot read the public key file /nonexistent.pub"),
            "\(noKeyFile.errorOutput)")
        let badTeam = try run(
            server, ["publisher", "add", "--team", "a b", "--kid", "press-1", "--public-key", signingOnly.path], environment: database)
        #expect(badTeam.status == 65 && badTeam.errorOutput.contains("a team id is 1 to 64 ASCII letters"), "\(badTeam.errorOutput)")
        let unsafe = try run(server, ["migrate", "--app-role", "clsfile_owner"], environment: database)
        #expect(unsafe.status == 77 && unsafe.errorOutput.contains("owns its tables"))
        let noDatabase = try run(server, ["class", "list"], environment: ["DATABASE_URL": ""])
        #expect(noDatabase.status == 64 && noDatabase.errorOutput.contains("--database URL or DATABASE_URL"))
        let badAddress = try run(server, ["class", "list", "--database", "mysql://x@y/z"], environment: [:])
        #expect(badAddress.status == 64 && badAddress.errorOutput.contains("is not a postgres:// address"))
        let wrongPassword = try run(
            server, ["class", "list"],
            environment: [
                "DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "wrong", database: "clsfile")
            ])
        #expect(wrongPassword.status == 69)
        #expect(wrongPassword.errorOutput.contains("postgres://clsfile_owner@127.0.0.1:\(school.cluster.port)/clsfile"))
        #expect(!wrongPassword.errorOutput.contains("wrong"), "the password stays out of messages")
        // A password on the command line, where ps shows it to every user, is refused; without one the option works.
        let onArgv = try run(
            server,
            ["class", "list", "--database", school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")],
            environment: ["DATABASE_URL": ""])
        #expect(
            onArgv.status == 64
                && onArgv.errorOutput.contains(
                    "--database holds a password, which every user of this machine sees (ps): give the address in DATABASE_URL instead"),
            "\(onArgv.errorOutput)")
        #expect(!onArgv.errorOutput.contains("owner-secret"))
        let noPassword = try run(
            server, ["class", "list", "--database", "postgres://clsfile_owner@127.0.0.1:1/clsfile"], environment: ["DATABASE_URL": ""])
        #expect(noPassword.status == 69, "reaches for the database: \(noPassword.errorOutput)")
    }

    /// A refusal caused by another error prints that error on a second line under `--verbose`,
    /// given before or after the command, and only the one line without it.
    @Test func verboseShowsWhatFailedUnderneath() throws {
        let server = try builtExecutable("clsfile-server")
        // The host makes no origin (a WireError), which the server's refusal wraps; no database is reached first.
        let serve = [
            "serve", "--database", "postgres://clsfile_app@127.0.0.1:1/clsfile", "--host", "bad host",
            "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"
        ]
        let plain = try run(server, serve)
        #expect(plain.status == 65)
        #expect(plain.errorOutput.hasPrefix("clsfile: 'https://bad host:8080' is not a class server's address"), "\(plain.errorOutput)")
        #expect(
            plain.errorOutput.split(separator: "\n").count == 1 && !plain.errorOutput.contains("underlying error"), "\(plain.errorOutput)")
        for arguments in [serve + ["--verbose"], ["--verbose"] + serve] {
            let verbose = try run(server, arguments)
            #expect(verbose.status == 65)
            let lines = verbose.errorOutput.split(separator: "\n")
            #expect(
                lines.count == 2 && lines.first.map(String.init) == plain.errorOutput.split(separator: "\n").first.map(String.init),
                "\(verbose.errorOutput)")
            #expect(
                lines.last?.hasPrefix("clsfile: underlying error: 'https://bad host:8080' is not a class server's address") == true,
                "\(verbose.errorOutput)")
        }
    }

}
