import Classroom
public import Crypto
import Foundation
import Logging
internal import NIOPosix
public import PostgresNIO

/// The class server's PostgreSQL database: its schema, the administrator's commands, and the
/// transactions that run as one account, under row-level security (see `ServerSchema`).
public struct ServerDatabase: Sendable {
    let client: PostgresClient
    let address: DatabaseAddress
    /// The streaming replica teachers' reads go to (``asReader(_:_:)``), when one is given.
    let reader: ReplicaReader?
    /// Rows of work decoded for reports, kept while the server runs.
    let decodedWork = DecodedWorkCache()
    /// Where the database's queries and warnings are logged: the caller's logger.
    let logger: Logger

    /// Connects to a database for the time of `body`.
    ///
    /// One connection is made first, so that a database that cannot be reached or refuses the
    /// login is an error at once; afterwards the pool makes connections again as needed (after
    /// PostgreSQL restarts, say).
    /// - Parameters:
    ///   - address: The primary, which every write and students' requests go to.
    ///   - readAddress: A streaming replica of it (`hot_standby`), which teachers' pages and
    ///     reports read from (`asReader(_:_:)`); nil to read everything from the primary.
    ///   - logger: Where the database logs: its queries, a replica it cannot read from, and
    ///     the connection pool's errors.
    ///   - body: The work, with the database; the connections close when it returns.
    /// - Throws: What `body` throws; ``ServerError`` `.database` when a database cannot be used.
    public static func withDatabase<Result: Sendable>(
        _ address: DatabaseAddress, reading readAddress: DatabaseAddress? = nil, logger: Logger,
        _ body: (ServerDatabase) async throws -> Result
    ) async throws -> Result {
        var poolLogger = logger
        // The pool reports each failed attempt to connect at info; what fails for good is thrown.
        poolLogger.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: address.configuration, backgroundLogger: poolLogger)
        let reader = readAddress.map { ReplicaReader(address: $0, backgroundLogger: poolLogger) }
        let database = ServerDatabase(client: client, address: address, reader: reader, logger: logger)
        for checked in [address] + (readAddress.map { [$0] } ?? []) {
            try await database.translating("connecting", on: checked) {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: try checked.connectionConfiguration,
                    id: 0, logger: poolLogger
                ).get()
                try await connection.close().get()
            }
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            if let reader { group.addTask { await reader.client.run() } }
            defer { group.cancelAll() }
            return try await body(database)
        }
    }

    // MARK: Schema

    /// The schema version this server needs.
    public static var currentVersion: Int { ServerSchema.migrations.count }

    /// Brings the schema to the current version and grants the app role what the server needs.
    ///
    /// Run as the role that owns the schema; the app role, which the server runs as, must be
    /// another role, without superuser or `BYPASSRLS`. Two migrations at once wait for each other.
    /// - Returns: The versions before and after.
    /// - Throws: ``ServerError``: `.schema` for a schema newer than this server, `.notFound` when
    ///   the app role does not exist, `.unsafeRole` when it could read past the policies.
    public func migrate(appRole: String) async throws -> (from: Int, to: Int) {
        try await translating("migrating \(address)") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.run("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
                try await checkAppRole(appRole, on: connection)
                try await connection.run("CREATE SCHEMA IF NOT EXISTS clsfile", logger: logger)
                try await connection.run("CREATE TABLE IF NOT EXISTS clsfile.schema_version (version integer NOT NULL)", logger: logger)
                var version = try await connection.run("SELECT version FROM clsfile.schema_version", logger: logger)
                    .decode(Int.self).collected().first
                if version == nil {
                    try await connection.run("INSERT INTO clsfile.schema_version VALUES (0)", logger: logger)
                    version = 0
                }
                let from = version ?? 0
                guard from <= Self.currentVersion else {
                    throw ServerError(
                        .schema,
                        "the database \(address) has schema version \(from), newer than this clsfile-server's \(Self.currentVersion): run a newer clsfile-server"
                    )
                }
                for statements in ServerSchema.migrations[from...] {
                    for statement in statements { try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger) }
                }
                try await connection.run("UPDATE clsfile.schema_version SET version = \(Self.currentVersion)", logger: logger)
                for statement in ServerSchema.grants(to: appRole) {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                return (from, Self.currentVersion)
            }
        }
    }

    /// Any number, the same for every clsfile-server: the advisory lock migrations take.
    private static let migrationLock = 0x636C_7366

    private func checkAppRole(_ role: String, on connection: PostgresConnection) async throws {
        let rows = try await connection.run(
            """
            SELECT rolsuper, rolbypassrls, rolname = current_user FROM pg_roles WHERE rolname = \(role)
            """, logger: logger
        ).decode((Bool, Bool, Bool).self).collected()
        guard let (isSuperuser, bypassesSecurity, isOwner) = rows.first else {
            throw ServerError(
                .notFound,
                "the database has no role '\(role)' for the server to run as: create it (createuser --pwprompt \(role), as PostgreSQL's administrator), then migrate again"
            )
        }
        guard !isOwner else {
            throw ServerError(
                .unsafeRole,
                "'\(role)' is the role migrating the schema, which owns its tables and so is not held by their row-level security: give the server a role of its own with --app-role"
            )
        }
        guard !isSuperuser, !bypassesSecurity else {
            throw ServerError(
                .unsafeRole,
                "the role '\(role)' is a superuser or has BYPASSRLS, which reads past row-level security: give the server a plain role (ALTER ROLE \(role) NOSUPERUSER NOBYPASSRLS)"
            )
        }
    }

    /// Checks that the server may serve from this database, and from its read database when it
    /// has one: the schema is the version this server knows, and the role it connects as is
    /// held by row-level security.
    /// - Throws: ``ServerError`` `.schema` for a schema missing, older or newer; `.unsafeRole`
    ///   for a role that owns the schema, is a superuser or has `BYPASSRLS`.
    public func checkReadyToServe() async throws {
        try await checkReadyToServe(client, address)
        if let reader { try await checkReadyToServe(reader.client, reader.address) }
    }

    private func checkReadyToServe(_ client: PostgresClient, _ address: DatabaseAddress) async throws {
        try await translating("checking \(address)", on: address) {
            let roles = try await client.query(
                """
                SELECT r.rolname, r.rolsuper, r.rolbypassrls,
                       coalesce((SELECT n.nspowner = r.oid FROM pg_namespace n WHERE n.nspname = 'clsfile'), false),
                       to_regclass('clsfile.schema_version') IS NOT NULL
                FROM pg_roles r WHERE r.rolname = current_user
                """, logger: logger
            ).decode((String, Bool, Bool, Bool, Bool).self).collected()
            guard let (role, isSuperuser, bypasses, owns, hasSchema) = roles.first else {
                throw ServerError(.database, "the database did not say which role the server connects as")
            }
            guard !isSuperuser, !bypasses, !owns else {
                throw ServerError(
                    .unsafeRole,
                    "the server connects as '\(role)', which \(owns ? "owns the schema" : "is a superuser or has BYPASSRLS") and so reads past row-level security: connect as the app role (the user of DATABASE_URL must be the role given to migrate --app-role)"
                )
            }
            guard hasSchema,
                let version = try await client.query("SELECT version FROM clsfile.schema_version", logger: logger)
                    .decode(Int.self).collected().first
            else {
                throw ServerError(
                    .schema,
                    "the database \(address) has no clsfile schema yet, or '\(role)' may not read it: run clsfile-server migrate --app-role \(role) as the schema's owner"
                )
            }
            guard version == Self.currentVersion else {
                throw ServerError(
                    .schema,
                    "the database \(address) has schema version \(version) and this server needs \(Self.currentVersion): \(version < Self.currentVersion ? "run clsfile-server migrate" : "run a newer clsfile-server")"
                )
            }
        }
    }

    // MARK: The administrator's commands

    /// Registers a teacher: their device's public signing key, which signs their requests, and
    /// their recipient key, which their handouts carry (a student's clsfile sends an assignment's
    /// work only to the classes of the teacher whose recipient key its handout has). A teacher
    /// registered before recipient keys were kept is given theirs.
    /// - Throws: ``ServerError`` `.invalidValue` when the key is registered already (with a
    ///   recipient key) or the name is empty or too long.
    public func addTeacher(
        name: String, publicKey: P256.Signing.PublicKey,
        recipientKey: P256.KeyAgreement.PublicKey
    ) async throws -> Account {
        let name = try Self.checkedName(name, what: "a teacher's name")
        let key = publicKey.x963Representation, recipient = recipientKey.x963Representation
        let kid = Identity.keyIdentifier(of: key)
        return try await translating("adding the teacher \(name)") {
            try await client.withTransaction(logger: logger) { connection in
                let taken = try await connection.run(
                    """
                    SELECT a.id, a.role, a.name, a.recipient_key FROM clsfile.device_key k JOIN clsfile.account a ON a.id = k.account_id
                    WHERE k.kid = \(kid)
                    """, logger: logger
                ).decode((UUID, String, String, Data?).self).collected()
                if let (account, role, registeredName, registeredRecipient) = taken.first {
                    guard role == "teacher", registeredRecipient == nil else {
                        throw ServerError(.invalidValue, "the key \(kid) is registered already, to the account \(account)")
                    }
                    try await connection.run(
                        """
                        UPDATE clsfile.account SET recipient_key = \(recipient) WHERE id = \(account)
                        """, logger: logger)
                    return Account(id: account, role: .teacher, name: registeredName, keyIdentifier: kid)
                }
                let account = Account(id: UUID(), role: .teacher, name: name, keyIdentifier: kid)
                try await connection.run(
                    """
                    INSERT INTO clsfile.account (id, role, name, recipient_key) VALUES (\(account.id), 'teacher', \(name), \(recipient))
                    """, logger: logger)
                try await connection.run(
                    """
                    INSERT INTO clsfile.device_key (kid, account_id, public_key) VALUES (\(kid), \(account.id), \(key))
                    """, logger: logger)
                return account
            }
        }
    }

    /// Makes a class for a teacher, named by account id or key id, with a new join code.
    /// - Throws: ``ServerError`` `.notFound` when no teacher has that id.
    public func createClass(name: String, teacher: String) async throws -> SchoolClass {
        let name = try Self.checkedName(name, what: "a class's name")
        return try await translating("creating the class \(name)") {
            try await client.withTransaction(logger: logger) { connection in
                let teachers = try await connection.run(
                    """
                    SELECT a.id, a.name FROM clsfile.account a WHERE a.role = 'teacher'
                    AND (a.id::text = lower(\(teacher)) OR a.id IN (SELECT account_id FROM clsfile.device_key WHERE kid = \(teacher)))
                    """, logger: logger
                ).decode((UUID, String).self).collected()
                guard let (teacherID, teacherName) = teachers.first else {
                    throw ServerError(.notFound, "no teacher has the id \(teacher): clsfile-server teacher list shows them")
                }
                let schoolClass = SchoolClass(
                    id: UUID(), name: name, joinCode: JoinCode.random(),
                    teacherID: teacherID, teacherName: teacherName, studentCount: 0)
                try await connection.run(
                    """
                    INSERT INTO clsfile.class (id, teacher_id, name, join_code)
                    VALUES (\(schoolClass.id), \(teacherID), \(name), \(schoolClass.joinCode))
                    """, logger: logger)
                return schoolClass
            }
        }
    }

    /// Every class, oldest first, as the administrator sees them.
    public func classes() async throws -> [SchoolClass] {
        try await translating("listing the classes") {
            try await client.withConnection { try await Self.classes(on: $0, logger: logger) }
        }
    }

    /// The classes, oldest first, or the one of `id`, read past the policies (as the schema's owner).
    static func classes(_ id: UUID? = nil, on connection: PostgresConnection, logger: Logger) async throws -> [SchoolClass] {
        try await connection.query(
            """
            SELECT c.id, c.name, c.join_code, a.id, a.name,
                   (SELECT count(*) FROM clsfile.enrolment e WHERE e.class_id = c.id)::bigint
            FROM clsfile.class c JOIN clsfile.account a ON a.id = c.teacher_id
            WHERE \(id == nil) OR c.id = \(id) ORDER BY c.created_at, c.name
            """, logger: logger
        ).decode((UUID, String, String, UUID, String, Int64).self).collected().map {
            SchoolClass(id: $0.0, name: $0.1, joinCode: $0.2, teacherID: $0.3, teacherName: $0.4, studentCount: Int($0.5))
        }
    }

    /// Every teacher, with the id of their key, oldest first.
    public func teachers() async throws -> [Account] {
        try await translating("listing the teachers") {
            try await client.query(
                """
                SELECT a.id, a.name, k.kid FROM clsfile.account a JOIN clsfile.device_key k ON k.account_id = a.id
                WHERE a.role = 'teacher' ORDER BY a.created_at, k.created_at
                """, logger: logger
            ).decode((UUID, String, String).self).collected().map {
                Account(id: $0.0, role: .teacher, name: $0.1, keyIdentifier: $0.2)
            }
        }
    }

    // MARK: Requests

    /// Runs `body` in a transaction as `account`: every statement in it sees what the policies let
    /// that account see, and writes only what they let it write.
    public func asAccount<Result: Sendable>(
        _ account: UUID, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await translating("the request") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.run("SELECT set_config('clsfile.account', \(account.uuidString), true)", logger: logger)
                return try await body(connection)
            }
        }
    }

    /// A student joins a class with its join code; the device's key makes their account the first
    /// time and names it afterwards. The answer carries the teacher's recipient key, which ties
    /// the class to their handouts on the student's side.
    /// - Throws: ``ServerError`` `.notFound` for an unknown code, or a class whose teacher has no
    ///   recipient key yet; `.invalidValue` for a key id taken by another key or a teacher's key.
    public func joinClass(code: String, studentName: String, publicKey: P256.Signing.PublicKey) async throws -> Enrolment {
        let name = try Self.checkedName(studentName, what: "a student's name")
        let key = publicKey.x963Representation
        let kid = Identity.keyIdentifier(of: key)
        let refusals = [
            "P0002": ServerError(.notFound, "no class has the join code \(code.prefix(40)): check it with your teacher"),
            "23505": ServerError(
                .invalidValue, "the key id \(kid) is registered here to another key: join with the key of your student role"),
            "23514": ServerError(
                .invalidValue, "the key \(kid) is a teacher's, which cannot join a class: join with the student role (clsfile role student)"
            )
        ]
        return try await translating("joining a class", refusing: refusals) {
            try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.run(
                    """
                    SELECT account_id, class_id, class_name FROM clsfile.join_class(\(code), \(name), \(kid), \(key))
                    """, logger: logger
                ).decode((UUID, UUID, String).self).collected()
                guard let (account, classID, className) = rows.first else {
                    throw ServerError(.database, "joining a class returned nothing")
                }
                let teacherKey = try await Self.teacherKey(
                    ofClass: classID, named: className, as: account, on: connection, logger: logger,
                    remedy:
                        "ask the server's administrator to run clsfile-server teacher add with what clsfile role teacher --public-key prints on the teacher's computer"
                )
                return Enrolment(accountID: account, keyIdentifier: kid, classID: classID, className: className, teacherKey: teacherKey)
            }
        }
    }

    /// The recipient key of a class's teacher, read as a student of it, who sees their teacher;
    /// without it the transaction is rolled back, enrolment and all.
    /// - Parameter remedy: What the teacher does to have one, for the refusal.
    /// - Throws: ``ServerError`` `.notFound` when the teacher has none yet.
    static func teacherKey(
        ofClass classID: UUID, named className: String, as student: UUID, on connection: PostgresConnection, logger: Logger,
        remedy: String
    ) async throws -> Data {
        try await connection.run("SELECT set_config('clsfile.account', \(student.uuidString), true)", logger: logger)
        let key =
            try await connection.run(
                """
                SELECT a.recipient_key FROM clsfile.class c JOIN clsfile.account a ON a.id = c.teacher_id WHERE c.id = \(classID)
                """, logger: logger
            ).decode(Data?.self).collected().first ?? nil
        guard let key else {
            throw ServerError(
                .notFound,
                "the teacher of \(className) has no recipient key on this server yet, which ties the class to their handouts: \(remedy), then join again"
            )
        }
        return key
    }

    // MARK: Support

    private static func checkedName(_ name: String, what: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ServerError(.invalidValue, "\(what) must be 1 to 200 characters without control characters, not '\(name.prefix(40))'")
        }
        return trimmed
    }

    /// Runs database work, turning PostgreSQL's errors into ``ServerError``s that say what failed.
    ///
    /// A refusal a caller is sent (`.notFound`, `.invalidValue`) says what was wrong in the
    /// server's words, with the SQLSTATE: PostgreSQL's own text, which may name tables,
    /// constraints and values, is kept as the underlying error only. The errors
    /// that reach the administrator alone (`.database`, `.unsafeRole`) carry it.
    /// - Parameters:
    ///   - database: The database the work runs on, which messages name: the primary unless told otherwise.
    ///   - refusals: What to throw instead for a SQLSTATE, when the work knows better what it means.
    func translating<Result>(
        _ what: String, on database: DatabaseAddress? = nil, refusing refusals: [String: ServerError] = [:],
        _ work: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await work()
        } catch let error as ServerError {
            throw error
        } catch let error as PostgresTransactionError {
            throw translated(
                error.closureError ?? error.commitError ?? error.beginError ?? error, while: what, on: database ?? address,
                refusals: refusals)
        } catch {
            throw translated(error, while: what, on: database ?? address, refusals: refusals)
        }
    }

    private func translated(_ error: any Error, while what: String, on address: DatabaseAddress, refusals: [String: ServerError])
        -> any Error
    {
        if let error = error as? ServerError { return error }
        guard let error = error as? PSQLError else {
            return ServerError(.database, "\(what) failed on \(address): \(error)", underlyingError: error)
        }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState] ?? ""
            if let refusal = refusals[state] {
                return ServerError(refusal.code, refusal.message, underlyingError: error)
            }
            let refusal: (ServerError.Code, String)? =
                switch state {
                case "P0002": (.notFound, "something it names is not there") // no_data_found
                // A foreign key: the account or class a request names was deleted meanwhile (a
                // student forgotten, a class archived) while its key was still cached.
                case "23503": (.notFound, "an account or class it names is not there any more")
                case "23505": (.invalidValue, "it holds a value that is taken already") // unique_violation
                case "23514": (.invalidValue, "it holds a value outside what may be stored") // check_violation
                case _ where state.hasPrefix("22"): // a data exception
                    (.invalidValue, "it holds a value the database cannot store, such as a NUL character or text that is not UTF-8")
                default: nil
                }
            if let (code, why) = refusal {
                return ServerError(code, "\(what) failed: \(why) (SQLSTATE \(state))", underlyingError: error)
            }
            let code: ServerError.Code = state == "42501" ? .unsafeRole : .database // insufficient privilege
            return ServerError(code, "\(what) failed on \(address): \(message) (SQLSTATE \(state))", underlyingError: error)
        }
        return ServerError(
            .database,
            "\(what) failed: cannot use the database \(address) (\(error.code)); check that PostgreSQL runs there and the user and password are right",
            underlyingError: error)
    }
}
