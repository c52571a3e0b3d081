import Foundation

/// Syncing a student's assigned work to a class server. Not part of ClassKit.
///
/// Once ``joinClassServer(_:)`` records a server, each save of an assigned document's activity
/// also writes a ``SyncOperation`` to the store's outbox, in the save's own transaction: work is
/// never recorded without its operation, offline or not. A sync reads them in order
/// (``pendingSyncOperations(limit:)``), sends them, and removes those the server acknowledged
/// (``acknowledgeSyncOperations(_:)``). Unassigned work is never queued.
extension CLSDataStore {
    /// The class server this store syncs to; nil when none was joined.
    public func classServerMembership() async throws -> ClassServerMembership? {
        try await storage.classServerMembership()
    }

    /// Records the server a class was joined on and queues the assigned work recorded so far, so
    /// that it reaches the server too. Joining another server or class drops what waited for the
    /// previous one.
    /// - Returns: How many operations were queued for the work recorded before.
    @discardableResult
    public func joinClassServer(_ membership: ClassServerMembership) async throws -> Int {
        try await storage.joinClassServer(membership)
    }

    /// Stops syncing: forgets the server and empties the outbox.
    /// - Returns: How many operations were dropped unsent.
    @discardableResult
    public func leaveClassServer() async throws -> Int {
        try await storage.leaveClassServer()
    }

    /// The oldest operations waiting to be sent, at most `limit`, in the order they were made,
    /// all for one class (``OutboxEntry/classID``): the class of the oldest.
    public func pendingSyncOperations(limit: Int) async throws -> [OutboxEntry] {
        try await storage.pendingOperations(limit: limit)
    }

    /// How many operations wait to be sent.
    public func syncOutboxDepth() async throws -> Int {
        try await storage.outboxDepth()
    }

    /// Removes the operations the server acknowledged and notes the time of the sync.
    public func acknowledgeSyncOperations(_ sequences: [Int64], at date: Date = Date()) async throws {
        try await storage.acknowledgeOperations(sequences, at: date)
    }

    /// How many sync operations this process has queued in any store's outbox since it started
    /// (a few may have been rolled back with a failed save). A program that records work checks
    /// it to learn, without reading the store, whether a sync may be due.
    public static var syncOperationsQueuedByThisProcess: Int {
        OutboxTable.queuedInThisProcess.withLockedValue { $0 }
    }

    /// Notes why a sync failed, for `clsfile status`.
    public func recordSyncFailure(_ reason: String) async throws {
        try await storage.recordSyncFailure(reason)
    }

    /// Sets aside an operation the server refused (a value out of its range, say), with its
    /// reason, so that the operations after it can be sent; ``refusedSyncOperations()`` counts them.
    public func setAsideSyncOperation(_ sequence: Int64, reason: String) async throws {
        try await storage.setAsideOperation(sequence, reason: reason)
    }

    /// How many operations the server refused and were set aside, and the latest reason.
    public func refusedSyncOperations() async throws -> (count: Int, latestReason: String?) {
        try await storage.refusedOperations()
    }
}
