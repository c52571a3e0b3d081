internal import CSQLite
import Foundation
import ProgramBasics
internal import GRDB

#if canImport(Glibc)
internal import Glibc
#endif

/// Activity storage in one SQLite file, in WAL mode, shared safely by any number of processes.
///
/// The database is opened on first use: the folder is made 0700 and the file 0600 when they do not
/// exist yet, migrations run, and spans left running by processes that died are ended at their last
/// pulse. A file that is not a clsfile store is reported and never written.
///
/// Each process keeps one connection. Most processes are short (an editor hook records one event),
/// so none of them waits for the disk on the way out: closing leaves the write-ahead log in place,
/// commits do not sync it (`synchronous = NORMAL`: a process crash loses nothing, a power cut at
/// most the last commits), and the log is copied back into the database file only when it has grown
/// past ``checkpointThreshold``, which keeps short the log that the next process reads on opening.
actor SQLiteStorage {
    let path: String
    let appIdentifier: String
    private let busyTimeout: TimeInterval
    private var queue: DatabaseQueue?
    /// Calls waiting on GRDB's queue for another process to release the store.
    private var waitingCalls = 0

    /// The size of the write-ahead log past which a save checkpoints and truncates it. Every process
    /// that opens the store first reads and checksums the whole log (about 1.5 ms for 512 KiB), so
    /// the log stays small; a checkpoint waits for the disk twice, so it happens about once every
    /// ten hook calls (each adds about 12 KiB).
    static let checkpointThreshold = 128 * 1024

    /// The threshold of a connection that has saved more than ``longLivedSaves`` times: a
    /// long-lived process (`hook --stdio`, an editor's server) saving on every keystroke pause
    /// waits for the disk a quarter as often (a larger log made the p99 of a save twice as long).
    /// The next short process reads at most this much once, and its own save checkpoints it.
    static let longLivedCheckpointThreshold = 512 * 1024
    static let longLivedSaves = 32
    /// Saves made through this connection.
    private var savesMade = 0

    /// Why the store cannot be used at all, when its location could not be worked out: every call
    /// throws it, from ``prepareLocation()``, which each call passes before it touches a file.
    private let unusableReason: CLSError?

    /// A storage in a file, opened on first use; or, given a reason, one whose every call throws it.
    init(path: String, appIdentifier: String, busyTimeout: TimeInterval, unusableBecause reason: CLSError? = nil) {
        self.path = path
        self.appIdentifier = appIdentifier
        self.busyTimeout = busyTimeout
        unusableReason = reason
    }

    // MARK: Opening

    func database() async throws -> DatabaseQueue {
        if let queue { return queue }
        try prepareLocation()
        let configuration = makeConfiguration()
        // Switching a new file to WAL takes an exclusive lock without waiting on the busy handler,
        // so processes that make one store at the same moment retry here until the busy timeout.
        let deadline = ContinuousClock.now + .seconds(busyTimeout)
        while true {
            do {
                let opened = try translatingErrors { try openQueue(configuration) }
                queue = opened
                return opened
            } catch let error as CLSError where error.isBusy && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(Int.random(in: 2...20)))
            }
        }
    }

    /// The connection's settings: the busy timeout, and the checks and modes every connection
    /// sets before it reads or writes.
    private nonisolated func makeConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "clsfile-store"
        let path = self.path
        configuration.prepareDatabase { db in
            // Before anything can be written: WAL mode writes to the file. In one transaction, so
            // that a store another process is making is seen before or after, never half made.
            try Self.reading(db) { db in try StoreSchema.checkOwnership(of: db, path: path) }
            try Self.configure(db, path: path)
        }
        return configuration
    }

    /// Runs work in one write transaction on a connection of its own, on the caller's thread, and
    /// closes it: for ClassKit's synchronous calls that must be durable when they return, without
    /// blocking a thread the actor may need.
    nonisolated func writingNow<T>(_ work: (Database) throws -> T) throws -> T {
        try translatingErrors {
            try prepareLocation()
            // Closed when it goes out of scope.
            let connection = try openQueue(makeConfiguration())
            return try connection.writeWithoutTransaction { db in try Self.writing(db, work) }
        }
    }

    /// The activity whose running span started last, by any process, read on the caller's thread
    /// over a connection of its own (for ClassKit's synchronous ``CLSDataStore/runningActivity``).
    nonisolated func runningActivityNow() throws -> ActivityRecord? {
        try writingNow { db in try ActivityTable.runningLatest(in: db) }
    }

    /// WAL mode, commits that do not wait for the disk, and a log kept for the next process.
    private static func configure(_ db: Database, path: String) throws {
        let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        guard mode == "wal" else {
            throw CLSError(
                .databaseInaccessible,
                "cannot switch the store \(path) to WAL mode (it stays in \(mode ?? "an unknown") mode): check that its file system supports shared memory, or choose another store path"
            )
        }
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
        let result = ResultCode(rawValue: clsfile_sqlite_keep_wal_on_close(UnsafeMutableRawPointer(db.sqliteConnection)))
        guard result == .SQLITE_OK else { throw DatabaseError(resultCode: result) }
    }

    private nonisolated func openQueue(_ configuration: Configuration) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let path = self.path
        // Most opens find the schema current: check with a read before taking the write lock.
        var running = try queue.writeWithoutTransaction { db in
            try Self.reading(db) { db in try StoreSchema.needsMigration(db) ? nil : try Self.ownedRunningSpans(in: db) }
        }
        if running == nil {
            running = try queue.writeWithoutTransaction { db in
                try Self.writing(db) { db in try StoreSchema.migrate(db, path: path) }
                return try Self.ownedRunningSpans(in: db)
            }
        }
        try endSpansOfDeadProcesses(running ?? [], in: queue)
        return queue
    }

    /// Makes the folder (0700) and an empty file (0600) when missing; refuses what is not a file,
    /// and throws why a storage cannot be used at all.
    private nonisolated func prepareLocation() throws {
        if let unusableReason { throw unusableReason }
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: return
            case S_IFDIR:
                throw CLSError(
                    .databaseInaccessible,
                    "store path \(path) is a directory: give the path of a file inside it, such as \(path)/store.sqlite")
            default:
                throw CLSError(.databaseInaccessible, "store path \(path) is not a regular file: choose another store path")
            }
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLSError(
                    .databaseInaccessible,
                    "cannot create the store folder \(folder): \(error.localizedDescription); check its parent's permissions or choose another store path"
                )
            }
        }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            let reason = String(cString: strerror(errno))
            throw CLSError(
                .databaseInaccessible,
                "cannot create the store \(path): \(reason); check the folder's permissions or choose another store path")
        }
    }

    /// Ends the spans of processes and editor runs that are gone, as each opening of the store
    /// does, for a process that keeps the store open.
    func endSpansOfEndedProcesses() async throws {
        let queue = try await database()
        try translatingErrors {
            let running = try queue.writeWithoutTransaction { db in try Self.reading(db) { db in try Self.ownedRunningSpans(in: db) } }
            try endSpansOfDeadProcesses(running, in: queue)
        }
    }

    /// The running spans that a process owns, and those that a process handed over in an editor
    /// run (a plugin's hook, which exits while the editor goes on).
    private static func ownedRunningSpans(in db: Database) throws -> [Row] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, owner_host, owner_boot, owner_pid, owner_start, editor_run FROM time_span
                WHERE ended_at IS NULL AND (owner_pid IS NOT NULL OR editor_run IS NOT NULL)
                """)
    }

    /// Ends, at their last pulse, the running spans of processes on this host that are gone, and
    /// those handed over in an editor run whose editor is gone from this host (killed, or crashed
    /// before its plugin could send the close): the session ended at its last sign of work.
    private nonisolated func endSpansOfDeadProcesses(_ running: [Row], in queue: DatabaseQueue) throws {
        let dead = running.filter { row in
            if let pid: Int64 = row["owner_pid"] {
                return ProcessIdentity(
                    host: row["owner_host"] ?? "", bootID: row["owner_boot"] ?? "",
                    pid: pid, startTicks: row["owner_start"] ?? 0
                ).isKnownDead
            }
            return (row["editor_run"] as String?).map(ProcessIdentity.hasEndedOnThisBoot) ?? false
        }.map { $0["id"] as String }
        guard !dead.isEmpty else { return }
        try queue.write { db in
            for id in dead { try ActivityTable.endAbandonedSpan(id, in: db) }
        }
    }

    // MARK: Access

    /// Runs database work at once, on the actor, when it need not wait for another process; else
    /// on GRDB's queue, which waits up to the busy timeout.
    ///
    /// Most calls find the store free, and running them here spares two thread switches each,
    /// which is most of what a hook waits for on a busy machine. Work done here never waits for a
    /// lock (its busy timeout is zero, so a locked store fails it at once, before it changed
    /// anything), so it holds a cooperative thread only for its own reads and writes; and it is
    /// tried only while no other call waits on the queue, behind which it would block.
    func access<T: Sendable>(
        _ queue: DatabaseQueue,
        _ work: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        if waitingCalls == 0 {
            let busyTimeout = self.busyTimeout
            // Typed as a plain closure so that the synchronous overload is chosen.
            let attempt: (Database) throws -> T = { db in
                try Self.withoutWaiting(db, busyTimeout: busyTimeout) { try work(db) }
            }
            do {
                return try queue.writeWithoutTransaction(attempt)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                // Another process holds the store: wait for it below.
            }
        }
        waitingCalls += 1
        defer { waitingCalls -= 1 }
        return try await queue.writeWithoutTransaction(work)
    }

    /// Runs work with a busy timeout of zero, then restores the connection's own.
    private static func withoutWaiting<T>(_ db: Database, busyTimeout: TimeInterval, _ work: () throws -> T) throws -> T {
        let connection = UnsafeMutableRawPointer(db.sqliteConnection)
        clsfile_sqlite_set_busy_timeout(connection, 0)
        defer { clsfile_sqlite_set_busy_timeout(connection, CInt(busyTimeout * 1000)) }
        return try work()
    }

    // MARK: Reading

    /// Runs reads in one deferred transaction, so that they see one state of the store.
    ///
    /// Not `DatabaseQueue.read`: it switches the connection to `query_only` and back, and each
    /// switch makes SQLite recompile every cached statement on its next use.
    static func reading<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try transaction(.deferred, db, body)
    }

    /// Runs writes in one IMMEDIATE transaction, which takes the write lock at once, so that a busy
    /// store is found before anything is read for the write.
    static func writing<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try transaction(.immediate, db, body)
    }

    /// Runs work in one transaction of the given kind: committed when it returns, rolled back when it throws.
    private static func transaction<T>(_ kind: Database.TransactionKind, _ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.beginTransaction(kind)
        do {
            let value = try body(db)
            try db.commit()
            return value
        } catch {
            try? db.rollback()
            throw error
        }
    }

    /// Runs work in one read transaction (see ``reading(_:_:)``), its errors translated.
    func reading<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let queue = try await database()
        return try await translatingErrors { try await access(queue) { db in try Self.reading(db, work) } }
    }

    /// Runs work in one write transaction (see ``writing(_:_:)``), all or nothing, its errors translated.
    func writing<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let queue = try await database()
        return try await translatingErrors { try await access(queue) { db in try Self.writing(db, work) } }
    }

    /// Reads the current activity of a file, or nil when the file has none; writes nothing.
    func existingActivity(atPath path: [UInt8]) async throws -> ActivityRecord? {
        try await reading { db in try ActivityTable.lookUp(path, in: db) }
    }

    /// Reads the current activity of a file, creating its context and activity when it has none.
    /// A file that moved (same device and inode, old path gone) takes its history along.
    func activity(for file: FileIdentity) async throws -> ActivityRecord {
        if let record = try await reading({ db in try ActivityTable.lookUp(file.path, in: db) }), record.file == file {
            return record
        }
        let appIdentifier = self.appIdentifier
        return try await writing { db in try ActivityTable.findOrCreate(file, appIdentifier: appIdentifier, in: db) }
    }

    /// Reads every file activity, oldest first, one at a time, into a result. Records read
    /// `forViewing` leave out what only a save needs (span identifiers and owners): they cost less
    /// to read and must never be saved.
    func reduceActivities<Result: Sendable>(
        into initial: Result, forViewing: Bool,
        _ update: @escaping @Sendable (inout Result, ActivityRecord) throws -> Void
    ) async throws -> Result {
        try await reading { db in
            var result = initial
            try ActivityTable.forEachRecord(in: db, forViewing: forViewing) { try update(&result, $0) }
            return result
        }
    }

    // MARK: Attempts

    /// The newest attempt of a context, read at once on the caller's thread; nil when it has none.
    nonisolated func currentActivityNow(ofContext contextID: Int64) throws -> ActivityRecord? {
        try writingNow { db in try ActivityTable.newestAttempt(ofContext: contextID, in: db) }
    }

    /// Adds an attempt after the context's newest; the running spans of the earlier attempts end
    /// at their last pulse, so the earlier attempts stop for good.
    func createAttempt(ofContext contextID: Int64) async throws -> ActivityRecord {
        try await writing { db in try ActivityTable.addAttempt(ofContext: contextID, at: Date().timeIntervalSince1970, in: db) }
    }

    /// The newest attempt of every app context below a context (course documents included).
    func currentActivities(below contextID: Int64) async throws -> [ActivityRecord] {
        try await reading { db in
            try ContextTable.tree(under: contextID, in: db).compactMap { context in
                try ActivityTable.newestAttempt(ofContext: context.id, in: db)
            }
        }
    }

    /// A context and its ancestors, root first, read at once on the caller's thread.
    nonisolated func contextChainNow(to contextID: Int64) throws -> [ContextRecord] {
        try writingNow { db in try ContextTable.chain(to: contextID, in: db) }
    }

    // MARK: Saving

    /// Writes every change in one transaction, all or nothing, merging with what other processes
    /// saved, and returns what the store then holds for each activity, in the same order: nil for
    /// one no other writer changed since the changes were made (the caller's view is the store's),
    /// and the `modified_at` the save wrote.
    func save(_ changes: [ActivityChanges]) async throws -> (records: [ActivityRecord?], savedAt: Double) {
        let queue = try await database()
        let walPath = path + "-wal", busyTimeout = self.busyTimeout
        savesMade += 1
        let threshold = savesMade > Self.longLivedSaves ? Self.longLivedCheckpointThreshold : Self.checkpointThreshold
        let saved = try await translatingErrors {
            try await access(queue) { db in
                let now = Date().timeIntervalSince1970
                let records = try Self.writing(db) { db in
                    try changes.map { change -> ActivityRecord? in
                        // Another writer came between unless the activity is as the changes found it:
                        // only then is reading it back (all its history) needed.
                        let before = try Double.fetchOne(
                            db.cachedStatement(sql: "SELECT modified_at FROM activity WHERE id = ?"),
                            arguments: [change.activityID])
                        try ActivityTable.write(change, at: now, in: db)
                        return before == change.expectedModifiedAt ? nil : try ActivityTable.load(change.activityID, in: db)
                    }
                }
                Self.checkpointIfLarge(db, walPath: walPath, threshold: threshold, busyTimeout: busyTimeout)
                return (records: records, savedAt: now)
            }
        }
        let me = ProcessIdentity.current
        let isMine = { (span: SpanRecord) -> Bool in span.end == nil && span.owner == me }
        let spans = saved.records.compactMap { $0 }.flatMap { $0.spans } + changes.flatMap { $0.spans }
        if spans.contains(where: isMine) {
            SpanHandover.register(queue, storePath: path)
        }
        return saved
    }

    /// The current activity of a file and its `modified_at`, or nil when it has none; reads one row.
    func version(of file: FileIdentity) async throws -> (activityID: Int64, modifiedAt: Double)? {
        let queue = try await database()
        return try await translatingErrors {
            try await access(queue) { db in
                try ActivityTable.version(of: file, in: db)
            }
        }
    }

    /// Copies the write-ahead log into the database file and empties it once it is past
    /// `threshold`. The save is already committed: a checkpoint that another process
    /// keeps from finishing, or that fails, is left to a later save.
    private static func checkpointIfLarge(_ db: Database, walPath: String, threshold: Int, busyTimeout: TimeInterval) {
        var info = stat()
        guard stat(walPath, &info) == 0, info.st_size > threshold else { return }
        _ = clsfile_sqlite_truncate_wal(UnsafeMutableRawPointer(db.sqliteConnection), CInt(busyTimeout * 1000))
    }

    // MARK: Errors

    private nonisolated func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw SQLiteErrorTranslator.translate(error, path: path, busyTimeout: busyTimeout) }
    }

    func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw SQLiteErrorTranslator.translate(error, path: path, busyTimeout: busyTimeout) }
    }
}
