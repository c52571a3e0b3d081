import Classroom
public import Crypto
import Foundation
internal import PostgresNIO

extension ServerDatabase {
    // MARK: The administrator's commands

    /// Registers an LMS as an LTI platform, or updates the addresses of one registered with the
    /// same issuer and client id and adds the deployments given to its own; and makes the tool's
    /// first key when it has none.
    /// - Returns: The platform as registered now, with every deployment, and the id of the key
    ///   made, if one was.
    /// - Throws: ``ServerError`` `.invalidValue` for a value ``LTIPlatform/checked()`` refuses.
    public func registerLTIPlatform(_ platform: LTIPlatform) async throws -> (platform: LTIPlatform, newKey: String?) {
        let platform = try platform.checked()
        let key = try await newToolKeyIfNone()
        return try await translating("registering the LTI platform \(platform.issuer)") {
            try await client.withTransaction(logger: logger) { connection in
                let id =
                    try await connection.run(
                        """
                        INSERT INTO clsfile.lti_platform (id, issuer, client_id, auth_login_url, auth_token_url, jwks_url, score_interval)
                        VALUES (\(platform.id), \(platform.issuer), \(platform.clientID), \(platform.authLoginURL.absoluteString),
                                \(platform.authTokenURL.absoluteString), \(platform.jwksURL.absoluteString), \(platform.scoreInterval))
                        ON CONFLICT (issuer, client_id) DO UPDATE SET auth_login_url = excluded.auth_login_url,
                            auth_token_url = excluded.auth_token_url, jwks_url = excluded.jwks_url,
                            score_interval = excluded.score_interval
                        RETURNING id
                        """, logger: logger
                    ).decode(UUID.self).collected().first ?? platform.id
                try await connection.run(
                    """
                    INSERT INTO clsfile.lti_deployment (platform_id, deployment_id)
                    SELECT \(id), d FROM unnest(\(platform.deployments)::text[]) AS d ON CONFLICT DO NOTHING
                    """, logger: logger)
                try await keep(key, on: connection)
                guard let registered = try await Self.ltiPlatforms(on: connection, logger: logger).first(where: { $0.id == id }) else {
                    throw ServerError(.database, "the LTI platform registered was not there afterwards")
                }
                return (registered, key?.kid)
            }
        }
    }

    /// A new key for the tool when it has none yet, else nil.
    private func newToolKeyIfNone() async throws -> LTIToolKey? {
        try await toolKeys().isEmpty ? try LTIToolKey.generate() : nil
    }

    /// Keeps the tool's first key, unless another process kept one meanwhile.
    private func keep(_ key: LTIToolKey?, on connection: PostgresConnection) async throws {
        guard let key else { return }
        try await connection.run(
            """
            INSERT INTO clsfile.lti_tool_key (kid, public_key, private_key, current)
            SELECT \(key.kid), \(key.publicKeyPEM), \(key.privateKeyPEM), true WHERE NOT EXISTS (SELECT 1 FROM clsfile.lti_tool_key)
            """, logger: logger)
    }

