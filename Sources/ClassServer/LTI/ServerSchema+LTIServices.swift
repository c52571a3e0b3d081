extension ServerSchema {
    /// Assignments in the LMS's courses, their scores sent to its gradebook (LTI Assignment and
    /// Grade Services), and the courses' rosters (Names and Role Provisioning Services).
    ///
    /// - `lti_deep_link`: an instructor's deep-linking launch waiting for them to choose the
    ///   assignment, by the hash of the id its page carries.
    /// - `lti_resource_link`: a link of a course to one of its class's assignments (the
    ///   `clsfile_assignment` custom parameter a deep link gave it), with the line item of the
    ///   gradebook the platform made for it, learned at the link's launches.
    /// - `lti_score`: the score of a student on a link, due to be sent or sent. The first change
    ///   of the student's work after a score was sent or taken (a trigger on `work`) makes it due,
    ///   the platform's interval (`lti_platform.score_interval`, 10 minutes unless its
    ///   administrator says otherwise) after the last one sent; later changes write nothing until
    ///   it is taken. The server's sender takes what is due for ten minutes, sends it outside any
    ///   sync and marks it sent; a change while it was sent makes it due again; a failure makes it
    ///   due after a delay that grows with each one. Sync never waits on the LMS.
    /// - `lti_roster_member`: the people of a course as the platform's roster last said, read
    ///   by the server after an instructor's launch marks the course's roster due
    ///   (`lti_context.roster_due`), so that the teacher sees who has not tied a device yet.
    /// - `lti_registration_code`: the one-use codes that let an LMS register itself (LTI Dynamic
    ///   Registration), so that no LMS registers without the server's administrator.
    static let version9: [String] = [
        """
        CREATE TABLE clsfile.lti_deep_link (
            id_hash bytea PRIMARY KEY CHECK (length(id_hash) = 32),
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            deployment_id text NOT NULL,
            class_id uuid NOT NULL REFERENCES clsfile.class ON DELETE CASCADE,
            teacher_id uuid NOT NULL REFERENCES clsfile.account ON DELETE CASCADE,
            launch_url text NOT NULL,
            return_url text NOT NULL,
            data text,
            expires_at timestamptz NOT NULL
        )
        """,
        """
        CREATE TABLE clsfile.lti_resource_link (
            platform_id uuid NOT NULL REFERENCES clsfile.lti_platform ON DELETE CASCADE,
            resource_link_id text NOT NULL CHECK (length(resource_link_id) BETWEEN 1 AND 255),
            class_id uuid NOT NULL REFERENCES clsfile.class ON DELETE CASCADE,
            assignment_id text NOT NULL,
            line_item_url text,
            score_maximum double precision NOT NULL DEFAULT 100 CHECK (score_maximum > 0),
            grading_progress text NOT NULL DEFAULT 'Pending' CHECK (grading_progress IN ('Pending', 'FullyGraded')),
            PRIMARY KEY (platform_id, resource_link_id)
        )
        """,
        "CREATE INDEX ON clsfile.lti_resource_link (class_id, assignment_id)",
        """
        CREATE TABLE clsfile.lti_score (
            platform_id uuid NOT NULL,
            resource_link_id text NOT NULL,
            student_id uuid NOT NULL REFERENCES clsfile.account ON DELETE CASCADE,
            due boolean NOT NULL DEFAULT true,
            not_before timestamptz NOT NULL DEFAULT now(),
            taken_until timestamptz,
            last_sent_at timestamptz,
            attempts integer NOT NULL DEFAULT 0,
            last_error text,
            PRIMARY KEY (platform_id, resource_link_id, student_id),
            FOREIGN KEY (platform_id, resource_link_id) REFERENCES clsfile.lti_resource_link ON DELETE CASCADE
        )
        """,
        "CREATE INDEX ON clsfile.lti_score (not_before) WHERE due",
        "CREATE INDEX ON clsfile.lti_score (taken_until) WHERE taken_until IS NOT NULL",
        """
        ALTER TABLE clsfile.lti_platform ADD COLUMN score_interval integer NOT NULL DEFAULT 600
            CHECK (score_interval BETWEEN 1 AND 86400)
        """,
        "ALTER TABLE clsfile.lti_context ADD COLUMN memberships_url text",
        "ALTER TABLE clsfile.lti_context ADD COLUMN roster_due boolean NOT NULL DEFAULT false",
        "ALTER TABLE clsfile.lti_context ADD COLUMN roster_read_at timestamptz",
        "ALTER TABLE clsfile.lti_context ADD COLUMN roster_error text",
        """
        CREATE TABLE clsfile.lti_roster_member (
            platform_id uuid NOT NULL,
            deployment_id text NOT NULL,
            context_id text NOT NULL,
            sub text NOT NULL,
            name text NOT NULL,
            learner boolean NOT NULL,
            PRIMARY KEY (platform_id, deployment_id, context_id, sub),
            FOREIGN KEY (platform_id, deployment_id, context_id) REFERENCES clsfile.lti_context ON DELETE CASCADE
        )
        """,
        "ALTER TABLE clsfile.lti_roster_member ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_deep_link ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_resource_link ENABLE ROW LEVEL SECURITY",
        "ALTER TABLE clsfile.lti_score ENABLE ROW LEVEL SECURITY",
        """
        CREATE POLICY lti_resource_link_taught ON clsfile.lti_resource_link FOR SELECT
            USING (class_id IN (SELECT clsfile.taught_classes()))
        """,
        """
        CREATE FUNCTION clsfile.lti_begin_deep_link(wanted_hash bytea, platform uuid, deployment text, wanted_class uuid,
                                                    teacher uuid, launch text, return_to text, echoed text, lifetime_seconds bigint)
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ INSERT INTO clsfile.lti_deep_link (id_hash, platform_id, deployment_id, class_id, teacher_id, launch_url,
                                                     return_url, data, expires_at)
                  VALUES (wanted_hash, platform, deployment, wanted_class, teacher, launch, return_to, echoed,
                          now() + lifetime_seconds * interval '1 second') $$
        """,
        // The deep link of an id, taken once (and none once expired), with its platform's issuer
        // and client id, which the answer is signed for.
        """
        CREATE FUNCTION clsfile.lti_take_deep_link(wanted_hash bytea)
            RETURNS TABLE (platform_id uuid, issuer text, client_id text, deployment_id text, class_id uuid, teacher_id uuid,
                           launch_url text, return_url text, data text)
            LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ WITH taken AS (DELETE FROM clsfile.lti_deep_link d WHERE d.id_hash = wanted_hash RETURNING d.*)
                  SELECT t.platform_id, p.issuer, p.client_id, t.deployment_id, t.class_id, t.teacher_id, t.launch_url, t.return_url,
                         t.data
                  FROM taken t JOIN clsfile.lti_platform p ON p.id = t.platform_id WHERE t.expires_at > now() $$
        """,
        // A launch of a link to an assignment: the link kept with the line item the launch
        // names, and, when the line item is new, the score of each LMS student of the class
        // with work on the assignment marked due.
        """
        CREATE FUNCTION clsfile.lti_link_resource(platform uuid, link text, wanted_class uuid, assignment text,
                                                  line_item text, maximum double precision, grading text)
            RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                before text;
            BEGIN
                SELECT r.line_item_url INTO before FROM clsfile.lti_resource_link r
                    WHERE r.platform_id = platform AND r.resource_link_id = link;
                INSERT INTO clsfile.lti_resource_link (platform_id, resource_link_id, class_id, assignment_id, line_item_url,
                                                       score_maximum, grading_progress)
                    VALUES (platform, link, wanted_class, assignment, line_item, maximum, grading)
                    ON CONFLICT (platform_id, resource_link_id) DO UPDATE
                    SET line_item_url = coalesce(excluded.line_item_url, clsfile.lti_resource_link.line_item_url),
                        assignment_id = excluded.assignment_id, score_maximum = excluded.score_maximum,
                        grading_progress = excluded.grading_progress;
                IF line_item IS NOT NULL AND before IS DISTINCT FROM line_item THEN
                    INSERT INTO clsfile.lti_score (platform_id, resource_link_id, student_id)
                        SELECT platform, link, w.student_id FROM clsfile.work w
                        JOIN clsfile.lti_user u ON u.platform_id = platform AND u.account_id = w.student_id AND u.role = 'student'
                        WHERE w.class_id = wanted_class AND w.assignment_id = assignment
                        ON CONFLICT (platform_id, resource_link_id, student_id) DO UPDATE SET due = true
                        WHERE NOT clsfile.lti_score.due;
                END IF;
            END $$
        """,
        // A student's work changed: their score on each link to the assignment is due, the
        // platform's interval after the last one sent at the earliest; one due already is not
        // written again.
        """
        CREATE FUNCTION clsfile.lti_work_changed() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                INSERT INTO clsfile.lti_score (platform_id, resource_link_id, student_id)
                    SELECT r.platform_id, r.resource_link_id, NEW.student_id FROM clsfile.lti_resource_link r
                    JOIN clsfile.lti_user u ON u.platform_id = r.platform_id AND u.account_id = NEW.student_id AND u.role = 'student'
                    WHERE r.class_id = NEW.class_id AND r.assignment_id = NEW.assignment_id AND r.line_item_url IS NOT NULL
                      -- A score due already is only read: an insert that conflicts would lock its row.
                      AND NOT EXISTS (SELECT 1 FROM clsfile.lti_score s WHERE s.platform_id = r.platform_id
                                      AND s.resource_link_id = r.resource_link_id AND s.student_id = NEW.student_id AND s.due)
                    ON CONFLICT (platform_id, resource_link_id, student_id) DO UPDATE
                    SET due = true, not_before = greatest(now(), clsfile.lti_score.last_sent_at
                            + (SELECT p.score_interval FROM clsfile.lti_platform p WHERE p.id = clsfile.lti_score.platform_id)
                              * interval '1 second')
                    WHERE NOT clsfile.lti_score.due;
                RETURN NULL;
            END $$
        """,
        """
        CREATE TRIGGER lti_work_changed AFTER INSERT OR UPDATE OF detail ON clsfile.work
            FOR EACH ROW EXECUTE FUNCTION clsfile.lti_work_changed()
        """,
        // The scores due, taken for ten minutes (a sender that dies leaves them due again then),
        // with what sending each needs: the line item, the student's LMS id, the work, the platform.
        """
        CREATE FUNCTION clsfile.lti_scores_due(most bigint)
            RETURNS TABLE (platform_id uuid, resource_link_id text, student_id uuid, attempts integer,
                           line_item_url text, score_maximum double precision, grading_progress text, sub text,
                           assignment_id text, detail text, updated_at timestamptz,
                           issuer text, client_id text, auth_token_url text)
            LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            WITH due AS (
                SELECT s.platform_id, s.resource_link_id, s.student_id FROM clsfile.lti_score s
                WHERE (s.due AND s.not_before <= now() AND s.taken_until IS NULL) OR s.taken_until < now()
                ORDER BY s.not_before LIMIT most FOR UPDATE SKIP LOCKED),
            claimed AS (
                UPDATE clsfile.lti_score s SET due = false, taken_until = now() + interval '10 minutes' FROM due
                WHERE s.platform_id = due.platform_id AND s.resource_link_id = due.resource_link_id AND s.student_id = due.student_id
                RETURNING s.*)
            SELECT c.platform_id, c.resource_link_id, c.student_id, c.attempts, r.line_item_url, r.score_maximum,
                   r.grading_progress, u.sub, r.assignment_id, w.detail::text, w.updated_at, p.issuer, p.client_id, p.auth_token_url
            FROM claimed c
            JOIN clsfile.lti_resource_link r ON r.platform_id = c.platform_id AND r.resource_link_id = c.resource_link_id
            JOIN clsfile.lti_user u ON u.platform_id = c.platform_id AND u.account_id = c.student_id AND u.role = 'student'
            JOIN clsfile.work w ON w.class_id = r.class_id AND w.student_id = c.student_id AND w.assignment_id = r.assignment_id
            JOIN clsfile.lti_platform p ON p.id = c.platform_id
            $$
        """,
        // Scores sent, in one statement: done, unless the work changed while they were sent (then
        // due the platform's interval on).
        """
        CREATE FUNCTION clsfile.lti_scores_sent(platforms uuid[], links text[], students uuid[])
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ UPDATE clsfile.lti_score s SET taken_until = NULL, last_sent_at = now(), attempts = 0, last_error = NULL,
                      not_before = now() + (SELECT p.score_interval FROM clsfile.lti_platform p WHERE p.id = s.platform_id)
                                           * interval '1 second'
                  FROM unnest(platforms, links, students) AS sent(platform_id, resource_link_id, student_id)
                  WHERE s.platform_id = sent.platform_id AND s.resource_link_id = sent.resource_link_id
                    AND s.student_id = sent.student_id $$
        """,
        // A score not sent: due again after `retry_seconds`.
        """
        CREATE FUNCTION clsfile.lti_score_failed(platform uuid, link text, student uuid, why text, retry_seconds bigint)
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ UPDATE clsfile.lti_score s SET due = true, taken_until = NULL, attempts = s.attempts + 1,
                      last_error = left(why, 1000), not_before = now() + retry_seconds * interval '1 second'
                  WHERE s.platform_id = platform AND s.resource_link_id = link AND s.student_id = student $$
        """,
        // An instructor's launch names the course's roster: read it soon.
        """
        CREATE FUNCTION clsfile.lti_roster_wanted(platform uuid, deployment text, context text, url text)
            RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ UPDATE clsfile.lti_context x SET memberships_url = url, roster_due = true
                  WHERE x.platform_id = platform AND x.deployment_id = deployment AND x.context_id = context $$
        """,
        // The rosters due, claimed (no longer due), with their platform.
        """
        CREATE FUNCTION clsfile.lti_rosters_due(most bigint)
            RETURNS TABLE (platform_id uuid, deployment_id text, context_id text, memberships_url text, client_id text,
                           auth_token_url text)
            LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            WITH due AS (
                SELECT x.platform_id, x.deployment_id, x.context_id FROM clsfile.lti_context x
                WHERE x.roster_due AND x.memberships_url IS NOT NULL LIMIT most FOR UPDATE SKIP LOCKED),
            claimed AS (
                UPDATE clsfile.lti_context x SET roster_due = false FROM due
                WHERE x.platform_id = due.platform_id AND x.deployment_id = due.deployment_id AND x.context_id = due.context_id
                RETURNING x.*)
            SELECT c.platform_id, c.deployment_id, c.context_id, c.memberships_url, p.client_id, p.auth_token_url
            FROM claimed c JOIN clsfile.lti_platform p ON p.id = c.platform_id
            $$
        """,
        // A roster read: its members replace the course's, or the error is kept.
        """
        CREATE FUNCTION clsfile.lti_roster_read(platform uuid, deployment text, context text, subs text[], names text[],
                                                learners boolean[], failure text)
            RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                IF failure IS NOT NULL THEN
                    UPDATE clsfile.lti_context x SET roster_error = left(failure, 1000)
                        WHERE x.platform_id = platform AND x.deployment_id = deployment AND x.context_id = context;
                    RETURN;
                END IF;
                DELETE FROM clsfile.lti_roster_member m
                    WHERE m.platform_id = platform AND m.deployment_id = deployment AND m.context_id = context;
                INSERT INTO clsfile.lti_roster_member (platform_id, deployment_id, context_id, sub, name, learner)
                    SELECT platform, deployment, context, r.sub, r.name, r.learner
                    FROM unnest(subs, names, learners) AS r(sub, name, learner)
                    ON CONFLICT DO NOTHING;
                UPDATE clsfile.lti_context x SET roster_read_at = now(), roster_error = NULL
                    WHERE x.platform_id = platform AND x.deployment_id = deployment AND x.context_id = context;
            END $$
        """,
        // The course's learners as the roster said, and whether each has tied a device to the class.
        """
        CREATE FUNCTION clsfile.lti_roster(platform uuid, deployment text, context text)
            RETURNS TABLE (name text, linked boolean, read_at timestamptz, failure text)
            LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            SELECT m.name, EXISTS (
                       SELECT 1 FROM clsfile.lti_user u JOIN clsfile.enrolment e ON e.student_id = u.account_id
                       WHERE u.platform_id = platform AND u.sub = m.sub AND u.role = 'student' AND e.class_id = x.class_id),
                   x.roster_read_at, x.roster_error
            FROM clsfile.lti_context x
            LEFT JOIN clsfile.lti_roster_member m ON m.platform_id = x.platform_id AND m.deployment_id = x.deployment_id
                AND m.context_id = x.context_id AND m.learner
            WHERE x.platform_id = platform AND x.deployment_id = deployment AND x.context_id = context
            ORDER BY m.name
            $$
        """,
        // Dynamic Registration: the one-use codes of the addresses the administrator gives LMS
        // administrators (clsfile-server lti registration-url), by hash.
        """
        CREATE TABLE clsfile.lti_registration_code (
            code_hash bytea PRIMARY KEY CHECK (length(code_hash) = 32),
            expires_at timestamptz NOT NULL,
            used_at timestamptz,
            registered_at timestamptz
        )
        """,
        "ALTER TABLE clsfile.lti_registration_code ENABLE ROW LEVEL SECURITY",
        // A registration begins by using its code, before the server fetches anything: a code serves once.
        """
        CREATE FUNCTION clsfile.lti_use_registration_code(wanted_hash bytea) RETURNS boolean
            LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$ WITH used AS (
                      UPDATE clsfile.lti_registration_code c SET used_at = now()
                      WHERE c.code_hash = wanted_hash AND c.used_at IS NULL AND c.expires_at > now() RETURNING 1)
                  SELECT EXISTS (SELECT 1 FROM used) $$
        """,
        // A platform registered by Dynamic Registration, under the code its registration used in
        // the last ten minutes (once; else SQLSTATE P0002); one registered already is refused
        // (SQLSTATE 23505).
        """
        CREATE FUNCTION clsfile.lti_register_dynamically(wanted_hash bytea, new_id uuid, wanted_issuer text, wanted_client text,
                                                         login_url text, token_url text, keys_url text, deployment text)
            RETURNS uuid LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                platform uuid;
            BEGIN
                UPDATE clsfile.lti_registration_code c SET registered_at = now()
                    WHERE c.code_hash = wanted_hash AND c.registered_at IS NULL AND c.used_at > now() - interval '10 minutes';
                IF NOT FOUND THEN
                    RAISE EXCEPTION 'no such registration code' USING ERRCODE = 'no_data_found';
                END IF;
                -- A platform registered already is never changed this way: only its administrator's
                -- clsfile-server lti register changes its addresses.
                INSERT INTO clsfile.lti_platform (id, issuer, client_id, auth_login_url, auth_token_url, jwks_url)
                    VALUES (new_id, wanted_issuer, wanted_client, login_url, token_url, keys_url)
                    RETURNING id INTO platform;
                IF deployment IS NOT NULL THEN
                    INSERT INTO clsfile.lti_deployment (platform_id, deployment_id) VALUES (platform, deployment)
                        ON CONFLICT DO NOTHING;
                END IF;
                RETURN platform;
            END $$
        """,
        """
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]
}
