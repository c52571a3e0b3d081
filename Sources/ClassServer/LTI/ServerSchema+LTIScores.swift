extension ServerSchema {
    /// Grade passback at a lower cost per sync. Measured under the capacity benchmark's load
    /// (`track_functions`), the trigger on `work` cost about 50 µs of PostgreSQL's time at every
    /// change of a work row, a sixth of a sync's time in the database, because it ran an
    /// `INSERT … ON CONFLICT` each time, which opens the score table and its indexes even when it
    /// writes nothing; and each call of `lti_scores_due` read every score (the `OR` of its two
    /// conditions used no index) and was planned again.
    ///
    /// - `lti_work_changed` reads first, and writes only for a link whose score is not due yet:
    ///   a class without links, or a student whose score is due already, costs one read.
    /// - `lti_scores_due` takes the scores due by the partial index on `not_before` and those a
    ///   sender left taken by the index on `taken_until`, each apart, in PL/pgSQL, whose plans
    ///   PostgreSQL keeps for the connection.
    static let version10: [String] = [
        """
        CREATE OR REPLACE FUNCTION clsfile.lti_work_changed() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            DECLARE
                link record;
            BEGIN
                FOR link IN
                    SELECT r.platform_id, r.resource_link_id FROM clsfile.lti_resource_link r
                    JOIN clsfile.lti_user u ON u.platform_id = r.platform_id AND u.account_id = NEW.student_id AND u.role = 'student'
                    LEFT JOIN clsfile.lti_score s ON s.platform_id = r.platform_id AND s.resource_link_id = r.resource_link_id
                        AND s.student_id = NEW.student_id
                    WHERE r.class_id = NEW.class_id AND r.assignment_id = NEW.assignment_id AND r.line_item_url IS NOT NULL
                      AND s.due IS NOT TRUE
                LOOP
                    INSERT INTO clsfile.lti_score (platform_id, resource_link_id, student_id)
                        VALUES (link.platform_id, link.resource_link_id, NEW.student_id)
                        ON CONFLICT (platform_id, resource_link_id, student_id) DO UPDATE
                        SET due = true, not_before = greatest(now(), clsfile.lti_score.last_sent_at
                                + (SELECT p.score_interval FROM clsfile.lti_platform p WHERE p.id = clsfile.lti_score.platform_id)
                                  * interval '1 second')
                        WHERE NOT clsfile.lti_score.due;
                END LOOP;
                RETURN NULL;
            END $$
        """,
        """
        CREATE OR REPLACE FUNCTION clsfile.lti_scores_due(most bigint)
            RETURNS TABLE (platform_id uuid, resource_link_id text, student_id uuid, attempts integer,
                           line_item_url text, score_maximum double precision, grading_progress text, sub text,
                           assignment_id text, detail text, updated_at timestamptz,
                           issuer text, client_id text, auth_token_url text)
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, clsfile
            AS $$
            #variable_conflict use_column
            BEGIN
                RETURN QUERY
                WITH ready AS (
                    SELECT s.platform_id, s.resource_link_id, s.student_id FROM clsfile.lti_score s
                    WHERE s.due AND s.not_before <= now() AND s.taken_until IS NULL
                    ORDER BY s.not_before LIMIT most FOR UPDATE SKIP LOCKED),
                left_taken AS (
                    SELECT s.platform_id, s.resource_link_id, s.student_id FROM clsfile.lti_score s
                    WHERE s.taken_until < now() LIMIT most FOR UPDATE SKIP LOCKED),
                due AS (
                    SELECT * FROM ready UNION SELECT * FROM left_taken LIMIT most),
                claimed AS (
                    UPDATE clsfile.lti_score s SET due = false, taken_until = now() + interval '10 minutes' FROM due
                    WHERE s.platform_id = due.platform_id AND s.resource_link_id = due.resource_link_id
                      AND s.student_id = due.student_id
                    RETURNING s.*)
                SELECT c.platform_id, c.resource_link_id, c.student_id, c.attempts, r.line_item_url, r.score_maximum,
                       r.grading_progress, u.sub, r.assignment_id, w.detail::text, w.updated_at, p.issuer, p.client_id,
                       p.auth_token_url
                FROM claimed c
                JOIN clsfile.lti_resource_link r ON r.platform_id = c.platform_id AND r.resource_link_id = c.resource_link_id
                JOIN clsfile.lti_user u ON u.platform_id = c.platform_id AND u.account_id = c.student_id AND u.role = 'student'
                JOIN clsfile.work w ON w.class_id = r.class_id AND w.student_id = c.student_id AND w.assignment_id = r.assignment_id
                JOIN clsfile.lti_platform p ON p.id = c.platform_id;
            END $$
        """
    ]
}
