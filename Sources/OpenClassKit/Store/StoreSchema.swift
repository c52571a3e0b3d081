internal import GRDB

/// The store's schema, as append-only migrations numbered by `PRAGMA user_version`. Each
/// migration's SQL is the documentation of the tables: see the OpenClassKit documentation catalog
/// for a guide to reading the store with `sqlite3`.
enum StoreSchema {
    /// `PRAGMA application_id` of a clsfile store: "CLSF".
    static let applicationID: Int32 = 0x434C_5346

    /// Brings the store to the latest version. Runs inside an IMMEDIATE transaction, so processes
    /// that open a new store at the same moment migrate it once.
    static func migrate(_ db: Database, path: String) throws {
        let version = try checkVersion(of: db, path: path)
        for (index, migration) in migrations.enumerated().dropFirst(version) {
            do {
                try db.execute(sql: migration.sql)
            } catch {
                throw CLSError(
                    .databaseInaccessible,
                    "the store \(path) could not be brought to schema version \(index + 1) (\(migration.name)): \(error); it is unchanged: check the disk, or report this with the store attached"
                )
            }
            try db.execute(sql: "PRAGMA user_version = \(index + 1)")
        }
    }

    /// One step of the schema: its name says what it adds; its number is its place in
    /// ``migrations`` (the `PRAGMA user_version` a store has once it ran).
    struct Migration {
        var name: String
        var sql: String
    }

