import Foundation

/// Where a data store keeps its activities. ``SQLiteStorage`` is the real one; the protocol leaves
/// room for another backend, such as a class server.
protocol ActivityStorage: AssignmentStorage, ContextStorage, SyncStorage, HistoryStorage {
    /// Reads the current activity of a file, creating its context and activity when it has none.
    /// A file that moved (same device and inode, old path gone) takes its history along.
    func activity(for file: FileIdentity) async throws -> ActivityRecord

    /// Reads the current activity of a file, or nil when the file has none; writes nothing.
    func existingActivity(atPath path: [UInt8]) async throws -> ActivityRecord?

    /// Reads every file activity, oldest first, one at a time, into a result. Records read
    /// `forViewing` leave out what only a save needs (span identifiers and owners): they cost less
    /// to read and must never be saved.
    func reduceActivities<Result: Sendable>(into initial: Result, forViewing: Bool,
                                            _ update: @escaping @Sendable (inout Result, ActivityRecord) throws -> Void) async throws -> Result

    /// Writes every change in one transaction, all or nothing, merging with what other processes
    /// saved, and returns what the store then holds for each activity, in the same order: nil for
    /// one no other writer changed since the changes were made (the caller's view is the store's),
    /// and the `modified_at` the save wrote.
    func save(_ changes: [ActivityChanges]) async throws -> (records: [ActivityRecord?], savedAt: Double)

    /// The activity whose running span started last, by any process; read at once, on the
    /// caller's thread.
    func runningActivityNow() throws -> ActivityRecord?

    /// The current activity of a file and its `modified_at`, or nil when it has none; reads one row.
    func version(of file: FileIdentity) async throws -> (activityID: Int64, modifiedAt: Double)?

    /// The newest attempt of a context, read at once on the caller's thread; nil when it has none.
    func currentActivityNow(ofContext contextID: Int64) throws -> ActivityRecord?

    /// Adds an attempt after a context's newest, ending the running spans of the earlier ones.
    func createAttempt(ofContext contextID: Int64) async throws -> ActivityRecord

    /// The newest attempt of every app context below a context (course documents included).
    func currentActivities(below contextID: Int64) async throws -> [ActivityRecord]
}

/// Where assignments and collected submissions are kept: the same store as the activities.
protocol AssignmentStorage: Sendable {
    /// Records a teacher's assignment; recording the same one again changes nothing.
    func record(_ assignment: Assignment) async throws

    /// Ties an assignment to a student's file, replacing an earlier tie of the same assignment.
    func accept(_ assignment: Assignment, for file: FileIdentity) async throws

    /// Accepts an assignment of a context tree; returns how many contexts' work reports to it.
    func acceptContextTree(_ assignment: Assignment) async throws -> Int

    /// Every assignment, oldest first, with its file and done date where it has them.
    func assignments() async throws -> [Assignment]

    /// The assignment tied to a file, if any.
    func assignment(for file: FileIdentity) async throws -> Assignment?

    /// Removes an assignment (and, in a teacher's store, what was collected for it); false when
    /// there was none.
    func removeAssignment(identifier: String) async throws -> Bool

    /// Sets the done date of the assigned files' activities that have none; returns how many files
    /// are assigned among those given.
    func complete(assignmentsOf contextIDs: [Int64]?, at date: Date) async throws -> Int

    /// The identifier path (from the main app context) of every assigned context, with its row.
    func assignedContexts() async throws -> [(contextID: Int64, identifierPath: [String])]

    /// Imports a collected submission, keeping only the latest per student and assignment.
    func importSubmission(_ submission: Submission) async throws -> Submission.ImportResult

    /// The submissions collected for an assignment, by student name.
    func submissions(forAssignment identifier: String) async throws -> [Submission]

    /// Every submission kept aside as a conflict.
    func keptAsideSubmissions() async throws -> [Submission]

    /// Keeps a submission aside as a conflict.
    func keepAside(_ submission: Submission) async throws

    /// Pins a student's new key and imports what was kept aside under it, dated up to a date.
    func trust(_ key: Data, forStudent student: String, datedUpTo latestDate: Date) async throws -> [Submission.ImportResult]

    /// The key pinned for a student, if any.
    func pinnedKey(forStudent student: String) async throws -> Data?

    /// Every submission accepted for an assignment.
    func submissionHistory(forAssignment identifier: String) async throws -> [Submission]

    /// Marks done, at once and on the caller's thread, the assigned files whose identifier path
    /// starts with a full path (from the main app context); returns how many matched.
    func completeNow(matching contextPath: [String], at date: Date) throws -> Int
}

/// Where the context tree is kept: the same store as the activities.
protocol ContextStorage: Sendable {
    /// The row of the main app context, made when missing.
    func rootContext(appIdentifier: String) async throws -> Int64

    /// The child of a context with an identifier, if stored.
    func childContext(of parentID: Int64, identifier: String) async throws -> ContextRecord?

    /// The stored children of a context that are not file contexts.
    func childContexts(of parentID: Int64) async throws -> [ContextRecord]

    /// Every app context below a root, parents before children.
    func contextTree(under rootID: Int64) async throws -> [ContextRecord]

    /// Writes context changes in one transaction; returns the row of each insert.
    func saveContexts(_ changes: [ContextChange]) async throws -> [Int64?]

    /// Makes a file the document of an app context: the context takes the file's path, and what
    /// was recorded for the file so far moves into it. Returns false when it was so already.
    func bindDocument(_ file: FileIdentity, toContext contextID: Int64) async throws -> Bool

    /// Makes a context the active one for this process, at once, on the caller's thread.
    func setActiveContextNow(_ id: Int64) throws

    /// Ends a context's being active for this process, at once.
    func resignActiveContextNow(_ id: Int64) throws

    /// The active context and its ancestors, root first, read at once; empty when none is active.
    func activeContextChainNow() throws -> [ContextRecord]

    /// A context and its ancestors, root first, read at once.
    func contextChainNow(to contextID: Int64) throws -> [ContextRecord]
}

/// Where the class server a store syncs to and its outbox are kept: the same store as the activities.
protocol SyncStorage: Sendable {
    /// The classes joined on the class server the store syncs to, oldest first.
    func classServerMemberships() async throws -> [ClassServerMembership]

    /// Records a class joined and queues its teacher's assigned work recorded so far; returns how many operations that queued.
    func joinClassServer(_ membership: ClassServerMembership) async throws -> Int

    /// Leaves one class, or all and the server (nil), dropping what waited for them; returns how many operations went.
    func leaveClassServer(classID: UUID?) async throws -> Int

    /// The accepted assignments whose work goes to no class joined.
    func assignmentsSyncedNowhere() async throws -> [Assignment]

    /// The oldest operations waiting, at most `limit`, all for one class, none for the classes `excluded`.
    func pendingOperations(limit: Int, excluding excluded: Set<UUID>, excludingAssignments excludedAssignments: [UUID: Set<String>]) async throws -> [OutboxEntry]

    /// How many operations wait.
    func outboxDepth() async throws -> Int

    /// Removes acknowledged operations and notes a sync that reached the server.
    func acknowledgeOperations(_ sequences: [Int64], at date: Date) async throws

    /// Notes a sync that failed.
    func recordSyncFailure(_ reason: String) async throws

    /// Sets aside an operation the server refused.
    func setAsideOperation(_ sequence: Int64, reason: String) async throws

    /// How many operations the server refused, and the latest reason.
    func refusedOperations() async throws -> (count: Int, latestReason: String?)
}
