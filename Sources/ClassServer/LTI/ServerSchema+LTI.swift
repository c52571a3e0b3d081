extension ServerSchema {
    /// The server as an LTI 1.3 tool of a school's LMS (see `LTIRoutes`).
    ///
    /// - `lti_platform` and `lti_deployment`: the LMSes registered by the administrator
    ///   (`clsfile-server lti register`), each by its issuer and the client id it gave this tool,
    ///   with the deployments whose launches the server takes.
    /// - `lti_tool_key`: the tool's own RSA keys, one current, published at `/lti/jwks`.
    /// - `lti_login`: the logins begun and not yet launched, by the hash of their `state`, each
    ///   with its single-use `nonce`; a launch takes its row, so no state or nonce serves twice.
    /// - `lti_user`: an LMS person (the platform's `sub`) in a role, and their account here. A
    ///   teacher's row holds the key the server signs their pages' tokens with (``pageKey``).
    /// - `lti_context`: the class of an LMS course (`context.id`), made at its first
    ///   instructor's launch.
    /// - `lti_link_token`: the one-use tokens a launch gives a person to tie their device's key
    ///   to their LMS identity (`clsfile join URL --lti TOKEN`), by hash.
    ///
    /// None of these is read by a request's caller: the launch runs before any caller is known,
    /// so each step is a `SECURITY DEFINER` function, and the tables have no policy for the app
    /// role but a teacher's look at their classes' courses.
    static let version8: [String] = [
        """
        CREATE TABLE clsfile.lti_platform (
            id uuid PRIMARY KEY,
            issuer text NOT NULL CHECK (length(issuer) BETWEEN 1 AND 1024),
            client_id text NOT NULL CHECK (length(client_id) BETWEEN 1 AND 255),
            auth_login_url text NOT NULL CHECK (length(auth_login_url) BETWEEN 1 AND 2048),
            auth_token_url text NOT NULL CHECK (length(auth_token_url) BETWEEN 1 AND 2048),
            jwks_url text NOT NULL CHECK (length(jwks_url) BETWEEN 1 AND 2048),
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (issuer, client_id)
        )
        """,
        """
        CREATE TABLE clsfile.lti_deployment (
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            deployment_id text NOT NULL CHECK (length(deployment_id) BETWEEN 1 AND 255),
            PRIMARY KEY (platform_id, deployment_id)
        )
        """,
        """
        CREATE TABLE clsfile.lti_tool_key (
            kid text PRIMARY KEY CHECK (length(kid) BETWEEN 1 AND 64),
            public_key text NOT NULL,
            private_key text NOT NULL,
            current boolean NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            retired_at timestamptz
        )
        """,
        "CREATE UNIQUE INDEX lti_tool_key_one_current ON clsfile.lti_tool_key (current) WHERE current",
        """
        CREATE TABLE clsfile.lti_login (
            state_hash bytea PRIMARY KEY CHECK (length(state_hash) = 32),
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            nonce text NOT NULL,
            target_link_uri text NOT NULL,
            deployment_id text,
            expires_at timestamptz NOT NULL
        )
        """,
        "CREATE INDEX ON clsfile.lti_login (expires_at)",
        """
        CREATE TABLE clsfile.lti_user (
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            sub text NOT NULL CHECK (length(sub) BETWEEN 1 AND 255),
            role text NOT NULL CHECK (role IN ('teacher', 'student')),
            account_id uuid NOT NULL REFERENCES clsfile.account ON DELETE CASCADE,
            page_key bytea CHECK (page_key IS NULL OR length(page_key) = 32),
            PRIMARY KEY (platform_id, sub, role),
            UNIQUE (platform_id, role, account_id)
        )
        """,
        "CREATE INDEX ON clsfile.lti_user (account_id)",
        """
        CREATE TABLE clsfile.lti_context (
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            context_id text NOT NULL CHECK (length(context_id) BETWEEN 1 AND 255),
            deployment_id text NOT NULL,
            class_id uuid NOT NULL UNIQUE REFERENCES clsfile.class ON DELETE CASCADE,
            PRIMARY KEY (platform_id, deployment_id, context_id)
        )
        """,
        """
        CREATE TABLE clsfile.lti_link_token (
            token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            sub text NOT NULL,
            role text NOT NULL CHECK (role IN ('teacher', 'student')),
            name text NOT NULL,
            class_id uuid NOT NULL REFERENCES clsfile.class ON DELETE CASCADE,
            expires_at timestamptz NOT NULL,
            used_at timestamptz
        )
        """,
        "CREATE INDEX ON clsfile.lti_link_token (expires_at)",
        "ALTER TABLE clsfile.lti_platform ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_deployment ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_tool_key ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_login ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_user ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_context ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_link_token ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY lti_context_taught ON clsfile.lti_context FOR SELECT USING (class_id IN (SELECT clsfile.taught_classes()))",
        // The platform a login or launch names: by issuer, and by client id when it gives one.
        """
        CREATE FUNCTION clsfile.lti_platform_named(wanted_issuer text, wanted_client text)
            RETURNS TABLE (id uuid, issuer text, client_id text, auth_login_url text, auth_token_url text, jwks_url text,
                           deployments text[])
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ SELECT p.id, p.issuer, p.client_id, p.auth_login_url, p.auth_token_url, p.jwks_url,
                         coalesce((SELECT array_agg(d.deployment_id ORDER BY d.deployment_id) FROM clsfile.lti_deployment d
                                   WHERE d.platform_id = p.id), '{}')
                  FROM clsfile.lti_platform p
                  WHERE p.issuer = wanted_issuer AND (wanted_client IS NULL OR p.client_id = wanted_client)
                  ORDER BY p.created_at LIMIT 2 $$
        """,
        // The tool's keys published, the current first, for /lti/jwks; the private key of the
        // current one alone, which signs.
        """
        CREATE FUNCTION clsfile.lti_tool_keys()
            RETURNS TABLE (kid text, public_key text, private_key text)
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ SELECT k.kid, k.public_key, CASE WHEN k.current THEN k.private_key END FROM clsfile.lti_tool_key k
                  WHERE k.current OR k.retired_at > now() - interval '7 days'
                  ORDER BY k.current DESC, k.created_at DESC $$
        """,
        """
        CREATE FUNCTION clsfile.lti_begin_login(wanted_hash bytea, platform uuid, wanted_nonce text, target text,
                                                deployment text, lifetime_seconds bigint)
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ DELETE FROM clsfile.lti_login WHERE ctid IN (
                      SELECT l.ctid FROM clsfile.lti_login l WHERE l.expires_at < now() LIMIT 10);
                  INSERT INTO clsfile.lti_login (state_hash, platform_id, nonce, target_link_uri, deployment_id, expires_at)
                  VALUES (wanted_hash, platform, wanted_nonce, target, deployment,
                          now() + lifetime_seconds * interval '1 second') $$
        """,
        // A launch takes its login, with its platform: a state serves once, and an expired one
        // not at all.
        """
        CREATE FUNCTION clsfile.lti_take_login(wanted_hash bytea)
            RETURNS TABLE (nonce text, target_link_uri text, deployment_id text, expired boolean,
                           id uuid, issuer text, client_id text, auth_login_url text, auth_token_url text, jwks_url text,
                           deployments text[])
            LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ WITH taken AS (DELETE FROM clsfile.lti_login l WHERE l.state_hash = wanted_hash RETURNING l.*)
                  SELECT t.nonce, t.target_link_uri, t.deployment_id, t.expires_at < now(), p.id, p.issuer, p.client_id,
                         p.auth_login_url, p.auth_token_url, p.jwks_url,
                         coalesce((SELECT array_agg(d.deployment_id ORDER BY d.deployment_id) FROM clsfile.lti_deployment d
                                   WHERE d.platform_id = p.id), '{}')
                  FROM taken t JOIN clsfile.lti_platform p ON p.id = t.platform_id $$
        """,
        // An instructor's launch: their account (made at their first launch, with the key the
        // server signs their pages' tokens with) and their course's class (made at the course's
        // first instructor launch). A course's class has one teacher: another instructor of it
        // is refused (SQLSTATE CL001) with the name of the teacher it has.
        """
        CREATE FUNCTION clsfile.lti_instructor_launch(platform uuid, deployment text, context text, context_title text,
                                                      person text, person_name text, new_page_key bytea,
                                                      new_kid text, new_public_key bytea, new_join_code text)
            RETURNS TABLE (account_id uuid, class_id uuid, class_name text, page_key bytea, linked boolean)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                teacher clsfile.lti_user%ROWTYPE;
                found_class clsfile.class%ROWTYPE;
                other_name text;
            BEGIN
                SELECT * INTO teacher FROM clsfile.lti_user u
                    WHERE u.platform_id = platform AND u.sub = person AND u.role = 'teacher' FOR UPDATE;
                IF NOT FOUND THEN
                    teacher.account_id := gen_random_uuid();
                    INSERT INTO clsfile.account (id, role, name) VALUES (teacher.account_id, 'teacher', person_name);
                    INSERT INTO clsfile.device_key (kid, account_id, public_key) VALUES (new_kid, teacher.account_id, new_public_key);
                    INSERT INTO clsfile.lti_user (platform_id, sub, role, account_id, page_key)
                        VALUES (platform, person, 'teacher', teacher.account_id, new_page_key)
                        RETURNING * INTO teacher;
                END IF;
                SELECT c.* INTO found_class FROM clsfile.lti_context x JOIN clsfile.class c ON c.id = x.class_id
                    WHERE x.platform_id = platform AND x.deployment_id = deployment AND x.context_id = context;
                IF NOT FOUND THEN
                    INSERT INTO clsfile.class (id, teacher_id, name, join_code)
                        VALUES (gen_random_uuid(), teacher.account_id, context_title, new_join_code)
                        RETURNING * INTO found_class;
                    INSERT INTO clsfile.lti_context (platform_id, context_id, deployment_id, class_id)
                        VALUES (platform, context, deployment, found_class.id);
                ELSIF found_class.teacher_id <> teacher.account_id THEN
                    SELECT a.name INTO other_name FROM clsfile.account a WHERE a.id = found_class.teacher_id;
                    RAISE EXCEPTION '%', other_name USING ERRCODE = 'CL001';
                END IF;
                RETURN QUERY SELECT teacher.account_id, found_class.id, found_class.name, teacher.page_key,
                    EXISTS (SELECT 1 FROM clsfile.account a WHERE a.id = teacher.account_id AND a.recipient_key IS NOT NULL);
            END $$
        """,
        // A learner's launch: their course's class (none before its first instructor launch:
        // SQLSTATE P0002), a one-use token to tie a device to them, and whether a device is tied
        // already.
        """
        CREATE FUNCTION clsfile.lti_learner_launch(platform uuid, deployment text, context text, person text, person_name text,
                                                   wanted_hash bytea, lifetime_seconds bigint)
            RETURNS TABLE (class_id uuid, class_name text, linked boolean)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                found_class clsfile.class%ROWTYPE;
            BEGIN
                SELECT c.* INTO found_class FROM clsfile.lti_context x JOIN clsfile.class c ON c.id = x.class_id
                    WHERE x.platform_id = platform AND x.deployment_id = deployment AND x.context_id = context;
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'no class for the course %', context USING ERRCODE = 'no_data_found';
                END IF;
                INSERT INTO clsfile.lti_link_token (token_hash, platform_id, sub, role, name, class_id, expires_at)
                    VALUES (wanted_hash, platform, person, 'student', person_name, found_class.id,
                            now() + lifetime_seconds * interval '1 second');
                RETURN QUERY SELECT found_class.id, found_class.name, EXISTS (
                    SELECT 1 FROM clsfile.lti_user u JOIN clsfile.enrolment e ON e.student_id = u.account_id
                    WHERE u.platform_id = platform AND u.sub = person AND u.role = 'student' AND e.class_id = found_class.id);
            END $$
        """,
        // An instructor's token to tie their clsfile's teacher role to their LMS account.
        """
        CREATE FUNCTION clsfile.lti_teacher_link_token(platform uuid, person text, person_name text, wanted_class uuid,
                                                       wanted_hash bytea, lifetime_seconds bigint)
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ INSERT INTO clsfile.lti_link_token (token_hash, platform_id, sub, role, name, class_id, expires_at)
                  VALUES (wanted_hash, platform, person, 'teacher', person_name, wanted_class,
                          now() + lifetime_seconds * interval '1 second') $$
        """,
        // A device tied to an LMS person with a token a launch gave them (used once, within its
        // life; else SQLSTATE P0002). A student's key joins the token's class (their account made
        // at their first link, or found by the key when it joined with a code before); a
        // teacher's key and recipient key go on the account their launches made.
        """
        CREATE FUNCTION clsfile.lti_link(wanted_hash bytea, wanted_kid text, key bytea, recipient bytea)
            RETURNS TABLE (account_id uuid, role text, class_id uuid, class_name text)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                token clsfile.lti_link_token%ROWTYPE;
                person clsfile.lti_user%ROWTYPE;
                found_key clsfile.device_key%ROWTYPE;
                account uuid;
            BEGIN
                UPDATE clsfile.lti_link_token t SET used_at = now()
                    WHERE t.token_hash = wanted_hash AND t.used_at IS NULL AND t.expires_at > now()
                    RETURNING * INTO token;
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'no such link token' USING ERRCODE = 'no_data_found';
                END IF;
                IF (token.role = 'teacher') <> (recipient IS NOT NULL) THEN
                    RAISE EXCEPTION 'a % token with a key of the other role', token.role USING ERRCODE = 'check_violation';
                END IF;
                SELECT * INTO person FROM clsfile.lti_user u
                    WHERE u.platform_id = token.platform_id AND u.sub = token.sub AND u.role = token.role FOR UPDATE;
                SELECT * INTO found_key FROM clsfile.device_key k WHERE k.kid = wanted_kid;
                IF FOUND AND found_key.public_key <> key THEN
                    RAISE EXCEPTION 'the key id % is taken by another key', wanted_kid USING ERRCODE = 'unique_violation';
                END IF;
                IF person.account_id IS NOT NULL THEN
                    account := person.account_id;
                    IF found_key.account_id IS NOT NULL AND found_key.account_id <> account THEN
                        RAISE EXCEPTION 'the key % is another account''s', wanted_kid USING ERRCODE = 'CL002';
                    END IF;
                ELSIF found_key.account_id IS NOT NULL THEN
                    account := found_key.account_id;
                    IF (SELECT a.role FROM clsfile.account a WHERE a.id = account) <> token.role THEN
                        RAISE EXCEPTION 'the key % is of another role', wanted_kid USING ERRCODE = 'check_violation';
                    END IF;
                    -- An account is one LMS person: a key tied to another person's account is refused.
                    IF EXISTS (SELECT 1 FROM clsfile.lti_user u WHERE u.platform_id = token.platform_id
                               AND u.role = token.role AND u.account_id = account) THEN
                        RAISE EXCEPTION 'the key % is another LMS person''s', wanted_kid USING ERRCODE = 'CL002';
                    END IF;
                    INSERT INTO clsfile.lti_user (platform_id, sub, role, account_id)
                        VALUES (token.platform_id, token.sub, token.role, account);
                ELSE
                    account := gen_random_uuid();
                    INSERT INTO clsfile.account (id, role, name) VALUES (account, token.role, token.name);
                    INSERT INTO clsfile.lti_user (platform_id, sub, role, account_id)
                        VALUES (token.platform_id, token.sub, token.role, account);
                END IF;
                IF found_key.kid IS NULL THEN
                    INSERT INTO clsfile.device_key (kid, account_id, public_key) VALUES (wanted_kid, account, key);
                END IF;
                IF token.role = 'student' THEN
                    INSERT INTO clsfile.enrolment (class_id, student_id) VALUES (token.class_id, account) ON CONFLICT DO NOTHING;
                ELSIF recipient IS NOT NULL THEN
                    UPDATE clsfile.account a SET recipient_key = recipient WHERE a.id = account;
                END IF;
                RETURN QUERY SELECT account, token.role, c.id, c.name FROM clsfile.class c WHERE c.id = token.class_id;
            END $$
        """,
        """
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]
}