    /// The migrations, oldest first; never edit one that has shipped, add another.
    static let migrations: [Migration] = [
        // 1: contexts, activities, time spans, progress ranges, items.
        Migration(
            name: "contexts, activities, spans, ranges and items",
            sql: """
                PRAGMA application_id = \(applicationID);

                CREATE TABLE context (
                    id          INTEGER PRIMARY KEY,
                    parent_id   INTEGER REFERENCES context(id) ON DELETE CASCADE,
                    identifier  TEXT    NOT NULL,
                    type        INTEGER NOT NULL,
                    title       TEXT    NOT NULL,
                    path        BLOB    UNIQUE,
                    device      INTEGER,
                    inode       INTEGER,
                    created_at  REAL    NOT NULL,
                    modified_at REAL    NOT NULL
                );
                CREATE INDEX context_by_parent ON context(parent_id, identifier);
                CREATE INDEX context_by_inode ON context(device, inode) WHERE path IS NOT NULL;

                CREATE TABLE activity (
                    id           INTEGER PRIMARY KEY,
                    context_id   INTEGER NOT NULL REFERENCES context(id) ON DELETE CASCADE,
                    attempt      INTEGER NOT NULL DEFAULT 1,
                    created_at   REAL    NOT NULL,
                    modified_at  REAL    NOT NULL,
                    completed_at REAL,
                    UNIQUE (context_id, attempt)
                );

                CREATE TABLE time_span (
                    id            TEXT    PRIMARY KEY,
                    activity_id   INTEGER NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
                    started_at    REAL    NOT NULL,
                    ended_at      REAL,
                    last_pulse_at REAL    NOT NULL,
                    owner_host    TEXT,
                    owner_boot    TEXT,
                    owner_pid     INTEGER,
                    owner_start   INTEGER
                );
                CREATE INDEX time_span_by_activity ON time_span(activity_id);
                CREATE INDEX time_span_running ON time_span(owner_pid) WHERE ended_at IS NULL;

                CREATE TABLE progress_range (
                    activity_id INTEGER NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
                    lower_bound REAL    NOT NULL,
                    upper_bound REAL    NOT NULL,
                    CHECK (0 <= lower_bound AND lower_bound < upper_bound AND upper_bound <= 1),
                    PRIMARY KEY (activity_id, lower_bound, upper_bound)
                ) WITHOUT ROWID;

                CREATE TABLE activity_item (
                    activity_id  INTEGER NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
                    identifier   TEXT    NOT NULL,
                    role         TEXT    NOT NULL CHECK (role IN ('primary', 'additional')),
                    kind         TEXT    NOT NULL CHECK (kind IN ('quantity', 'score', 'binary')),
                    title        TEXT    NOT NULL,
                    quantity     REAL,
                    score        REAL,
                    max_score    REAL,
                    binary_value INTEGER,
                    binary_type  INTEGER,
                    created_at   REAL    NOT NULL,
                    modified_at  REAL    NOT NULL,
                    PRIMARY KEY (activity_id, identifier)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX activity_item_one_primary ON activity_item(activity_id) WHERE role = 'primary';
                """),
        // 2: assignments (a teacher's handouts; a student's accepted ones, tied to a file) and the
        // submissions a teacher collected. The done flag is `activity.completed_at`.
        Migration(
            name: "assignments and submissions",
            sql: """
                CREATE TABLE assignment (
                    id              TEXT    PRIMARY KEY,
                    title           TEXT    NOT NULL,
                    class_name      TEXT,
                    due_at          REAL,
                    target_words    INTEGER,
                    instructions    TEXT,
                    document_name   TEXT    NOT NULL,
                    document_digest TEXT    NOT NULL,
                    class_key       BLOB    NOT NULL CHECK (length(class_key) = 32),
                    created_at      REAL    NOT NULL,
                    accepted_at     REAL,
                    context_id      INTEGER UNIQUE REFERENCES context(id) ON DELETE SET NULL
                );

                CREATE TABLE submission (
                    assignment_id TEXT NOT NULL REFERENCES assignment(id) ON DELETE CASCADE,
                    student_id    TEXT NOT NULL,
                    student_name  TEXT NOT NULL,
                    submitted_at  REAL NOT NULL,
                    digest        TEXT NOT NULL,
                    payload       BLOB NOT NULL,
                    imported_at   REAL NOT NULL,
                    PRIMARY KEY (assignment_id, student_id)
                ) WITHOUT ROWID;
                """),
        // 3: what an activity's progress measures (`CLSActivity.progressBasis`); the progress
        // ranges all belong to it, and a new basis starts them again. Reading assignments, whose
        // progress is the share of the document viewed.
        Migration(
            name: "progress basis and reading assignments",
            sql: """
                ALTER TABLE activity ADD COLUMN progress_basis TEXT;
                ALTER TABLE assignment ADD COLUMN is_reading INTEGER NOT NULL DEFAULT 0;
                """),
        // 4: trust between a teacher and students. A handout carries the teacher's public key
        // (`teacher_key`) instead of a class key every student held; version-1 assignments keep
        // their `class_key` for the record. Every submission accepted is kept (one row per student,
        // assignment and content); reports read the latest of each student. `student_key` pins the
        // key a student signs with at the first submission accepted from them; a submission signed
        // with another key waits in `submission_conflict` until the teacher trusts that key. Both
        // tables are rebuilt, submission first, so that no foreign key acts on dropping them.
        Migration(
            name: "teacher keys, pinned student keys and submission history",
            sql: """
                CREATE TABLE assignment_v4 (
                    id              TEXT    PRIMARY KEY,
                    title           TEXT    NOT NULL,
                    class_name      TEXT,
                    due_at          REAL,
                    target_words    INTEGER,
                    instructions    TEXT,
                    document_name   TEXT    NOT NULL,
                    document_digest TEXT    NOT NULL,
                    class_key       BLOB    CHECK (class_key IS NULL OR length(class_key) = 32),
                    teacher_key     BLOB    CHECK (teacher_key IS NULL OR length(teacher_key) BETWEEN 1 AND 200),
                    created_at      REAL    NOT NULL,
                    accepted_at     REAL,
                    context_id      INTEGER UNIQUE REFERENCES context(id) ON DELETE SET NULL,
                    is_reading      INTEGER NOT NULL DEFAULT 0,
                    CHECK (class_key IS NOT NULL OR teacher_key IS NOT NULL)
                );
                INSERT INTO assignment_v4 (id, title, class_name, due_at, target_words, instructions, document_name,
                                           document_digest, class_key, created_at, accepted_at, context_id, is_reading)
                    SELECT id, title, class_name, due_at, target_words, instructions, document_name,
                           document_digest, class_key, created_at, accepted_at, context_id, is_reading FROM assignment;

                CREATE TABLE submission_v4 (
                    assignment_id TEXT NOT NULL REFERENCES assignment_v4(id) ON DELETE CASCADE,
                    student_id    TEXT NOT NULL,
                    student_name  TEXT NOT NULL,
                    submitted_at  REAL NOT NULL,
                    digest        TEXT NOT NULL,
                    payload       BLOB NOT NULL,
                    imported_at   REAL NOT NULL,
                    student_key   BLOB,
                    PRIMARY KEY (assignment_id, student_id, digest)
                ) WITHOUT ROWID;
                INSERT INTO submission_v4 (assignment_id, student_id, student_name, submitted_at, digest, payload, imported_at)
                    SELECT assignment_id, student_id, student_name, submitted_at, digest, payload, imported_at FROM submission;

                DROP TABLE submission;
                DROP TABLE assignment;
                ALTER TABLE assignment_v4 RENAME TO assignment;
                ALTER TABLE submission_v4 RENAME TO submission;
                CREATE INDEX submission_latest ON submission(assignment_id, student_id, submitted_at);

                CREATE TABLE student_key (
                    student_id  TEXT PRIMARY KEY,
                    public_key  BLOB NOT NULL,
                    pinned_at   REAL NOT NULL
                ) WITHOUT ROWID;

                CREATE TABLE submission_conflict (
                    assignment_id TEXT NOT NULL REFERENCES assignment(id) ON DELETE CASCADE,
                    student_id    TEXT NOT NULL,
                    student_name  TEXT NOT NULL,
                    submitted_at  REAL NOT NULL,
                    digest        TEXT NOT NULL,
                    payload       BLOB NOT NULL,
                    student_key   BLOB NOT NULL,
                    found_at      REAL NOT NULL,
                    PRIMARY KEY (assignment_id, student_id, digest)
                ) WITHOUT ROWID;
                """),
        // 5: the subclass of an activity's primary item, fixed by the first one saved and kept when
        // the item is cleared, so that clearing it cannot open the way to another subclass.
        Migration(
            name: "the primary item's subclass",
            sql: """
                ALTER TABLE activity ADD COLUMN primary_kind TEXT;
                UPDATE activity SET primary_kind =
                    (SELECT kind FROM activity_item WHERE activity_id = activity.id AND role = 'primary');
                """),
        // 6: the context tree of ClassKit 2018–2020: each context's metadata (capabilities as JSON,
        // `[{"kind": 0, "details": null}]`; NULL is ClassKit's default of one duration), identifiers
        // unique among the app's own siblings, and the one active context with the process that
        // made it active, so that a dead process leaves none.
        Migration(
            name: "context metadata and the active context",
            sql: """
                ALTER TABLE context ADD COLUMN custom_type_name TEXT;
                ALTER TABLE context ADD COLUMN display_order INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE context ADD COLUMN topic TEXT;
                ALTER TABLE context ADD COLUMN summary TEXT;
                ALTER TABLE context ADD COLUMN thumbnail BLOB;
                ALTER TABLE context ADD COLUMN is_assignable INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE context ADD COLUMN suggested_age_from INTEGER;
                ALTER TABLE context ADD COLUMN suggested_age_length INTEGER;
                ALTER TABLE context ADD COLUMN suggested_time_from INTEGER;
                ALTER TABLE context ADD COLUMN suggested_time_length INTEGER;
                ALTER TABLE context ADD COLUMN capabilities TEXT;
                ALTER TABLE context ADD COLUMN universal_link TEXT;
                CREATE UNIQUE INDEX context_sibling ON context(parent_id, identifier) WHERE path IS NULL AND parent_id IS NOT NULL;

                CREATE TABLE active_context (
                    slot        INTEGER PRIMARY KEY CHECK (slot = 1),
                    context_id  INTEGER NOT NULL REFERENCES context(id) ON DELETE CASCADE,
                    owner_host  TEXT    NOT NULL,
                    owner_boot  TEXT    NOT NULL,
                    owner_pid   INTEGER NOT NULL,
                    owner_start INTEGER NOT NULL
                );
                """),
        // 7: a course's document lives in its context (the file is bound to an app context), and
        // an assignment may be one document of an assigned context.
        Migration(
            name: "documents of courses and assigned contexts",
            sql: """
                ALTER TABLE context ADD COLUMN course_document INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE assignment ADD COLUMN context_path TEXT;
                """),
        // 8: the class server a student's store syncs to, the outbox of operations on assigned
        // work waiting for it, written in the transaction of each save (`OutboxTable`), each for
        // the class joined when it was made, and the operations the server refused, kept aside.
        Migration(
            name: "class server and outbox",
            sql: """
                CREATE TABLE class_server (
                    slot         INTEGER PRIMARY KEY CHECK (slot = 1),
                    url          TEXT    NOT NULL,
                    account_id   TEXT    NOT NULL,
                    class_id     TEXT    NOT NULL,
                    class_name   TEXT    NOT NULL,
                    joined_at    REAL    NOT NULL,
                    last_sync_at REAL,
                    last_error   TEXT
                );
                CREATE TABLE outbox (
                    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
                    class_id  TEXT    NOT NULL,
                    operation TEXT    NOT NULL
                );
                CREATE TABLE outbox_refused (
                    seq        INTEGER PRIMARY KEY,
                    class_id   TEXT    NOT NULL,
                    operation  TEXT    NOT NULL,
                    reason     TEXT    NOT NULL,
                    refused_at REAL    NOT NULL
                );
                """),
        // 9: a store may join several classes of its server, each tied to its teacher's
        // recipient key (`teacher_key`, as in their handouts): an assignment's work goes only to
        // the classes of the teacher who handed it out. A class joined at version 8 is kept with
        // no key, which sends it every assignment's work as before, until it is joined again.
        Migration(
            name: "classes tied to their teachers",
            sql: """
                CREATE TABLE class_membership (
                    class_id    TEXT PRIMARY KEY,
                    class_name  TEXT NOT NULL,
                    teacher_key BLOB CHECK (teacher_key IS NULL OR length(teacher_key) BETWEEN 1 AND 200),
                    joined_at   REAL NOT NULL
                );
                INSERT INTO class_membership (class_id, class_name, teacher_key, joined_at)
                    SELECT class_id, class_name, NULL, joined_at FROM class_server;
                ALTER TABLE class_server DROP COLUMN class_id;
                ALTER TABLE class_server DROP COLUMN class_name;
                """),
        // 10: an assignment of a context tree, chosen by a teacher in a class server's catalog:
        // it is tied to no context itself (`context_id` NULL); each context at or below its path
        // that has work gets an assignment of its own derived from it (`ClassroomTables.derive`).
        // Both name the class they were made for (`class_id`), the only class their work goes to.
        Migration(
            name: "assignments of context trees",
            sql: """
                ALTER TABLE assignment ADD COLUMN covers_context_tree INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE assignment ADD COLUMN class_id TEXT;
                """),
        // 11: how each file grew (`HistoryTable`): a row at each session's end and every few
        // minutes while one runs, with the figures then (cumulative, as the items hold them) and,
        // for a text file, a snapshot of its content as a deflated delta from the row's before
        // (`ContentDelta`; a keyframe is one from nothing). A save that ends sessions it did not
        // see (spans ended together) writes rows of their time alone. The first save of an
        // activity's first session with no rows writes its start (`is_start`): the text and figures
        // the session began from. A row's session is its time span (`session_id`). Kept in this store only,
        // unless an assignment asks for it (`assignment.process_evidence`, `ProcessEvidence`).
        Migration(
            name: "writing history and content snapshots",
            sql: """
                CREATE TABLE writing_history (
                    id             INTEGER PRIMARY KEY,
                    activity_id    INTEGER NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
                    recorded_at    REAL    NOT NULL,
                    session_id     TEXT,
                    session_start  REAL    NOT NULL,
                    session_end    REAL,
                    is_start       INTEGER NOT NULL DEFAULT 0,
                    active_seconds REAL    NOT NULL,
                    open_seconds   REAL,
                    words          REAL,
                    characters     REAL,
                    typed          REAL,
                    pasted         REAL,
                    largest_paste  REAL,
                    progress       REAL,
                    content_size   INTEGER,
                    content_digest BLOB,
                    content_delta  BLOB,
                    is_keyframe    INTEGER NOT NULL DEFAULT 0,
                    CHECK ((content_delta IS NULL) = (content_digest IS NULL))
                );
                CREATE INDEX writing_history_by_activity ON writing_history(activity_id, id);
                ALTER TABLE assignment ADD COLUMN process_evidence TEXT CHECK (process_evidence IN ('figures', 'replay'));
                """),
        // 12: sessions told apart from spans: a session is one run of an editor on a file, and a
        // pause past the idle timeout ends its span and starts another in the same session, as
        // does a buffer left and entered again in the same editor run (`session_id`: the
        // identifier of the session's first span; NULL for a span that begins one, and for every
        // span recorded before; `editor_run`: the editor process that began the span, when a
        // plugin's hook named it). History rows from here on name their session.
        Migration(
            name: "spans of one session",
            sql: """
                ALTER TABLE time_span ADD COLUMN session_id TEXT;
                ALTER TABLE time_span ADD COLUMN editor_run TEXT;
                CREATE INDEX time_span_by_session ON time_span(session_id) WHERE session_id IS NOT NULL;
                """),
        // 13: what a student says about their process evidence (`EvidenceTables`): notes on an
        // accepted assignment's work, on one of its sessions, or on that session's paste
        // (`session_id` '' for the work's); the sessions written by dictation or an input method,
        // whose input counts as typed (`session_id` as the history names it); and the dictation
        // setting that marks every session recorded while it is on.
        Migration(
            name: "evidence notes and dictated sessions",
            sql: """
                CREATE TABLE evidence_note (
                    assignment_id TEXT NOT NULL REFERENCES assignment(id) ON DELETE CASCADE,
                    kind          TEXT NOT NULL CHECK (kind IN ('work', 'session', 'paste')),
                    session_id    TEXT NOT NULL DEFAULT '',
                    text          TEXT NOT NULL,
                    written_at    REAL NOT NULL,
                    CHECK ((kind = 'work') = (session_id = '')),
                    PRIMARY KEY (assignment_id, kind, session_id)
                ) WITHOUT ROWID;
                CREATE TABLE dictated_session (
                    session_id  TEXT    PRIMARY KEY,
                    activity_id INTEGER NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
                    marked_at   REAL    NOT NULL
                );
                CREATE INDEX dictated_session_by_activity ON dictated_session(activity_id);
                CREATE TABLE student_setting (
                    name  TEXT PRIMARY KEY CHECK (name IN ('dictation')),
                    value TEXT NOT NULL
                ) WITHOUT ROWID;
                """),
        // 14: the statement of AI use (`AIStatement`): whether a teacher's handout asks for one
        // (`requirement`, NULL for not asked) and, in a student's store, the student's answer
        // (`kind`, their own words in `note`, and when they gave it). A table of its own, one row
        // per assignment that has either, so that `assignment` keeps its columns; IF NOT EXISTS,
        // so that a store whose version was set back by hand to re-run older steps keeps it.
        Migration(
            name: "statements of AI use",
            sql: """
                CREATE TABLE IF NOT EXISTS ai_statement (
                    assignment_id TEXT PRIMARY KEY REFERENCES assignment(id) ON DELETE CASCADE,
                    requirement   TEXT CHECK (requirement IN ('required', 'optional')),
                    kind          TEXT CHECK (kind IN ('none', 'ideas', 'feedback', 'editing', 'drafting')),
                    note          TEXT,
                    stated_at     REAL,
                    CHECK ((kind IS NULL) = (stated_at IS NULL))
                ) WITHOUT ROWID;
                """),
        // 15: how long process evidence is kept, and its withdrawal: the days a teacher's handout
        // keeps the writing history of submitted work (`kept_days`, NULL for a handout that does not
        // say, which keeps it ``ProcessEvidence/defaultKeptDays``) and, in a student's store, when
        // the student withdrew the evidence not yet sent (`withdrawn_at`). A table of its own, one
        // row per assignment that has either; IF NOT EXISTS, as 14's.
        Migration(
            name: "how long process evidence is kept",
            sql: """
                CREATE TABLE IF NOT EXISTS evidence_keeping (
                    assignment_id TEXT PRIMARY KEY REFERENCES assignment(id) ON DELETE CASCADE,
                    kept_days     INTEGER CHECK (kept_days BETWEEN 1 AND 36600),
                    withdrawn_at  REAL
                ) WITHOUT ROWID;
                """),
        // 16: the time of an activity's settled spans (`SettledTime`): those starting before
        // `frontier`, which had all ended when it was set, measured once (`measured`, the length
        // of their union; `reach`, the latest end among them), so that a history row's time is
        // measured from the spans after them instead of every span of a long history. A span
        // written, changed or removed before the frontier deletes the row (the triggers), and the
        // next measure reads every span again. Spans are read by activity in order of start: that
        // index replaces the one by activity alone. IF NOT EXISTS, as 14's. The triggers hold only
        // while spans are written by upsert (an INSERT OR REPLACE deletes without firing them) and
        // while `time_span` is the same table: a migration that rebuilds it makes them anew.
        Migration(
            name: "the time of settled spans",
            sql: """
                CREATE TABLE IF NOT EXISTS settled_time (
                    activity_id INTEGER PRIMARY KEY REFERENCES activity(id) ON DELETE CASCADE,
                    frontier    REAL NOT NULL,
                    measured    REAL NOT NULL,
                    reach       REAL NOT NULL
                );
                CREATE INDEX IF NOT EXISTS time_span_by_start ON time_span(activity_id, started_at);
                DROP INDEX IF EXISTS time_span_by_activity;
                CREATE TRIGGER IF NOT EXISTS settled_time_after_insert AFTER INSERT ON time_span
                WHEN NEW.started_at < (SELECT frontier FROM settled_time WHERE activity_id = NEW.activity_id)
                BEGIN
                    DELETE FROM settled_time WHERE activity_id = NEW.activity_id;
                END;
                CREATE TRIGGER IF NOT EXISTS settled_time_after_update AFTER UPDATE OF activity_id, started_at, ended_at ON time_span
                WHEN (OLD.activity_id IS NOT NEW.activity_id OR OLD.started_at IS NOT NEW.started_at OR OLD.ended_at IS NOT NEW.ended_at)
                    AND (OLD.started_at < (SELECT frontier FROM settled_time WHERE activity_id = OLD.activity_id)
                        OR NEW.started_at < (SELECT frontier FROM settled_time WHERE activity_id = NEW.activity_id))
                BEGIN
                    DELETE FROM settled_time WHERE activity_id IN (OLD.activity_id, NEW.activity_id);
                END;
                CREATE TRIGGER IF NOT EXISTS settled_time_after_delete AFTER DELETE ON time_span
                WHEN OLD.started_at < (SELECT frontier FROM settled_time WHERE activity_id = OLD.activity_id)
                BEGIN
                    DELETE FROM settled_time WHERE activity_id = OLD.activity_id;
                END;
                """),
        // 17: a span an editor's open began waits for the session's first input (`awaits_input`):
        // a session's time counts from its first input, never from the editor's start. A history
        // row keeps the characters pasted from the document itself (`moved`: the person's own
        // text moved or copied), apart from those pasted from elsewhere. An accepted assignment
        // keeps when the student last wrote a submission of it (`submitted_at`).
        Migration(
            name: "spans that wait for input, moved text, and the last submission",
            sql: """
                ALTER TABLE time_span ADD COLUMN awaits_input INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE writing_history ADD COLUMN moved REAL;
                ALTER TABLE assignment ADD COLUMN submitted_at REAL;
                """)
    ]

