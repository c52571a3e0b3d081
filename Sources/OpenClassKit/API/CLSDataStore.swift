import Foundation
internal import NIOConcurrencyHelpers

/// The store of every activity: fetch a file's activity, change it, save.
///
/// ```swift
/// let activity = try await CLSDataStore.shared.fetchActivity(for: fileURL)
/// activity.start()
/// try await CLSDataStore.shared.save()
/// ```
///
/// ``shared`` keeps its data in `$CLSFILE_STORE` when that is set, else in
/// `$XDG_DATA_HOME/clsfile/store.sqlite` (`~/.local/share/clsfile/store.sqlite`). The store is one
/// SQLite file that any number of processes may read and write at once; saves merge.
public final class CLSDataStore: Sendable {
    /// Settings of a data store.
    public struct Configuration: Sendable {
        /// The identifier of the main app context: the tool that reports.
        public var appIdentifier: String
        /// How long a save waits for another process that holds the store before it fails.
        public var busyTimeout: TimeInterval

        /// Creates settings.
        /// - Parameters:
        ///   - appIdentifier: The identifier of the main app context; `"clsfile"` by default.
        ///   - busyTimeout: Seconds a save waits for another process; 5 by default.
        public init(appIdentifier: String = "clsfile", busyTimeout: TimeInterval = 5) {
            self.appIdentifier = appIdentifier
            self.busyTimeout = busyTimeout
        }
    }

    /// The data store of this user, at ``defaultStoreURL``. When that cannot be worked out (the
    /// development-mode settings are damaged), every call on it throws the reason.
    public static let shared: CLSDataStore = {
        do {
            return CLSDataStore(storeURL: try defaultStoreURL)
        } catch {
            let reason = error as? CLSError ?? CLSError(.databaseInaccessible, "\(error)")
            let settings = DeveloperMode.settingsURL
            return CLSDataStore(
                storeURL: settings,
                storage: SQLiteStorage(
                    path: settings.path, appIdentifier: "clsfile", busyTimeout: 0,
                    unusableBecause: reason))
        }
    }()

