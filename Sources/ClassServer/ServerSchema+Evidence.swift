extension ServerSchema {
    /// Process evidence over sync: the rows of a student's writing history, and for replay the
    /// snapshots of their text, on assignments that ask for them.
    ///
    /// - `work_history`: a row per history row of the student's store, by its id there, with its
    ///   figures (`entry`, as the wire carries them) and its snapshot's delta and digest when it
    ///   has one. A row belongs to its work: it is deleted with it by the foreign key (a student
    ///   forgotten, a class archived), and by `sync_history` when the work starts again (a new
    ///   attempt, a snapshot of the student's work). A student writes only their own rows, in a
    ///   class they joined; the class's teacher reads them.
    /// - `sync_history(student, class, cleared, removed, rows)` applies a sync's changes of it,
    ///   after `sync_finish` wrote the work: drops the rows of the assignments `cleared`, then the
    ///   rows removed, writes the rows sent (replacing those of their ids), and returns what each
    ///   assignment's evidence holds then (rows, snapshots, bytes of deltas), which the server
    ///   checks against its caps (`WorkLimits`). An empty delta or digest stands for none. It runs
    ///   as the caller, under the policies.
    static let version11: [String] = [
        """
        CREATE TABLE clsfile.work_history (
            class_id uuid NOT NULL,
            student_id uuid NOT NULL,
            assignment_id text NOT NULL,
            row_id bigint NOT NULL CHECK (row_id > 0),
            entry jsonb NOT NULL,
            delta bytea,
            digest bytea CHECK (digest IS NULL OR length(digest) = 16),
            is_keyframe boolean NOT NULL DEFAULT false,
            PRIMARY KEY (class_id, student_id, assignment_id, row_id),
            FOREIGN KEY (class_id, student_id, assignment_id) REFERENCES clsfile.work ON DELETE CASCADE,
            CHECK ((delta IS NULL) = (digest IS NULL))
        )
        """,
        "ALTER TABLE clsfile.work_history ENABLE ROW LEVEL SECURITY",
        """
        CREATE POLICY work_history_seen ON clsfile.work_history FOR SELECT USING (
            student_id = clsfile.caller() OR class_id IN (SELECT clsfile.taught_classes()))
        """,
        """
        CREATE POLICY work_history_written ON clsfile.work_history FOR INSERT WITH CHECK (
            student_id = clsfile.caller() AND class_id IN (SELECT clsfile.joined_classes()))
        """,
        """
        CREATE POLICY work_history_updated ON clsfile.work_history FOR UPDATE USING (student_id = clsfile.caller())
            WITH CHECK (student_id = clsfile.caller() AND class_id IN (SELECT clsfile.joined_classes()))
        """,
        "CREATE POLICY work_history_deleted ON clsfile.work_history FOR DELETE USING (student_id = clsfile.caller())",
        """
        CREATE FUNCTION clsfile.sync_history(student uuid, wanted_class uuid, cleared text[],
                                             removed_assignments text[], removed_rows bigint[],
                                             row_assignments text[], row_ids bigint[], entries text[],
                                             deltas bytea[], digests bytea[], keyframes boolean[])
            RETURNS TABLE (row_name text, row_count bigint, row_snapshots bigint, row_bytes bigint)
            LANGUAGE plpgsql SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                DELETE FROM clsfile.work_history h
                    WHERE h.class_id = wanted_class AND h.student_id = student AND h.assignment_id = ANY(cleared);
                DELETE FROM clsfile.work_history h USING unnest(removed_assignments, removed_rows) AS r(assignment_id, row_id)
                    WHERE h.class_id = wanted_class AND h.student_id = student
                      AND h.assignment_id = r.assignment_id AND h.row_id = r.row_id;
                INSERT INTO clsfile.work_history AS h (class_id, student_id, assignment_id, row_id, entry, delta, digest, is_keyframe)
                    SELECT wanted_class, student, x.assignment_id, x.row_id, x.entry::jsonb,
                           nullif(x.delta, ''::bytea), nullif(x.digest, ''::bytea), x.is_keyframe
                    FROM unnest(row_assignments, row_ids, entries, deltas, digests, keyframes)
                        AS x(assignment_id, row_id, entry, delta, digest, is_keyframe)
                    ON CONFLICT (class_id, student_id, assignment_id, row_id) DO UPDATE
                    SET entry = excluded.entry, delta = excluded.delta, digest = excluded.digest, is_keyframe = excluded.is_keyframe;
                RETURN QUERY SELECT h.assignment_id, count(*), count(h.delta), coalesce(sum(octet_length(h.delta)), 0)::bigint
                    FROM clsfile.work_history h
                    WHERE h.class_id = wanted_class AND h.student_id = student
                      AND h.assignment_id = ANY(cleared || removed_assignments || row_assignments)
                    GROUP BY h.assignment_id;
            END $$
        """,
        """
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]

    /// Process evidence kept no longer than the teacher's handout says: `evidence_expiry` records,
    /// per work, when its history rows were deleted (`clsfile-server prune`, as the schema's
    /// owner, deletes the rows of work unchanged for the handout's `keptEvidenceDays`, or
    /// `ProcessEvidence/defaultKeptDays`), and for how many days they had been kept. It is
    /// deleted with the work; the class's teacher and the student read it.
    static let version12: [String] = [
        """
        CREATE TABLE clsfile.evidence_expiry (
            class_id uuid NOT NULL,
            student_id uuid NOT NULL,
            assignment_id text NOT NULL,
            expired_at timestamptz NOT NULL DEFAULT now(),
            kept_days integer NOT NULL CHECK (kept_days > 0),
            PRIMARY KEY (class_id, student_id, assignment_id),
            FOREIGN KEY (class_id, student_id, assignment_id) REFERENCES clsfile.work ON DELETE CASCADE
        )
        """,
        "ALTER TABLE clsfile.evidence_expiry ENABLE ROW LEVEL SECURITY",
        """
        CREATE POLICY evidence_expiry_seen ON clsfile.evidence_expiry FOR SELECT USING (
            student_id = clsfile.caller() OR class_id IN (SELECT clsfile.taught_classes()))
        """
    ]
}