    /// A one-use code for an LMS to register itself with (LTI Dynamic Registration), good for
    /// `lifetime` seconds; and the tool's first key when it has none.
    /// - Returns: The code, and the id of the key made, if one was.
    public func makeLTIRegistrationCode(lifetime: Int) async throws -> (code: String, newKey: String?) {
        let key = try await newToolKeyIfNone()
        let code = LTIRoutes.randomToken(bytes: 24)
        return try await translating("making an LTI registration code") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.run(
                    """
                    INSERT INTO clsfile.lti_registration_code (code_hash, expires_at)
                    VALUES (\(LTIRoutes.hash(code)), now() + \(lifetime) * interval '1 second')
                    """, logger: logger)
                try await keep(key, on: connection)
                return (code, key?.kid)
            }
        }
    }

    /// Uses a registration code, before anything is fetched: false for one unknown, used or expired.
    func useLTIRegistrationCode(_ code: String) async throws -> Bool {
        try await translating("using an LTI registration code") {
            try await client.query("SELECT clsfile.lti_use_registration_code(\(LTIRoutes.hash(code)))", logger: logger)
                .decode(Bool.self).collected().first ?? false
        }
    }

    /// Registers a platform that registered itself with a registration code its registration used.
    /// - Throws: ``ServerError`` `.unauthorized` for a code not used in the last ten minutes, or
    ///   used by a registration already; `.invalidValue` for a platform registered already.
    func registerDynamically(_ platform: LTIPlatform, code: String) async throws {
        let refusals = [
            "P0002": ServerError(
                .unauthorized,
                "the registration took more than ten minutes: ask the server's administrator for a new address (clsfile-server lti registration-url)"
            ),
            "23505": ServerError(
                .invalidValue,
                "the LMS \(platform.issuer) with the client id \(platform.clientID) is registered here already: its registration changes only with clsfile-server lti register, by the server's administrator"
            )
        ]
        _ = try await translating("registering an LTI platform", refusing: refusals) {
            try await client.query(
                """
                SELECT clsfile.lti_register_dynamically(\(LTIRoutes.hash(code)), \(platform.id), \(platform.issuer), \(platform.clientID),
                    \(platform.authLoginURL.absoluteString), \(platform.authTokenURL.absoluteString), \(platform.jwksURL.absoluteString),
                    \(platform.deployments.first))
                """, logger: logger)
        }
    }

    /// Deletes what LTI keeps only for a while: logins and deep links past their time, link
    /// tokens and registration codes a day after they expired (used or not).
    /// - Returns: How many rows were deleted.
    public func pruneLTI() async throws -> Int {
        try await translating("pruning the LTI logins and tokens on \(address)") {
            try await client.withTransaction(logger: logger) { connection in
                var count = 0
                for statement: PostgresQuery in [
                    "WITH d AS (DELETE FROM clsfile.lti_login WHERE expires_at < now() RETURNING 1) SELECT count(*) FROM d",
                    "WITH d AS (DELETE FROM clsfile.lti_deep_link WHERE expires_at < now() RETURNING 1) SELECT count(*) FROM d",
                    """
                    WITH d AS (DELETE FROM clsfile.lti_link_token WHERE expires_at < now() - interval '1 day' RETURNING 1)
                    SELECT count(*) FROM d
                    """,
                    """
                    WITH d AS (DELETE FROM clsfile.lti_registration_code WHERE expires_at < now() - interval '1 day' RETURNING 1)
                    SELECT count(*) FROM d
                    """
                ] {
                    count += Int(try await connection.run(statement, logger: logger).decode(Int64.self).collected().first ?? 0)
                }
                return count
            }
        }
    }

    /// Every LTI platform registered, oldest first, with its deployments.
    public func ltiPlatforms() async throws -> [LTIPlatform] {
        try await translating("listing the LTI platforms") {
            try await client.withConnection { try await Self.ltiPlatforms(on: $0, logger: logger) }
        }
    }

    private static func ltiPlatforms(on connection: PostgresConnection, logger: Logger) async throws -> [LTIPlatform] {
        try await connection.query(
            """
            SELECT p.id, p.issuer, p.client_id, p.auth_login_url, p.auth_token_url, p.jwks_url,
                   coalesce((SELECT array_agg(d.deployment_id ORDER BY d.deployment_id) FROM clsfile.lti_deployment d
                             WHERE d.platform_id = p.id), '{}'), p.score_interval
            FROM clsfile.lti_platform p ORDER BY p.created_at, p.issuer
            """, logger: logger
        ).decode((UUID, String, String, String, String, String, [String], Int32).self).collected().map {
            var platform = try Self.platform(($0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6))
            platform.scoreInterval = Int($0.7)
            return platform
        }
    }

    private static func platform(_ row: (UUID, String, String, String, String, String, [String])) throws -> LTIPlatform {
        guard let login = URL(string: row.3), let token = URL(string: row.4), let keys = URL(string: row.5) else {
            throw ServerError(.database, "the LTI platform \(row.1) has an address that does not parse")
        }
        return LTIPlatform(
            id: row.0, issuer: row.1, clientID: row.2, authLoginURL: login, authTokenURL: token, jwksURL: keys, deployments: row.6)
    }

    /// Makes a new current key for the tool; the one it replaces stays published for seven days.
    /// - Returns: The new key's id, and the id of the key it replaced, if any.
    public func rotateLTIToolKey() async throws -> (current: String, retired: String?) {
        let key = try LTIToolKey.generate()
        return try await translating("rotating the LTI tool key") {
            try await client.withTransaction(logger: logger) { connection in
                let retired = try await connection.run(
                    """
                    UPDATE clsfile.lti_tool_key SET current = false, retired_at = now() WHERE current RETURNING kid
                    """, logger: logger
                ).decode(String.self).collected().first
                try await connection.run(
                    """
                    INSERT INTO clsfile.lti_tool_key (kid, public_key, private_key, current)
                    VALUES (\(key.kid), \(key.publicKeyPEM), \(key.privateKeyPEM), true)
                    """, logger: logger)
                return (key.kid, retired)
            }
        }
    }

    // MARK: Launches

    /// The tool's keys that are published: the current one first, then those rotated out in
    /// the last seven days.
    func toolKeys() async throws -> [LTIToolKey] {
        try await translating("reading the LTI tool keys") {
            try await client.query("SELECT kid, public_key, private_key FROM clsfile.lti_tool_keys()", logger: logger)
                .decode((String, String, String?).self).collected().map { LTIToolKey(kid: $0.0, publicKeyPEM: $0.1, privateKeyPEM: $0.2) }
        }
    }

    /// The platform of an issuer, and of a client id when the request gives one.
    /// - Throws: ``ServerError`` `.unauthorized` when none is registered, or when the issuer has
    ///   two registrations and the request names no client id.
    func ltiPlatform(issuer: String, clientID: String?) async throws -> LTIPlatform {
        let rows = try await translating("looking up an LTI platform") {
            try await client.query(
                """
                SELECT id, issuer, client_id, auth_login_url, auth_token_url, jwks_url, deployments
                FROM clsfile.lti_platform_named(\(issuer), \(clientID))
                """, logger: logger
            ).decode((UUID, String, String, String, String, String, [String]).self).collected().map(Self.platform)
        }
        guard let platform = rows.first else {
            throw ServerError(
                .unauthorized,
                "no LMS with the issuer \(issuer.prefix(200))\(clientID.map { " and the client id \($0.prefix(100))" } ?? "") is registered with this server: ask the LMS administrator to give the server's administrator the platform's details, who registers them with clsfile-server lti register"
            )
        }
        guard rows.count == 1 else {
            throw ServerError(
                .unauthorized,
                "the LMS \(issuer.prefix(200)) is registered here more than once and the login names no client id: ask the LMS administrator to have it send client_id in the login"
            )
        }
        return platform
    }

    /// Records a login begun: the hash of its `state`, and its `nonce`, good for `lifetime` seconds.
    func beginLTILogin(_ login: LTILogin, stateHash: Data, lifetime: Int) async throws {
        _ = try await translating("beginning an LTI login") {
            try await client.query(
                """
                SELECT clsfile.lti_begin_login(\(stateHash), \(login.platformID), \(login.nonce), \(login.targetLinkURI),
                                               \(login.deploymentID), \(lifetime))
                """, logger: logger)
        }
    }

    /// Takes the login of a `state`, once, with its platform: nil when no login has it (never
    /// begun, launched already, or pruned).
    func takeLTILogin(stateHash: Data) async throws -> (login: LTILogin, platform: LTIPlatform, expired: Bool)? {
        try await translating("taking an LTI login") {
            guard
                let row = try await client.query(
                    """
                    SELECT nonce, target_link_uri, deployment_id, expired, id, issuer, client_id, auth_login_url, auth_token_url,
                           jwks_url, deployments
                    FROM clsfile.lti_take_login(\(stateHash))
                    """, logger: logger
                ).decode((String, String, String?, Bool, UUID, String, String, String, String, String, [String]).self).collected().first
            else { return nil }
            let platform = try Self.platform((row.4, row.5, row.6, row.7, row.8, row.9, row.10))
            return (LTILogin(platformID: platform.id, nonce: row.0, targetLinkURI: row.1, deploymentID: row.2), platform, row.3)
        }
    }

    /// What an instructor's launch finds or makes: their account, their course's class, and the
    /// key the server signs their pages' tokens with.
    struct InstructorLaunch: Sendable {
        var accountID: UUID
        var classID: UUID
        var className: String
        var pageKey: P256.Signing.PrivateKey
        /// Whether the teacher's clsfile is tied to the account (their recipient key is on it),
        /// without which their handouts cannot be tied to the class.
        var isLinked: Bool
    }

    /// An instructor's launch: their account, made at their first launch, and their course's
    /// class, made at its first instructor's launch and named after the course.
    /// - Throws: ``ServerError`` `.forbidden` when the course's class has another teacher.
    func instructorLaunch(_ launch: LTILaunch, platform: LTIPlatform) async throws -> InstructorLaunch {
        let newKey = P256.Signing.PrivateKey()
        let publicKey = newKey.publicKey.x963Representation
        let title = Self.className(of: launch)
        return try await translating("an instructor's LTI launch") {
            do {
                let rows = try await client.query(
                    """
                    SELECT account_id, class_id, class_name, page_key, linked FROM clsfile.lti_instructor_launch(
                        \(platform.id), \(launch.deploymentID), \(launch.context.id), \(title), \(launch.subject),
                        \(launch.displayName), \(newKey.rawRepresentation), \(Identity.keyIdentifier(of: publicKey)), \(publicKey),
                        \(JoinCode.random()))
                    """, logger: logger
                ).decode((UUID, UUID, String, Data, Bool).self).collected()
                guard let (account, classID, className, pageKey, linked) = rows.first else {
                    throw ServerError(.database, "an instructor's LTI launch returned nothing")
                }
                return InstructorLaunch(
                    accountID: account, classID: classID, className: className,
                    pageKey: try P256.Signing.PrivateKey(rawRepresentation: pageKey), isLinked: linked)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "CL001" {
                let teacher = error.serverInfo?[.message] ?? "another teacher"
                throw ServerError(
                    .forbidden,
                    "this course's class on clsfile belongs to \(teacher), who opened it first; a course has one teacher here: ask \(teacher) to share the class's pages with you"
                )
            }
        }
    }

    /// A class's name from its course: the title, else the label, else the id.
    private static func className(of launch: LTILaunch) -> String {
        LTIShownName.first(of: [launch.context.title, launch.context.label], otherwise: "Course \(launch.context.id)")
    }

    /// A learner's launch: their course's class, and a one-use token (by its hash) to tie a
    /// device to them, good for `lifetime` seconds.
    /// - Returns: The class, and whether a device of theirs is tied to it already.
    /// - Throws: ``ServerError`` `.notFound` when no instructor of the course has opened it yet.
    func learnerLaunch(_ launch: LTILaunch, platform: LTIPlatform, tokenHash: Data, lifetime: Int) async throws -> (
        classID: UUID, className: String, isLinked: Bool
    ) {
        let refusals = [
            "P0002": ServerError(
                .notFound,
                "this course has no class on clsfile yet: its teacher makes it by opening clsfile from the course once; try again after that"
            )
        ]
        return try await translating("a learner's LTI launch", refusing: refusals) {
            let rows = try await client.query(
                """
                SELECT class_id, class_name, linked FROM clsfile.lti_learner_launch(
                    \(platform.id), \(launch.deploymentID), \(launch.context.id), \(launch.subject), \(launch.displayName), \(tokenHash), \(lifetime))
                """, logger: logger
            ).decode((UUID, String, Bool).self).collected()
            guard let (classID, className, linked) = rows.first else {
                throw ServerError(.database, "a learner's LTI launch returned nothing")
            }
            return (classID, className, linked)
        }
    }

    /// A one-use token (by its hash) for an instructor to tie their clsfile's teacher role to the
    /// account their launches made, good for `lifetime` seconds.
    func teacherLinkToken(_ launch: LTILaunch, platform: LTIPlatform, classID: UUID, tokenHash: Data, lifetime: Int) async throws {
        _ = try await translating("making an LTI link token") {
            try await client.query(
                """
                SELECT clsfile.lti_teacher_link_token(
                    \(platform.id), \(launch.subject), \(launch.displayName), \(classID), \(tokenHash), \(lifetime))
                """, logger: logger)
        }
    }

    /// What tying a device to an LMS person did.
    public struct LTILink: Sendable, Equatable {
        public var accountID: UUID
        public var role: Account.Role
        public var classID: UUID
        public var className: String
        /// For a student, the class's teacher's recipient key (P-256, X9.63).
        public var teacherKey: Data?
    }

    /// Ties a device's key to the LMS person a launch gave `token` to: a student's joins the
    /// course's class; a teacher's (with their recipient key) goes on the account their
    /// launches made.
    /// - Throws: ``ServerError`` `.notFound` for a token unknown, used or expired; `.invalidValue`
    ///   for a key id taken by another key, a key of another role or of another account.
    public func link(token: String, publicKey: P256.Signing.PublicKey, recipientKey: P256.KeyAgreement.PublicKey?) async throws
        -> LTILink
    {
        let key = publicKey.x963Representation
        let kid = Identity.keyIdentifier(of: key)
        let refusals = [
            "P0002": ServerError(
                .notFound,
                "the link token is not one this server gave, was used already, or is older than 15 minutes: open clsfile from your course in the LMS again for a new one"
            ),
            "23505": ServerError(.invalidValue, "the key id \(kid) is registered here to another key: link with the key of your role"),
            "23514": ServerError(
                .invalidValue,
                "the key \(kid) is registered here in the other role: link a student's launch with the student role and a teacher's with the teacher role (clsfile role)"
            ),
            "CL002": ServerError(
                .invalidValue,
                "the key \(kid) is registered here to another account than the LMS person this token is for (another student's, or one an administrator added): tie a device with the token of your own launch, with your own clsfile"
            )
        ]
        return try await translating("linking a device to an LMS identity", refusing: refusals) {
            try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.run(
                    """
                    SELECT account_id, role, class_id, class_name
                    FROM clsfile.lti_link(\(LTILinkToken.hash(token)), \(kid), \(key), \(recipientKey?.x963Representation))
                    """, logger: logger
                ).decode((UUID, String, UUID, String).self).collected()
                guard let (account, role, classID, className) = rows.first, let role = Account.Role(rawValue: role) else {
                    throw ServerError(.database, "linking a device returned nothing")
                }
                let teacherKey =
                    role == .student
                    ? try await Self.teacherKey(
                        ofClass: classID, named: className, as: account, on: connection, logger: logger,
                        remedy:
                            "your teacher ties their clsfile to the class from the course's page in the LMS; ask them, and open clsfile from the course again for a new token"
                    )
                    : nil
                return LTILink(accountID: account, role: role, classID: classID, className: className, teacherKey: teacherKey)
            }
        }
    }
}
