import Foundation
internal import NIOConcurrencyHelpers

/// Syncing a student's assigned work to a class server. Not part of ClassKit.
///
/// A store syncs to one server and may join several of its classes. Each class is tied to its
/// teacher's recipient key, the key of their handouts (``ClassServerMembership/teacherKey``): once
/// ``joinClassServer(_:)`` records a class, each save of an assigned document's activity also
/// writes a ``SyncOperation`` to the store's outbox, in the save's own transaction, for each class
/// of the teacher who handed the assignment out. Work is never recorded without its operation,
/// offline or not. A sync reads them in order (``pendingSyncOperations(limit:)``), sends them, and
/// removes those the server acknowledged (``acknowledgeSyncOperations(_:)``). Unassigned work, and
/// the work of another teacher's assignment, is never queued for a class.
extension CLSDataStore {
    /// The classes joined on the class server this store syncs to, oldest first; empty when none
    /// was joined. All have the same server, account and last sync.
    package func classServerMemberships() async throws -> [ClassServerMembership] {
        try await storage.classServerMemberships()
    }

    /// Records a class joined on a server and queues the work recorded so far on its teacher's
    /// assignments, so that it reaches the class too. Joining a class again sends that work again,
    /// replacing the server's copy; the other classes joined stay. Joining a class of another
    /// server leaves the previous server's classes and drops what waited for them.
    /// - Returns: How many operations were queued for the work recorded before.
    @discardableResult
    package func joinClassServer(_ membership: ClassServerMembership) async throws -> Int {
        try await storage.joinClassServer(membership)
    }

    /// Stops syncing to one class, or to every class and the server when `classID` is nil,
    /// dropping what waited for them. Leaving the last class forgets the server.
    /// - Returns: How many operations were dropped unsent.
    @discardableResult
    package func leaveClassServer(classID: UUID? = nil) async throws -> Int {
        try await storage.leaveClassServer(classID: classID)
    }

    /// The accepted assignments whose work goes to no class joined, oldest first: their
    /// teacher's class was not joined, or they came from a version-1 handout, which names no
    /// teacher. Empty when the store joined no class.
    package func assignmentsSyncedToNoClass() async throws -> [Assignment] {
        try await storage.assignmentsSyncedNowhere()
    }

    /// The oldest operations waiting to be sent, at most `limit`, in the order they were made,
    /// all for one class (``OutboxEntry/classID``): the class of the oldest, leaving out the
    /// classes in `excludedClasses` (which a sync could not send to just now), and the
    /// operations on the assignments in `excludedAssignments` of a class (which the class did
    /// not have just now).
    package func pendingSyncOperations(
        limit: Int, excludingClasses excludedClasses: Set<UUID> = [],
        excludingAssignments excludedAssignments: [UUID: Set<String>] = [:]
    ) async throws -> [OutboxEntry] {
        try await storage.pendingOperations(limit: limit, excluding: excludedClasses, excludingAssignments: excludedAssignments)
    }

    /// How many operations wait to be sent.
    package func syncOutboxDepth() async throws -> Int {
        try await storage.outboxDepth()
    }

    /// Removes the operations the server acknowledged and notes the time of the sync.
    package func acknowledgeSyncOperations(_ sequences: [Int64], at date: Date = Date()) async throws {
        try await storage.acknowledgeOperations(sequences, at: date)
    }

    /// How many sync operations this process has queued in any store's outbox since it started
    /// (a few may have been rolled back with a failed save). A program that records work checks
    /// it to learn, without reading the store, whether a sync may be due.
    package static var syncOperationsQueuedByThisProcess: Int {
        OutboxTable.queuedInThisProcess.withLockedValue { $0 }
    }

    /// Notes why a sync failed, for `clsfile status`.
    package func recordSyncFailure(_ reason: String) async throws {
        try await storage.recordSyncFailure(reason)
    }

    /// Sets aside an operation the server refused (a value out of its range, say), with its
    /// reason, so that the operations after it can be sent; ``refusedSyncOperations()`` counts them.
    package func setAsideSyncOperation(_ sequence: Int64, reason: String) async throws {
        try await storage.setAsideOperation(sequence, reason: reason)
    }

    /// How many operations the server refused and were set aside, and the latest reason.
    package func refusedSyncOperations() async throws -> (count: Int, latestReason: String?) {
        try await storage.refusedOperations()
    }
}
