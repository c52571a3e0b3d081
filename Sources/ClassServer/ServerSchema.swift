import Foundation
/// The class server's tables in PostgreSQL, and the row-level security that keeps each account to
/// its own rows whatever the request handlers do.
///
/// Everything lives in the schema `clsfile`, owned by the role that runs `clsfile-server migrate`.
/// The server runs as another role (the *app role*) that owns nothing and bypasses nothing: it
/// reads and writes through the policies below, with the caller's account set for the
/// transaction (`clsfile.account`). Without it every policy sees no one and every table is empty.
///
/// A few things must happen before the caller is known (looking up the key a token names, joining
/// a class with a code); each is a `SECURITY DEFINER` function that does that one thing, which the
/// app role may call and nothing else may.
enum ServerSchema {
    /// The migrations, in order; the schema's version is how many have run. A shipped migration
    /// never changes: a later change is a new one.
    static let migrations: [[String]] = [
        version1, version2, version3, version4, version5, version6, version7, version8, version9, version10, version11,
        version12
    ]

    /// Accounts, device keys, classes, enrolments, students' work and the operations applied.
    static let version1: [String] = [
        """
        CREATE TABLE clsfile.account (
            id uuid PRIMARY KEY,
            role text NOT NULL CHECK (role IN ('teacher', 'student')),
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE clsfile.device_key (
            kid text PRIMARY KEY CHECK (length(kid) BETWEEN 1 AND 64),
            account_id uuid NOT NULL REFERENCES clsfile.account ON DELETE CASCADE,
            public_key bytea NOT NULL CHECK (length(public_key) = 65),
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        "CREATE INDEX ON clsfile.device_key (account_id)",
        """
        CREATE TABLE clsfile.class (
            id uuid PRIMARY KEY,
            teacher_id uuid NOT NULL REFERENCES clsfile.account,
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
            join_code text NOT NULL UNIQUE,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        "CREATE INDEX ON clsfile.class (teacher_id)",
        """
        CREATE TABLE clsfile.enrolment (
            class_id uuid NOT NULL REFERENCES clsfile.class ON DELETE CASCADE,
            student_id uuid NOT NULL REFERENCES clsfile.account ON DELETE CASCADE,
            joined_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (class_id, student_id)
        )
        """,
        "CREATE INDEX ON clsfile.enrolment (student_id)",
        """
        CREATE TABLE clsfile.work (
            class_id uuid NOT NULL,
            student_id uuid NOT NULL,
            assignment_id text NOT NULL CHECK (length(assignment_id) BETWEEN 1 AND 1024),
            detail jsonb NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (student_id, assignment_id),
            FOREIGN KEY (class_id, student_id) REFERENCES clsfile.enrolment ON DELETE CASCADE
        )
        """,
        "CREATE INDEX ON clsfile.work (class_id)",
        """
        CREATE TABLE clsfile.applied_operation (
            student_id uuid NOT NULL REFERENCES clsfile.account ON DELETE CASCADE,
            operation_id uuid NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (student_id, operation_id)
        )
        """,
        // The caller, set for each transaction with set_config('clsfile.account', ID, true); NULL unset.
        """

        CREATE FUNCTION clsfile.caller() RETURNS uuid LANGUAGE sql STABLE
            AS $$ SELECT nullif(current_setting('clsfile.account', true), '')::uuid $$
        """,
        // The caller's classes, read past the policies (a policy of class that read enrolment,
        // whose policy read class, would recurse).
        """
        CREATE FUNCTION clsfile.taught_classes() RETURNS SETOF uuid LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ SELECT id FROM clsfile.class WHERE teacher_id = clsfile.caller() $$
        """,
        """
        CREATE FUNCTION clsfile.joined_classes() RETURNS SETOF uuid LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ SELECT class_id FROM clsfile.enrolment WHERE student_id = clsfile.caller() $$
        """,
        // The account and key a token's kid names, before the caller is known.
        """
        CREATE FUNCTION clsfile.device_key_named(wanted text)
            RETURNS TABLE (account_id uuid, role text, public_key bytea) LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ SELECT k.account_id, a.role, k.public_key FROM clsfile.device_key k
                  JOIN clsfile.account a ON a.id = k.account_id WHERE k.kid = wanted $$
        """,
        // A student joins a class with its code: the key makes the account the first time.
        """
        CREATE FUNCTION clsfile.join_class(code text, student_name text, wanted_kid text, key bytea)
            RETURNS TABLE (account_id uuid, class_id uuid, class_name text) LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                found_class clsfile.class%ROWTYPE;
                found_key clsfile.device_key%ROWTYPE;
                found_role text;
                student uuid;
            BEGIN
                SELECT * INTO found_class FROM clsfile.class c WHERE c.join_code = upper(code);
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'no class has the join code %', code USING ERRCODE = 'no_data_found';
                END IF;
                SELECT * INTO found_key FROM clsfile.device_key k WHERE k.kid = wanted_kid;
                IF FOUND THEN
                    IF found_key.public_key <> key THEN
                        RAISE EXCEPTION 'the key id % is taken by another key', wanted_kid USING ERRCODE = 'unique_violation';
                    END IF;
                    SELECT a.role INTO found_role FROM clsfile.account a WHERE a.id = found_key.account_id;
                    IF found_role <> 'student' THEN
                        RAISE EXCEPTION 'the key % is a teacher''s, which cannot join a class', wanted_kid USING ERRCODE = 'check_violation';
                    END IF;
                    student := found_key.account_id;
                ELSE
                    student := gen_random_uuid();
                    INSERT INTO clsfile.account (id, role, name) VALUES (student, 'student', student_name);
                    INSERT INTO clsfile.device_key (kid, account_id, public_key) VALUES (wanted_kid, student, key);
                END IF;
                INSERT INTO clsfile.enrolment (class_id, student_id) VALUES (found_class.id, student)
                    ON CONFLICT DO NOTHING;
                RETURN QUERY SELECT student, found_class.id, found_class.name;
            END $$
        """,
        """

        ALTER TABLE clsfile.account ENABLE ROW LEVEL SECURITY
        """,
        "ALTER TABLE clsfile.device_key ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.class ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.enrolment ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.work ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.applied_operation ENABLE ROW LEVEL SECURITY",
        // One's own account, one's students, one's teachers.
        """

        CREATE POLICY account_seen ON clsfile.account FOR SELECT USING (
            id = clsfile.caller()
            OR id IN (SELECT e.student_id FROM clsfile.enrolment e WHERE e.class_id IN (SELECT clsfile.taught_classes()))
            OR id IN (SELECT c.teacher_id FROM clsfile.class c WHERE c.id IN (SELECT clsfile.joined_classes())))
        """,
        "CREATE POLICY device_key_own ON clsfile.device_key FOR SELECT USING (account_id = clsfile.caller())",
        """
        CREATE POLICY class_seen ON clsfile.class FOR SELECT USING (
            id IN (SELECT clsfile.taught_classes()) OR id IN (SELECT clsfile.joined_classes()))
        """,
        """
        CREATE POLICY enrolment_seen ON clsfile.enrolment FOR SELECT USING (
            student_id = clsfile.caller() OR class_id IN (SELECT clsfile.taught_classes()))
        """,
        // A student writes only their own work, only in a class they joined; a teacher reads their classes'.
        """
        CREATE POLICY work_seen ON clsfile.work FOR SELECT USING (
            student_id = clsfile.caller() OR class_id IN (SELECT clsfile.taught_classes()))
        """,
        """
        CREATE POLICY work_written ON clsfile.work FOR INSERT WITH CHECK (
            student_id = clsfile.caller() AND class_id IN (SELECT clsfile.joined_classes()))
        """,
        """
        CREATE POLICY work_updated ON clsfile.work FOR UPDATE USING (student_id = clsfile.caller())
            WITH CHECK (student_id = clsfile.caller() AND class_id IN (SELECT clsfile.joined_classes()))
        """,
        """
        CREATE POLICY applied_operation_own ON clsfile.applied_operation FOR ALL
            USING (student_id = clsfile.caller()) WITH CHECK (student_id = clsfile.caller())
        """,
        """

        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]

    /// Classes tied to their teacher's handouts: a teacher's recipient key (the key their handouts
    /// carry, which a student's clsfile matches to send each assignment's work only to that
    /// teacher's classes), and work kept per class, so that a student in two classes of one
    /// teacher has the work of each.
    static let version2: [String] = [
        """
        ALTER TABLE clsfile.account ADD COLUMN recipient_key bytea
            CHECK (recipient_key IS NULL OR length(recipient_key) = 65)
        """,
        "ALTER TABLE clsfile.work DROP CONSTRAINT work_pkey",
        "ALTER TABLE clsfile.work ADD PRIMARY KEY (class_id, student_id, assignment_id)",
        // The primary key starts with the class now, which the reports read by.
        "DROP INDEX IF EXISTS clsfile.work_class_id_idx"
    ]

    /// The Catalog API: publishers (a team's key, registered by the administrator), each team's
    /// contexts and thumbnails in two catalogs (development and production), and the record of
    /// each change for `GET /v1/status/{id}`. A publisher reads and writes only its team's rows
    /// (`clsfile.team`, set for the transaction). The policies compare with the team once per
    /// statement (`(SELECT clsfile.publishing_team())`), not once per row.
    static let version3: [String] = [
        """
        CREATE TABLE clsfile.publisher (
            kid text PRIMARY KEY CHECK (length(kid) BETWEEN 1 AND 64),
            team text NOT NULL CHECK (length(team) BETWEEN 1 AND 64),
            public_key bytea NOT NULL CHECK (length(public_key) = 65),
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE TABLE clsfile.catalog_context (
            environment text NOT NULL CHECK (environment IN ('development', 'production')),
            team text NOT NULL,
            path_key text NOT NULL,
            parent_key text,
            depth integer NOT NULL CHECK (depth BETWEEN 1 AND 32),
            data jsonb NOT NULL,
            metadata jsonb,
            thumbnail_id text,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (environment, team, path_key)
        )
        """,
        "CREATE INDEX ON clsfile.catalog_context (environment, team, thumbnail_id) WHERE thumbnail_id IS NOT NULL",
        "CREATE INDEX ON clsfile.catalog_context (environment, team, depth, path_key)",
        "CREATE INDEX ON clsfile.catalog_context (environment, team, parent_key)",
        """
        CREATE TABLE clsfile.catalog_thumbnail (
            environment text NOT NULL CHECK (environment IN ('development', 'production')),
            team text NOT NULL,
            id text NOT NULL,
            media_type text NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg')),
            image bytea NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (environment, team, id)
        )
        """,
        """
        CREATE TABLE clsfile.catalog_request (
            id uuid PRIMARY KEY,
            team text NOT NULL,
            environment text NOT NULL,
            operation text NOT NULL,
            count integer NOT NULL,
            completed_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        // The publishing team, set for each transaction with set_config('clsfile.team', TEAM, true).
        """

        CREATE FUNCTION clsfile.publishing_team() RETURNS text LANGUAGE sql STABLE
            AS $$ SELECT nullif(current_setting('clsfile.team', true), '') $$
        """,
        // The team and key a catalog token's kid names, before the publisher is known.
        """
        CREATE FUNCTION clsfile.publisher_key_named(wanted text)
            RETURNS TABLE (team text, public_key bytea) LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ SELECT p.team, p.public_key FROM clsfile.publisher p WHERE p.kid = wanted $$
        """,
        "ALTER TABLE clsfile.publisher ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.catalog_context ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.catalog_thumbnail ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.catalog_request ENABLE ROW LEVEL SECURITY",
        """
        CREATE POLICY catalog_context_published ON clsfile.catalog_context FOR ALL
            USING (team = (SELECT clsfile.publishing_team())) WITH CHECK (team = (SELECT clsfile.publishing_team()))
        """,
        """
        CREATE POLICY catalog_thumbnail_published ON clsfile.catalog_thumbnail FOR ALL
            USING (team = (SELECT clsfile.publishing_team())) WITH CHECK (team = (SELECT clsfile.publishing_team()))
        """,
        """
        CREATE POLICY catalog_request_own ON clsfile.catalog_request FOR ALL
            USING (team = (SELECT clsfile.publishing_team())) WITH CHECK (team = (SELECT clsfile.publishing_team()))
        """,
        """

        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]

    /// Teachers browse the production catalogs and assign their contexts to a class: each
    /// assignment keeps the contexts it covers as they were (so that a later publish does not
    /// change what students were given); its class's teacher makes and reads it, its students
    /// read it.
    static let version4: [String] = [
        // Whether the caller is a teacher, read past the policy of account.
        """
        CREATE FUNCTION clsfile.caller_is_teacher() RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ SELECT EXISTS (SELECT 1 FROM clsfile.account WHERE id = clsfile.caller() AND role = 'teacher') $$
        """,
        """
        CREATE POLICY catalog_context_browsed ON clsfile.catalog_context FOR SELECT
            USING (environment = 'production' AND (SELECT clsfile.caller_is_teacher()))
        """,
        """
        CREATE POLICY catalog_thumbnail_browsed ON clsfile.catalog_thumbnail FOR SELECT
            USING (environment = 'production' AND (SELECT clsfile.caller_is_teacher()))
        """,
        """
        CREATE TABLE clsfile.catalog_assignment (
            id uuid PRIMARY KEY,
            class_id uuid NOT NULL REFERENCES clsfile.class (id) ON DELETE CASCADE,
            team text NOT NULL,
            path_key text NOT NULL,
            context_title text NOT NULL,
            title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
            due_at timestamptz,
            instructions text CHECK (length(instructions) <= 4000),
            contexts jsonb NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (class_id, team, path_key)
        )
        """,
        "ALTER TABLE clsfile.catalog_assignment ENABLE ROW LEVEL SECURITY",
        """
        CREATE POLICY catalog_assignment_taught ON clsfile.catalog_assignment FOR ALL
            USING (class_id IN (SELECT clsfile.taught_classes())) WITH CHECK (class_id IN (SELECT clsfile.taught_classes()))
        """,
        """
        CREATE POLICY catalog_assignment_joined ON clsfile.catalog_assignment FOR SELECT
            USING (class_id IN (SELECT clsfile.joined_classes()))
        """,
        """
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]

    /// The assignments of teachers' handouts, registered by the class's teacher: what a class's
    /// report shows of each (never what a student's work says), and the assignments on which
    /// the server takes students' work, besides the class's catalog assignments. And the keys of
    /// a teacher's students, for their pages.
    static let version5: [String] = [
        """
        CREATE TABLE clsfile.handout (
            class_id uuid NOT NULL REFERENCES clsfile.class (id) ON DELETE CASCADE,
            assignment_id text NOT NULL CHECK (length(assignment_id) BETWEEN 1 AND 1024),
            detail jsonb NOT NULL,
            registered_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (class_id, assignment_id)
        )
        """,
        "ALTER TABLE clsfile.handout ENABLE ROW LEVEL SECURITY",
        """
        CREATE POLICY handout_taught ON clsfile.handout FOR ALL
            USING (class_id IN (SELECT clsfile.taught_classes())) WITH CHECK (class_id IN (SELECT clsfile.taught_classes()))
        """,
        """
        CREATE POLICY handout_joined ON clsfile.handout FOR SELECT
            USING (class_id IN (SELECT clsfile.joined_classes()))
        """,
        // A teacher reads their students' public keys, so that their pages show each student's
        // key fingerprint (anyone with a class's code names themselves as they like).
        """
        CREATE POLICY device_key_of_students ON clsfile.device_key FOR SELECT USING (
            account_id IN (SELECT e.student_id FROM clsfile.enrolment e WHERE e.class_id IN (SELECT clsfile.taught_classes())))
        """
    ]

    /// What the app role may do: read every table through its policies, write work and applied
    /// operations, and call the functions. Granted again by every `migrate`.
    static func grants(to role: String) -> [String] {
        let role = quoted(role)
        return [
            "GRANT USAGE ON SCHEMA clsfile TO \(role)",
            "GRANT SELECT ON ALL TABLES IN SCHEMA clsfile TO \(role)",
            "GRANT INSERT, UPDATE ON clsfile.work, clsfile.applied_operation TO \(role)",
            "GRANT INSERT, UPDATE, DELETE ON clsfile.catalog_context, clsfile.catalog_thumbnail, clsfile.catalog_request TO \(role)",
            "GRANT INSERT, DELETE ON clsfile.catalog_assignment TO \(role)",
            "GRANT INSERT, UPDATE ON clsfile.handout TO \(role)",
            "GRANT INSERT, UPDATE, DELETE ON clsfile.work_history TO \(role)",
            "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA clsfile TO \(role)"
        ]
    }

    /// An identifier quoted for SQL.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
