extension ServerSchema {
    /// More than one server process, and a replica: what the record of applied operations needs
    /// to be pruned, and what a teacher's reads need to find their own writes.
    ///
    /// - A BRIN index on `applied_operation.applied_at`, by which `clsfile-server prune` finds the
    ///   ids applied before its cutoff (``OperationRetention``). Rows are appended in the order
    ///   they are applied, so a BRIN index of a few pages covers the table and costs a sync
    ///   nearly nothing, where a B-tree would add a write to every applied operation.
    /// - `account_write`: a counter per account that a teacher's writes raise in their own
    ///   transaction (a trigger on each table teachers write: `catalog_assignment`, `handout`). The
    ///   counter reaches a streaming replica with the write itself, so a replica whose counter
    ///   equals the primary's holds the account's every write; until it does, the account's
    ///   reads go to the primary (``ServerDatabase/asReader(_:_:)``). The app role reads it only
    ///   through `write_generation`, and writes it only through the trigger.
    static let version6: [String] = [
        "CREATE INDEX applied_operation_applied_at ON clsfile.applied_operation USING brin (applied_at)",
        """
        CREATE TABLE clsfile.account_write (
            account_id uuid PRIMARY KEY REFERENCES clsfile.account ON DELETE CASCADE,
            generation bigint NOT NULL,
            written_at timestamptz NOT NULL
        )
        """,
        "ALTER TABLE clsfile.account_write ENABLE ROW LEVEL SECURITY",
        // Raised once per statement that writes a table teachers write, for the caller; an
        // administrator's statement (no caller) raises nothing.
        """
        CREATE FUNCTION clsfile.note_account_write() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$
            BEGIN
                IF clsfile.caller() IS NOT NULL THEN
                    INSERT INTO clsfile.account_write AS w (account_id, generation, written_at)
                    VALUES (clsfile.caller(), 1, now())
                    ON CONFLICT (account_id) DO UPDATE SET generation = w.generation + 1, written_at = now();
                END IF;
                RETURN NULL;
            END $$
        """,
        """
        CREATE TRIGGER catalog_assignment_written AFTER INSERT OR UPDATE OR DELETE ON clsfile.catalog_assignment
            FOR EACH STATEMENT EXECUTE FUNCTION clsfile.note_account_write()
        """,
        """
        CREATE TRIGGER handout_written AFTER INSERT OR UPDATE OR DELETE ON clsfile.handout
            FOR EACH STATEMENT EXECUTE FUNCTION clsfile.note_account_write()
        """,
        // The counter of an account's writes, 0 before its first; read on the primary and on the replica.
        """
        CREATE FUNCTION clsfile.write_generation(wanted uuid) RETURNS bigint LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path = pg_catalog, clsfile
            AS $$ SELECT coalesce((SELECT generation FROM clsfile.account_write WHERE account_id = wanted), 0) $$
        """,
        """
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA clsfile FROM PUBLIC
        """
    ]
}
