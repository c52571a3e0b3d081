extension ServerSchema {
    /// A sync in four statements, whatever it carries: `BEGIN`, ``ServerDatabase/apply(_:toClass:as:)``'s
    /// two functions, `COMMIT`. PL/pgSQL keeps the plan of each statement it runs for the life of
    /// the connection, where a statement sent from the server, or an SQL function, is planned at
    /// every call: the planning was as much of PostgreSQL's work on a sync as the statements
    /// themselves (ClassServerBenchmark). For the same reason the two functions the policies
    /// call (`taught_classes`, `joined_classes`) and the look-up of a token's key
    /// (`device_key_named`) become PL/pgSQL.
    ///
    /// - `sync_begin(student, class, operation ids, assignments named, kept, kept versions)`
    ///   sets the caller, records the operation ids not applied before and returns them
    ///   (`applied`); when there are any, whether the caller sees the class (`class`); when they
    ///   do, the class's registered handouts among the assignments named (`handout`) and every
    ///   row of the caller's work in the class, locked, with its version, stored size and
    ///   context title (`work`), and its text when it is one the operations name and its
    ///   version is not the one the server holds decoded already.
    /// - `sync_finish(student, class, assignments, details)` writes the work and returns each
    ///   row's new version and stored size.
    ///
    /// Both run as the caller (row-level security holds them as it held the statements).
    /// `class_students` is a class report's: see its comment.
    static let version7: [String] = [
        """
        CREATE OR REPLACE FUNCTION clsfile.taught_classes() RETURNS SETOF uuid LANGUAGE plpgsql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ BEGIN RETURN QUERY SELECT c.id FROM clsfile.class c WHERE c.teacher_id = clsfile.caller(); END $$
        """,
        """
        CREATE OR REPLACE FUNCTION clsfile.joined_classes() RETURNS SETOF uuid LANGUAGE plpgsql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ BEGIN RETURN QUERY SELECT e.class_id FROM clsfile.enrolment e WHERE e.student_id = clsfile.caller(); END $$
        """,
        // Looked up for a token whose key the process has not held for a minute: with students
        // spread over the processes, most of a busy school's requests.
        """
        CREATE OR REPLACE FUNCTION clsfile.device_key_named(wanted text)
            RETURNS TABLE (account_id uuid, role text, public_key bytea) LANGUAGE plpgsql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ BEGIN
                RETURN QUERY SELECT k.account_id, a.role, k.public_key FROM clsfile.device_key k
                             JOIN clsfile.account a ON a.id = k.account_id WHERE k.kid = wanted;
            END $$
        """,
        """
        CREATE FUNCTION clsfile.sync_begin(student uuid, wanted_class uuid, operation_ids uuid[], named text[],
                                           kept text[], kept_versions bigint[])
            RETURNS TABLE (row_kind text, row_name text, row_version bigint, row_bytes integer, row_title text, row_detail text)
            LANGUAGE plpgsql SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                PERFORM set_config('clsfile.account', student::text, true);
                RETURN QUERY WITH fresh AS (
                        INSERT INTO clsfile.applied_operation (student_id, operation_id)
                        SELECT student, o.id FROM unnest(operation_ids) AS o(id)
                        ON CONFLICT DO NOTHING RETURNING operation_id)
                    SELECT 'applied'::text, fresh.operation_id::text, NULL::bigint, NULL::integer, NULL::text, NULL::text FROM fresh;
                IF NOT FOUND THEN RETURN; END IF;
                RETURN QUERY SELECT 'class'::text, NULL::text, NULL::bigint, NULL::integer, NULL::text, NULL::text
                    FROM clsfile.class c WHERE c.id = wanted_class;
                IF NOT FOUND THEN RETURN; END IF;
                RETURN QUERY SELECT 'handout'::text, h.assignment_id, NULL::bigint, NULL::integer, NULL::text, h.detail::text
                    FROM clsfile.handout h WHERE h.class_id = wanted_class AND h.assignment_id = ANY(named);
                RETURN QUERY SELECT 'work'::text, w.assignment_id, w.xmin::text::bigint, pg_column_size(w.detail),
                        CASE WHEN starts_with(w.assignment_id, 'ctx-') THEN w.detail->'assignment'->>'title' END,
                        CASE WHEN w.assignment_id = ANY(named) AND NOT EXISTS (
                                 SELECT 1 FROM unnest(kept, kept_versions) AS k(assignment_id, version)
                                 WHERE k.assignment_id = w.assignment_id AND k.version = w.xmin::text::bigint)
                             THEN w.detail::text END
                    FROM clsfile.work w WHERE w.class_id = wanted_class AND w.student_id = student FOR UPDATE;
            END $$
        """,
        """
        CREATE FUNCTION clsfile.sync_finish(student uuid, wanted_class uuid, assignments text[], details text[])
            RETURNS TABLE (row_name text, row_version bigint, row_bytes integer)
            LANGUAGE plpgsql SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                RETURN QUERY WITH written AS (
                        INSERT INTO clsfile.work AS w (class_id, student_id, assignment_id, detail, updated_at)
                        SELECT wanted_class, student, x.assignment_id, x.detail::jsonb, now()
                        FROM unnest(assignments, details) AS x(assignment_id, detail)
                        ON CONFLICT (class_id, student_id, assignment_id)
                        DO UPDATE SET detail = excluded.detail, updated_at = now()
                        RETURNING w.assignment_id, w.xmin::text::bigint AS version, pg_column_size(w.detail) AS bytes)
                    SELECT written.assignment_id, written.version, written.bytes FROM written;
            END $$
        """,
        // The names, enrolment dates and first keys of a class's students among `wanted`, for its
        // teacher only (none for anyone else): what the policies on account, enrolment and
        // device_key let a teacher read, found by the students' ids. Through the policies, a
        // report's join built the set of every student of every class its teacher has, and read
        // every account: 29 ms of a 40-student report for a teacher with 10,000 more students.
        """
        CREATE FUNCTION clsfile.class_students(wanted_class uuid, wanted uuid[])
            RETURNS TABLE (row_student uuid, row_name text, row_joined timestamptz, row_key bytea)
            LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                IF NOT EXISTS (SELECT 1 FROM clsfile.class c WHERE c.id = wanted_class AND c.teacher_id = clsfile.caller()) THEN
                    RETURN;
                END IF;
                RETURN QUERY SELECT a.id, a.name, e.joined_at,
                        (SELECT k.public_key FROM clsfile.device_key k WHERE k.account_id = a.id ORDER BY k.created_at, k.kid LIMIT 1)
                    FROM clsfile.account a JOIN clsfile.enrolment e ON e.class_id = wanted_class AND e.student_id = a.id
                    WHERE a.id = ANY(wanted);
            END $$
        """,
        """
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]
}
