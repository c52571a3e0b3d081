@testable import ClassServer
import Classroom
import Crypto
import Foundation
import Logging
import PostgresNIO
import Testing
import TestSupport

/// The class server's database on a real PostgreSQL of the test's own: the schema, the
/// administrator's commands, and row-level security holding every account to its own rows.
@Suite(.serialized)
struct ServerDatabaseTests {
    /// A cluster with the database `clsfile` owned by `clsfile_owner`, the app role
    /// `clsfile_app`, and the schema migrated.
    final class School: Sendable {
        let cluster: PostgresCluster
        let owner: DatabaseAddress
        let app: DatabaseAddress

        init(migrated: Bool = true) async throws {
            cluster = try PostgresCluster()
            try cluster.psql("CREATE ROLE clsfile_owner LOGIN PASSWORD 'owner-secret'")
            try cluster.psql("CREATE ROLE clsfile_app LOGIN PASSWORD 'app-secret'")
            try cluster.psql("CREATE DATABASE clsfile OWNER clsfile_owner")
            owner = try DatabaseAddress(cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile"))
            app = try DatabaseAddress(cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile"))
            if migrated {
                _ = try await ServerDatabase.withDatabase(owner, logger: .tests) { try await $0.migrate(appRole: "clsfile_app") }
            }
        }

        func asApp(_ sql: String) throws -> String {
            try cluster.psql(sql, user: "clsfile_app", password: "app-secret", database: "clsfile")
        }
    }

    @Test func migrateMakesTheSchemaOnceAndRefusesAnUnsafeAppRole() async throws {
        let school = try await School(migrated: false)
        try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let first = try await database.migrate(appRole: "clsfile_app")
            #expect(first.from == 0 && first.to == ServerDatabase.currentVersion)
            let again = try await database.migrate(appRole: "clsfile_app")
            #expect(again.from == ServerDatabase.currentVersion && again.to == ServerDatabase.currentVersion)

            let missing = await #expect(throws: ServerError.self) { try await database.migrate(appRole: "nobody") }
            #expect(missing?.code == .notFound)
            #expect(missing?.message.contains("createuser --pwprompt nobody") == true)
            let owner = await #expect(throws: ServerError.self) { try await database.migrate(appRole: "clsfile_owner") }
            #expect(owner?.code == .unsafeRole)
        }
        try school.cluster.psql("CREATE ROLE bypasser LOGIN BYPASSRLS PASSWORD 'x'")
        let bypassing = await #expect(throws: ServerError.self) {
            try await ServerDatabase.withDatabase(school.owner, logger: .tests) { try await $0.migrate(appRole: "bypasser") }
        }
        #expect(bypassing?.code == .unsafeRole)
        #expect(bypassing?.message.contains("BYPASSRLS") == true)
        // What the app role may and may not do, as PostgreSQL sees it.
        #expect(try school.asApp("SELECT count(*) FROM clsfile.schema_version") == "1")
        #expect(throws: PostgresCluster.ClusterError.self) {
            try school.asApp("ALTER TABLE clsfile.work DISABLE ROW LEVEL SECURITY")
        }
        #expect(throws: PostgresCluster.ClusterError.self) { try school.asApp("DELETE FROM clsfile.account") }
        #expect(throws: PostgresCluster.ClusterError.self) {
            try school.asApp("INSERT INTO clsfile.account (id, role, name) VALUES (gen_random_uuid(), 'teacher', 'Mallory')")
        }
    }

    /// A database of schema version 1, as the first clsfile-server left it: a teacher without a
    /// recipient key, a class, a student and their work. Migrating keeps the work, and lets a
    /// student hold work on one assignment in two classes; joining the teacher's class is refused
    /// until the administrator adds the teacher again with both keys, then carries their key.
    @Test func schemaOneMigratesKeepingWorkAndTeachersGetTheirRecipientKey() async throws {
        let school = try await School(migrated: false)
        func asOwner(_ sql: String) throws {
            _ = try school.cluster.psql(sql, user: "clsfile_owner", password: "owner-secret", database: "clsfile")
        }
        try asOwner(
            "CREATE SCHEMA clsfile; CREATE TABLE clsfile.schema_version (version integer NOT NULL); INSERT INTO clsfile.schema_version VALUES (1)"
        )
        for statement in ServerSchema.version1 { try asOwner(statement) }
        let teacherKey = P256.Signing.PrivateKey(), recipient = P256.KeyAgreement.PrivateKey()
        let (teacher, student, algebra, geometry) = (UUID(), UUID(), UUID(), UUID())
        let key = teacherKey.publicKey.x963Representation
        let hex = key.map { String(format: "%02x", $0) }.joined()
        try asOwner(
            """
            INSERT INTO clsfile.account (id, role, name) VALUES ('\(teacher)', 'teacher', 'Ms A'), ('\(student)', 'student', 'Ann');
            INSERT INTO clsfile.device_key (kid, account_id, public_key) VALUES ('\(Identity.keyIdentifier(of: key))', '\(teacher)', '\\x\(hex)');
            INSERT INTO clsfile.class (id, teacher_id, name, join_code) VALUES ('\(algebra)', '\(teacher)', 'Algebra', 'ALGEBRA111'),
                ('\(geometry)', '\(teacher)', 'Geometry', 'GEOMETRY11');
            INSERT INTO clsfile.enrolment (class_id, student_id) VALUES ('\(algebra)', '\(student)'), ('\(geometry)', '\(student)');
            INSERT INTO clsfile.work (class_id, student_id, assignment_id, detail) VALUES ('\(algebra)', '\(student)', 'essay', '{"kept":true}')
            """)

        try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let migrated = try await database.migrate(appRole: "clsfile_app")
            #expect(migrated.from == 1 && migrated.to == ServerDatabase.currentVersion)
        }
        #expect(try school.cluster.psql("SELECT detail->>'kept' FROM clsfile.work", database: "clsfile") == "true")
        try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
            // The same assignment's work in the student's other class of the same teacher.
            try await database.asAccount(student) { connection in
                try await connection.run(
                    """
                    INSERT INTO clsfile.work (class_id, student_id, assignment_id, detail) VALUES (\(geometry), \(student), 'essay', '{}'::jsonb)
                    """, logger: .init(label: "test"))
            }
            let refused = await #expect(throws: ServerError.self) {
                try await database.joinClass(code: "ALGEBRA111", studentName: "Bea", publicKey: P256.Signing.PrivateKey().publicKey)
            }
            #expect(refused?.code == .notFound)
            #expect(
                refused?.message.contains("the teacher of Algebra has no recipient key on this server yet") == true,
                "\(refused?.message ?? "")")
        }
        #expect(try school.cluster.psql("SELECT count(*) FROM clsfile.work", database: "clsfile") == "2")

        try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let added = try await database.addTeacher(name: "Ms A", publicKey: teacherKey.publicKey, recipientKey: recipient.publicKey)
            #expect(added.id == teacher)
            let again = await #expect(throws: ServerError.self) {
                try await database.addTeacher(name: "Ms A", publicKey: teacherKey.publicKey, recipientKey: recipient.publicKey)
            }
            #expect(again?.message.contains("registered already") == true)
        }
        let joined = try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
            try await database.joinClass(code: "ALGEBRA111", studentName: "Bea", publicKey: P256.Signing.PrivateKey().publicKey)
        }
        #expect(joined.classID == algebra && joined.teacherKey == recipient.publicKey.x963Representation)
    }

    @Test func aNewerSchemaIsRefusedWithWhatToDo() async throws {
        let school = try await School()
        try school.cluster.psql("UPDATE clsfile.schema_version SET version = 99", database: "clsfile")
        let error = await #expect(throws: ServerError.self) {
            try await ServerDatabase.withDatabase(school.owner, logger: .tests) { try await $0.migrate(appRole: "clsfile_app") }
        }
        #expect(error?.code == .schema)
        #expect(error?.message.contains("schema version 99, newer than") == true)
    }

    @Test func rowLevelSecurityHoldsEveryAccountToItsOwnRows() async throws {
        let school = try await School()
        let (teacherA, teacherB) = (P256.Signing.PrivateKey(), P256.Signing.PrivateKey())
        let (classA, classB, studentKeys) = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let a = try await database.addTeacher(
                name: "Ms A", publicKey: teacherA.publicKey, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            let b = try await database.addTeacher(
                name: "Mr B", publicKey: teacherB.publicKey, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            #expect(a.keyIdentifier == Identity.keyIdentifier(of: teacherA.publicKey.x963Representation))
            let classA = try await database.createClass(name: "Algebra", teacher: a.keyIdentifier)
            let classB = try await database.createClass(name: "Biology", teacher: b.id.uuidString)
            #expect(classA.joinCode.count == 10 && classA.joinCode != classB.joinCode)
            return (classA, classB, (0..<3).map { _ in P256.Signing.PrivateKey() })
        }
        // Two students in A, one in B; joining again changes nothing.
        let students = try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
            let one = try await database.joinClass(code: classA.joinCode, studentName: "Ann", publicKey: studentKeys[0].publicKey)
            let again = try await database.joinClass(
                code: classA.joinCode.lowercased(), studentName: "Ann", publicKey: studentKeys[0].publicKey)
            #expect(again == one)
            let two = try await database.joinClass(code: classA.joinCode, studentName: "Ben", publicKey: studentKeys[1].publicKey)
            let three = try await database.joinClass(code: classB.joinCode, studentName: "Cat", publicKey: studentKeys[2].publicKey)
            #expect(one.classID == classA.id && three.classID == classB.id && one.className == "Algebra")
            return [one, two, three]
        }
        try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
            // Each student writes their own work.
            for student in students {
                try await database.asAccount(student.accountID) { connection in
                    try await connection.run(
                        """
                        INSERT INTO clsfile.work (class_id, student_id, assignment_id, detail)
                        VALUES (\(student.classID), \(student.accountID), 'essay', '{}'::jsonb)
                        """, logger: .init(label: "test"))
                }
            }
            func count(_ table: String, as account: UUID) async throws -> Int { try await Self.count(table, as: account, in: database) }
            let ann = students[0].accountID, cat = students[2].accountID
            let teacherAID = try await database.asAccount(ann) { connection in
                try await connection.run("SELECT teacher_id FROM clsfile.class", logger: .init(label: "test"))
                    .decode(UUID.self).collected()
            }
            #expect(try await count("work", as: ann) == 1)
            #expect(try await count("class", as: ann) == 1)
            #expect(try await count("account", as: ann) == 2, "herself and her teacher")
            #expect(try await count("enrolment", as: ann) == 1)
            #expect(try await count("device_key", as: ann) == 1)
            #expect(teacherAID.count == 1)
            let teacher = try #require(teacherAID.first)
            #expect(try await count("work", as: teacher) == 2, "Ann's and Ben's, not Cat's")
            #expect(try await count("account", as: teacher) == 3, "himself and two students")
            #expect(try await count("class", as: teacher) == 1)
            #expect(try await count("work", as: cat) == 1)
            #expect(try await count("work", as: UUID()) == 0, "an account that does not exist sees nothing")

            // Writing as another student, or into a class not joined, is refused by PostgreSQL.
            for (student, classID) in [(students[1].accountID, classA.id), (ann, classB.id)] {
                await #expect(throws: ServerError.self) {
                    try await database.asAccount(ann) { connection in
                        try await connection.run(
                            """
                            INSERT INTO clsfile.work (class_id, student_id, assignment_id, detail)
                            VALUES (\(classID), \(student), 'forged', '{}'::jsonb)
                            """, logger: .init(label: "test"))
                    }
                }
            }
            let updated = try await database.asAccount(ann) { connection in
                try await connection.run(
                    "UPDATE clsfile.work SET detail = '{\"x\":1}'::jsonb RETURNING student_id", logger: .init(label: "test")
                )
                .decode(UUID.self).collected()
            }
            #expect(updated == [ann], "an update reaches her own row only")
        }
        // A publisher's catalog, as the owner writes it.
        try school.cluster.psql(
            """
            INSERT INTO clsfile.publisher (kid, team, public_key) VALUES ('acme-1', 'acme', decode('04' || repeat('00', 64), 'hex'));
            INSERT INTO clsfile.catalog_context (environment, team, path_key, depth, data, thumbnail_id)
                VALUES ('production', 'acme', '["app"]', 1, '{}', 't1');
            INSERT INTO clsfile.catalog_thumbnail (environment, team, id, media_type, image) VALUES ('production', 'acme', 't1', 'image/png', '\\x00');
            INSERT INTO clsfile.catalog_request (id, team, environment, operation, count) VALUES (gen_random_uuid(), 'acme', 'production', 'contexts.post', 1)
            """, database: "clsfile")
        // The app role without an account or team set sees no row of any table.
        for table in [
            "account", "device_key", "class", "enrolment", "work", "applied_operation", "publisher", "catalog_context", "catalog_thumbnail",
            "catalog_request",
            "catalog_assignment"
        ] {
            #expect(try school.asApp("SELECT count(*) FROM clsfile.\(table)") == "0", "\(table)")
        }
        #expect(try school.cluster.psql("SELECT count(*) FROM clsfile.work", database: "clsfile") == "3")
        // As another team, the app role sees none of acme's catalog and cannot write into it; as acme, its own.
        // (psql prints each statement's result: the team set, then the answer.)
        func asTeam(_ team: String, _ sql: String) throws -> String {
            try school.asApp("SELECT set_config('clsfile.team', '\(team)', true); \(sql)").split(separator: "\n").dropFirst().joined(
                separator: "\n")
        }
        for table in ["catalog_context", "catalog_thumbnail", "catalog_request", "publisher"] {
            #expect(try asTeam("globex", "SELECT count(*) FROM clsfile.\(table)") == "0", "\(table)")
        }
        #expect(try asTeam("acme", "SELECT count(*) FROM clsfile.catalog_context") == "1")
        #expect(throws: PostgresCluster.ClusterError.self) {
            try school.asApp(
                """
                SELECT set_config('clsfile.team', 'globex', true);
                INSERT INTO clsfile.catalog_context (environment, team, path_key, depth, data) VALUES ('production', 'acme', '["forged"]', 1, '{}')
                """)
        }
        #expect(try asTeam("globex", "DELETE FROM clsfile.catalog_context RETURNING 1") == "")
        #expect(try school.cluster.psql("SELECT count(*) FROM clsfile.catalog_context", database: "clsfile") == "1")

        // Teachers read the production catalogs, not the development ones; students read none. A
        // class's catalog assignments are its teacher's to make and read, its students' to read.
        try school.cluster.psql(
            """
            INSERT INTO clsfile.catalog_context (environment, team, path_key, depth, data) VALUES ('development', 'acme', '["draft"]', 1, '{}');
            INSERT INTO clsfile.catalog_assignment (id, class_id, team, path_key, context_title, title, contexts)
                VALUES (gen_random_uuid(), '\(classA.id)', 'acme', '["app"]', 'App', 'App', '[]')
            """, database: "clsfile")
        try await ServerDatabase.withDatabase(school.app, logger: .tests) { (database: ServerDatabase) async throws in
            let (ann, cat) = (students[0].accountID, students[2].accountID)
            let (teacherA, teacherB) = (classA.teacherID, classB.teacherID)
            for (table, teacher, student) in [
                ("catalog_context", 1, 0), ("catalog_thumbnail", 1, 0), ("catalog_request", 0, 0), ("publisher", 0, 0)
            ] {
                #expect(try await Self.count(table, as: teacherA, in: database) == teacher, "\(table)")
                #expect(try await Self.count(table, as: ann, in: database) == student, "\(table)")
            }
            #expect(try await Self.count("catalog_assignment", as: teacherA, in: database) == 1)
            #expect(try await Self.count("catalog_assignment", as: ann, in: database) == 1)
            #expect(try await Self.count("catalog_assignment", as: cat, in: database) == 0)
            #expect(try await Self.count("catalog_assignment", as: teacherB, in: database) == 0)
            for account in [teacherB, ann] {
                await #expect(throws: ServerError.self) {
                    try await database.asAccount(account) { connection in
                        try await connection.run(
                            """
                            INSERT INTO clsfile.catalog_assignment (id, class_id, team, path_key, context_title, title, contexts)
                            VALUES (gen_random_uuid(), \(classA.id), 'acme', '["forged"]', 'Forged', 'Forged', '[]')
                            """, logger: .init(label: "test"))
                    }
                }
            }
        }
    }

    /// How many rows of a table an account sees.
    static func count(_ table: String, as account: UUID, in database: ServerDatabase) async throws -> Int {
        try await database.asAccount(account) { connection in
            try await connection.run(
                PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM clsfile.\(table)"), logger: .init(label: "test")
            )
            .decode(Int64.self).collected().first.map(Int.init) ?? -1
        }
    }

    @Test func joiningIsRefusedForAnUnknownCodeAndATeachersKey() async throws {
        let school = try await School()
        let teacherKey = P256.Signing.PrivateKey()
        let created = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
            let teacher = try await database.addTeacher(
                name: "Ms A", publicKey: teacherKey.publicKey, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            let duplicate = await #expect(throws: ServerError.self) {
                try await database.addTeacher(
                    name: "Again", publicKey: teacherKey.publicKey, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            }
            #expect(duplicate?.code == .invalidValue)
            let nobody = await #expect(throws: ServerError.self) { try await database.createClass(name: "X", teacher: "0123") }
            #expect(nobody?.code == .notFound)
            let empty = await #expect(throws: ServerError.self) {
                try await database.addTeacher(
                    name: " \n", publicKey: P256.Signing.PrivateKey().publicKey, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            }
            #expect(empty?.code == .invalidValue)
            return try await database.createClass(name: "Algebra", teacher: teacher.id.uuidString)
        }
        try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
            let unknown = await #expect(throws: ServerError.self) {
                try await database.joinClass(code: "NOSUCHCODE", studentName: "Ann", publicKey: P256.Signing.PrivateKey().publicKey)
            }
            #expect(unknown?.code == .notFound)
            #expect(unknown?.message.contains("no class has the join code NOSUCHCODE") == true)
            let teacher = await #expect(throws: ServerError.self) {
                try await database.joinClass(code: created.joinCode, studentName: "Ms A", publicKey: teacherKey.publicKey)
            }
            #expect(teacher?.code == .invalidValue)
        }
    }

    @Test func anUnreachableDatabaseIsAnErrorNamingIt() async throws {
        // A port nothing listens on.
        let address = try DatabaseAddress("postgres://someone:pw@127.0.0.1:1/clsfile")
        let started = Date()
        let error = await #expect(throws: ServerError.self) {
            try await ServerDatabase.withDatabase(address, logger: .tests) { try await $0.classes() }
        }
        #expect(error?.code == .database)
        #expect(error?.message.contains("postgres://someone@127.0.0.1:1/clsfile") == true)
        #expect(error?.message.contains("pw") == false, "the password stays out of messages")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test(arguments: [
        ("mysql://a@b/c", "is not a postgres:// address"),
        ("postgres://a@/c", "names no host"),
        ("postgres://host/c", "names no user"),
        ("postgres://a@host/", "names no database"),
        ("postgres://a:secret@host/c?sslmode=verify-full", "sslmode=disable or sslmode=require")
    ])
    func aMalformedAddressIsRefused(_ text: String, _ reason: String) throws {
        let error = #expect(throws: ServerError.self) { try DatabaseAddress(text) }
        #expect(error?.code == .invalidAddress)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("secret") == false)
    }
}
