import Foundation
internal import GRDB

/// The store's side of syncing: each call is one transaction around ``OutboxTable``.
extension SQLiteStorage {
    /// The classes joined on the class server the store syncs to, oldest first.
    func classServerMemberships() async throws -> [ClassServerMembership] {
        try await reading { db in try OutboxTable.memberships(in: db) }
    }

    /// Records a class joined and queues its teacher's assigned work recorded so far; returns how many operations that queued.
    func joinClassServer(_ membership: ClassServerMembership) async throws -> Int {
        try await writing { db in try OutboxTable.join(membership, in: db) }
    }

    /// The accepted assignments whose work goes to no class joined.
    func assignmentsSyncedNowhere() async throws -> [Assignment] {
        try await reading { db in try OutboxTable.assignmentsSyncedNowhere(in: db) }
    }

    /// Leaves one class, or all and the server (nil), dropping what waited for them; returns how many operations went.
    func leaveClassServer(classID: UUID?) async throws -> Int {
        try await writing { db in try OutboxTable.leave(classID: classID, in: db) }
    }

    /// The oldest operations waiting, at most `limit`, all for one class, none for the classes `excluded`.
    func pendingOperations(limit: Int, excluding excluded: Set<UUID>, excludingAssignments excludedAssignments: [UUID: Set<String>])
        async throws -> [OutboxEntry]
    {
        try await reading { db in
            try OutboxTable.pending(limit: limit, excluding: excluded, excludingAssignments: excludedAssignments, in: db)
        }
    }

    /// How many operations wait.
    func outboxDepth() async throws -> Int {
        try await reading { db in try OutboxTable.depth(in: db) }
    }

    /// Removes acknowledged operations and notes a sync that reached the server.
    func acknowledgeOperations(_ sequences: [Int64], at date: Date) async throws {
        try await writing { db in try OutboxTable.acknowledge(sequences, at: date.timeIntervalSince1970, in: db) }
    }

    /// Notes a sync that failed.
    func recordSyncFailure(_ reason: String) async throws {
        try await writing { db in try OutboxTable.recordFailure(reason, in: db) }
    }

    /// Sets aside an operation the server refused.
    func setAsideOperation(_ sequence: Int64, reason: String) async throws {
        try await writing { db in try OutboxTable.setAside(sequence, reason: reason, at: Date().timeIntervalSince1970, in: db) }
    }

    /// How many operations the server refused, and the latest reason.
    func refusedOperations() async throws -> (count: Int, latestReason: String?) {
        try await reading { db in try OutboxTable.refused(in: db) }
    }
}