    /// Whether the store's schema is older than this code's.
    static func needsMigration(_ db: Database) throws -> Bool {
        (try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0) < migrations.count
    }

    /// The store's schema version; throws when a newer clsfile wrote it.
    @discardableResult
    private static func checkVersion(of db: Database, path: String) throws -> Int {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version <= migrations.count else {
            throw CLSError(
                .databaseInaccessible,
                "the store \(path) has schema version \(version), newer than this OpenClassKit knows (\(migrations.count)); it was left untouched: update the program that uses it"
            )
        }
        return version
    }

    /// Throws unless the database is empty or a clsfile store of a version this code knows.
    /// Runs on every new connection, before anything can be written.
    ///
    /// A damaged page elsewhere is found by the statement that reads it, whose transaction then
    /// writes nothing (SQLite's `SQLITE_CORRUPT`, which the store reports with its path); reading
    /// every table here to find it first cost each hook 1.6 M of its 13.7 M instructions.
    static func checkOwnership(of db: Database, path: String) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if applicationID == Self.applicationID {
            try checkVersion(of: db, path: path)
            return
        }
        let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
        if applicationID == 0 && objects == 0 { return }
        throw CLSError(
            .databaseInaccessible,
            "\(path) is an SQLite database of another program, not an OpenClassKit store; it was left untouched: choose another store path")
    }
}