    /// Where ``shared`` keeps its data: `$CLSFILE_STORE` when set; else the store of the
    /// development-mode role in force (``DeveloperMode/storeURL(for:dataHome:)``): with no role,
    /// `$XDG_DATA_HOME/clsfile/store.sqlite` (`~/.local/share/clsfile/store.sqlite`).
    /// - Throws: ``CLSError`` when the development-mode settings exist but are damaged.
    public static var defaultStoreURL: URL {
        get throws {
            // getenv reads one variable; ProcessInfo's environment copies them all, on every hook call.
            if let path = getenv("CLSFILE_STORE"), path.pointee != 0 {
                return URL(
                    fileSystemPathBytes: Array(
                        UnsafeBufferPointer(
                            start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path))))
            }
            return DeveloperMode.storeURL(for: try DeveloperMode.current().role)
        }
    }

    /// The file that holds this store's data. For a ``shared`` store whose place could not be
    /// worked out, the damaged settings file that is to blame.
    public let storeURL: URL
    /// The root of the context tree: the tool that reports.
    public let mainAppContext: CLSContext

    let storage: SQLiteStorage
    /// The context tree: what was read, made and changed of it.
    let contextTree: ContextTree
    private var tracker: ChangeTracker { contextTree.instances.tracker }
    /// The activities fetched last, kept alive so that fetching one again, as a long-lived
    /// process such as `hook --stdio` does for every event, reads one row instead of its history.
    private let recent = NIOLockedValueBox<[CLSActivity]>([])
    private static let recentCount = 16

    /// Keeps an activity among the recent ones, the oldest leaving first.
    private func keep(_ activity: CLSActivity) -> CLSActivity {
        recent.withLockedValue { recent in
            recent.removeAll { $0 === activity }
            recent.append(activity)
            if recent.count > Self.recentCount { recent.removeFirst() }
        }
        return activity
    }

    /// Opens the store kept in a given file. The file and its folder are made on first use.
    /// - Parameters:
    ///   - storeURL: The SQLite file of the store.
    ///   - configuration: Settings; the defaults suit most tools.
    public convenience init(storeURL: URL, configuration: Configuration = Configuration()) {
        self.init(
            storeURL: storeURL, appIdentifier: configuration.appIdentifier,
            storage: SQLiteStorage(
                path: storeURL.path, appIdentifier: configuration.appIdentifier,
                busyTimeout: configuration.busyTimeout))
    }

    init(storeURL: URL, appIdentifier: String = "clsfile", storage: SQLiteStorage) {
        self.storeURL = storeURL
        self.storage = storage
        contextTree = ContextTree(storage: storage, appIdentifier: appIdentifier)
        mainAppContext = CLSContext(
            type: .app, identifier: appIdentifier, title: appIdentifier, parent: nil, path: nil,
            tree: contextTree)
    }

    /// The activity most recently started that is still running: the one started through this
    /// data store, else the one whose running span started last in the store, whichever process
    /// started it (read from the store at once). When the store cannot be read, it is nil and the
    /// failure goes to the handler of ``reportExitFailures(to:)``.
    public var runningActivity: CLSActivity? {
        if let started = tracker.lastStarted, started.isStarted { return started }
        do {
            return try storage.runningActivityNow().map(instance(for:))
        } catch {
            SpanHandover.report(error as? CLSError ?? CLSError(.databaseInaccessible, "reading the running activity failed: \(error)"))
            return nil
        }
    }

    // MARK: Fetching

    /// Returns the activity of a file, creating it when the file has none.
    ///
    /// The file is found by its canonical path, so relative paths, symbolic links and `file://` URLs
    /// that name one file all reach one activity; a file moved with `mv` keeps its activity. Within
    /// one data store, fetching a file twice gives the same instance.
    /// - Parameter url: A file URL naming an existing regular file.
    /// - Returns: The file's current activity.
    /// - Throws: ``CLSError`` `.invalidArgument` for a URL that names no regular file,
    ///   `.databaseInaccessible` when the store cannot be used.
    public func fetchActivity(for url: URL) async throws -> CLSActivity {
        let file = try FileIdentity(resolving: url)
        // A recent view of the file that no one changed since is the store's: one row read, not
        // the whole history. A process that holds none (every hook call) reads the file once.
        if let held = recent.withLockedValue({ $0.last { $0.context.path == file.path } }),
            let version = try await storage.version(of: file), version.activityID == held.activityID,
            held.matches(storedModifiedAt: version.modifiedAt)
        {
            return keep(held)
        }
        return keep(instance(for: try await storage.activity(for: file)))
    }

    /// Returns the activity of a file, creating it when the file has none, to a completion handler
    /// that may run on any thread.
    /// - Parameters:
    ///   - url: A file URL naming an existing regular file.
    ///   - completion: Called with the activity, or with the error.
    public func fetchActivity(
        for url: URL,
        completion: @escaping @Sendable (CLSActivity?, (any Error)?) -> Void
    ) {
        Task {
            do { completion(try await fetchActivity(for: url), nil) } catch { completion(nil, error) }
        }
    }

    /// Returns the activity of a file if it has one, creating nothing.
    /// - Parameter url: A file URL naming an existing regular file.
    /// - Returns: The file's activity, or nil when nothing was ever recorded for it.
    /// - Throws: ``CLSError`` as ``fetchActivity(for:)`` does.
    public func existingActivity(for url: URL) async throws -> CLSActivity? {
        let file = try FileIdentity(resolving: url)
        return try await storage.existingActivity(atPath: file.path).map(instance(for:))
    }

    /// Returns the activity last recorded at a path, whether a file is there now or not, so that
    /// the session of a file deleted or renamed while open can still be stopped. Not part of
    /// ClassKit.
    /// - Parameter url: A file URL whose folder exists (symbolic links in the folder are resolved).
    /// - Returns: The activity, or nil when nothing was recorded at the path or its folder is gone.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read.
    public func activityRecorded(at url: URL) async throws -> CLSActivity? {
        let requested = PathBytes.percentDecoded(url.absoluteURL.path(percentEncoded: true))
        guard let slash = requested.lastIndex(of: UInt8(ascii: "/")),
            case .success(let folder) = PathBytes.realPath(of: slash == 0 ? [UInt8(ascii: "/")] : Array(requested[..<slash]))
        else { return nil }
        let path = (folder.last == UInt8(ascii: "/") ? folder : folder + [UInt8(ascii: "/")]) + requested[(slash + 1)...]
        return try await storage.existingActivity(atPath: path).map(instance(for:))
    }

    /// Returns the activity of every file in the store, oldest first.
    ///
    /// Every activity is held in memory at once; to read a large store, use
    /// ``reduceActivities(into:_:)``.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read.
    public func allActivities() async throws -> [CLSActivity] {
        try await storage.reduceActivities(into: [ActivityRecord](), forViewing: false) { $0.append($1) }.map(instance(for:))
    }

    /// Reads the activity of every file in the store, oldest first, one at a time, into a result:
    /// memory holds a few hundred activities however large the store, so a report over 100,000
    /// files stays small. The activities are read-only views, read in one transaction; a change
    /// made to one is never saved (fetch the file's activity to change it). `update` runs on a
    /// thread of its own while the store reads ahead, so a large store is read and reduced on two
    /// cores at once. Not part of ClassKit.
    ///
    /// ```swift
    /// let words = try await store.reduceActivities(into: 0.0) { total, activity in
    ///     total += (activity.primaryActivityItem as? CLSQuantityItem)?.quantity ?? 0
    /// }
    /// ```
    /// - Parameters:
    ///   - initial: The result before the first activity.
    ///   - update: Adds one activity to the result, one activity after another.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read, or what
    ///   `update` throws, which ends the reading.
    public func reduceActivities<Result: Sendable>(
        into initial: Result,
        _ update: @escaping @Sendable (inout Result, CLSActivity) throws -> Void
    ) async throws -> Result {
        let store = self
        let ahead = ReadAhead<ActivityRecord>(capacity: 4)
        let reduced = ReadAhead<ActivityRecord>.startThread { () throws -> Result in
            do {
                var result = initial
                let tracker = ChangeTracker()
                while let batch = try ahead.receive() {
                    for record in batch {
                        try update(
                            &result, CLSActivity(record: record, context: store.context(of: record, forViewing: true), tracker: tracker))
                    }
                }
                return result
            } catch {
                ahead.stop()
                throw error
            }
        }
        do {
            let rest = try await storage.reduceActivities(into: [ActivityRecord](), forViewing: true) { batch, record in
                batch.append(record)
                if batch.count == 256 {
                    // A new array, not the sent one emptied: the worker owns that buffer now, and
                    // reusing it would hand it back through its reference count alone, which
                    // ThreadSanitizer cannot see (the runtime that counts is not instrumented).
                    try ahead.send(batch)
                    batch = []
                    batch.reserveCapacity(256)
                }
            }
            if !rest.isEmpty { try ahead.send(rest) }
            ahead.finish(throwing: nil)
        } catch {
            // The worker throws it, or its own error when it stopped first.
            ahead.finish(throwing: error)
        }
        return try await reduced.value
    }

    /// The context of an activity: for a plain file, a document context under the main app
    /// context; else the stored context in the store's tree. A read-only view's own context is
    /// kept out of the tree (a report makes one for each of 100,000 files).
    func context(of record: ActivityRecord, forViewing: Bool) -> CLSContext {
        guard let root = record.contextChain.first, let own = record.contextChain.last, root.identifier == mainAppContext.identifier else {
            let path = record.file?.path ?? []
            return CLSContext(
                type: .document, identifier: PathBytes.display(path),
                title: record.contextTitle ?? PathBytes.fileName(of: path), parent: mainAppContext, path: path,
                rowID: record.contextID, tree: forViewing ? nil : contextTree)
        }
        if mainAppContext.rowID == nil { mainAppContext.rowID = root.id }
        var parent = mainAppContext
        for link in record.contextChain.dropFirst().dropLast() { parent = parent.adoptStoredChild(link, tree: contextTree) }
        return forViewing ? CLSContext(record: own, parent: parent, tree: nil) : parent.adoptStoredChild(own, tree: contextTree)
    }

    /// The one instance of a stored activity, refreshed with what the store holds.
    func instance(for record: ActivityRecord) -> CLSActivity {
        contextTree.instances.instance(for: record) { context(of: record, forViewing: false) }
    }

    /// Sets where a failure that no call can return is reported: at a normal exit, the running
    /// time spans this process started are handed over to later processes, and that can fail
    /// (the spans then end at their last pulse); ``completeAllAssignedActivities(matching:)``
    /// returns nothing, and can fail. Nothing is shown by default. Not part of ClassKit.
    /// - Parameter handler: Called, at most once a store, as the process exits.
    public static func reportExitFailures(to handler: @escaping @Sendable (CLSError) -> Void) {
        SpanHandover.reportFailures(to: handler)
    }

    // MARK: Saving

    /// Writes every unsaved change of every activity fetched from this store, in one transaction.
    ///
    /// Changes that other processes saved meanwhile are merged, not overwritten: time spans and
    /// progress ranges unite, and items are last-writer-wins by identifier. A save counts as a sign
    /// of work on every activity started with ``CLSActivity/start()`` that still runs, so a process
    /// that dies without stopping keeps its time up to its last save.
    /// - Throws: ``CLSError``: `.invalidArgument` for a bad value (NaN progress, a score above its
    ///   maximum), with the activity or item as its ``CLSError/object``; `.partialFailure` when some
    ///   activities had such a value and the others were saved (``CLSError/underlyingErrors``,
    ///   ``CLSError/successfulObjects``); `.invalidCreate` for a new attempt whose context is not in
    ///   the tree (reported once; it is saved when its context is added again);
    ///   `.invalidModification` for a primary item of a new
    ///   subclass and `.databaseInaccessible` when the store cannot be written, after which nothing
    ///   was written. Changes that were not written stay pending.
    public func save() async throws {
        try await contextTree.save()
        var failures: [CLSError] = []
        for activity in tracker.changedActivities where activity.isUnsaved {
            do {
                try await createRow(of: activity)
            } catch let error as CLSError {
                failures.append(error.object == nil ? error.about(activity) : error)
            }
        }
        for activity in tracker.startedActivities { activity.pulseForSave() }
        let changed = tracker.changedActivities
        var batch: [(activity: CLSActivity, changes: ActivityChanges, sequence: Int)] = []
        for activity in changed where !activity.isUnsaved {
            do {
                if let (changes, sequence) = try activity.changesToSave() {
                    batch.append((activity, changes, sequence))
                }
            } catch let error as CLSError {
                failures.append(error.object == nil ? error.about(activity) : error)
            }
        }
        if !batch.isEmpty {
            let saved = try await storage.save(batch.map(\.changes))
            for (entry, record) in zip(batch, saved.records) {
                entry.activity.didSave(record, through: entry.sequence, savedAt: saved.savedAt)
            }
        }
        tracker.didSave(changed)
        guard let first = failures.first else { return }
        if batch.isEmpty && failures.count == 1 { throw first }
        throw CLSError(
            batch.isEmpty ? first.code : .partialFailure,
            "\(batch.count) of \(batch.count + failures.count) changed activities were saved; the others were not: \(failures.map(\.message).joined(separator: "; "))",
            object: batch.isEmpty ? first.object : nil, underlyingErrors: failures,
            successfulObjects: batch.map(\.activity))
    }

    /// Drops every change that no save wrote, of every activity fetched from this store: each shows
    /// what the store holds once fetched again, and a new attempt not yet saved is never written.
    /// For changes kept elsewhere to be written later (events put in the spool while the store was
    /// busy), which, left pending too, would be written twice. Not part of ClassKit.
    package func discardUnsavedChanges() {
        for activity in tracker.changedActivities {
            activity.discardUnsavedChanges()
            tracker.forget(activity)
        }
    }

    /// Writes the row of a new attempt (``CLSContext/createNewActivity()``), whose context the
    /// tree's save has just written. An attempt whose context is not in the tree is refused once
    /// and left out of later saves, until its context is added to the tree again.
    private func createRow(of activity: CLSActivity) async throws {
        guard let contextID = activity.context.rowID else {
            tracker.forget(activity)
            throw CLSError(
                .invalidCreate,
                "the activity of the context \(activity.context.identifierPath.joined(separator: "/")) cannot be saved: the context is not in the data store's tree; add it under mainAppContext or one of its descendants, then save"
            )
        }
        activity.didCreate(try await storage.createAttempt(ofContext: contextID))
        contextTree.instances.register(activity)
    }

    /// Writes every unsaved change, then calls a completion handler that may run on any thread.
    /// - Parameter completion: Called with nil on success, or with the error.
    public func save(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        Task {
            do {
                try await save()
                completion?(nil)
            } catch {
                completion?(error)
            }
        }
    }
}
