import Foundation
import GRDB

/// The store's side of syncing: each call is one transaction around ``OutboxTable``.
extension SQLiteStorage: SyncStorage {
    func classServerMemberships() async throws -> [ClassServerMembership] {
        try await reading { db in try OutboxTable.memberships(in: db) }
    }

    func joinClassServer(_ membership: ClassServerMembership) async throws -> Int {
        try await writing { db in try OutboxTable.join(membership, in: db) }
    }

    func assignmentsSyncedNowhere() async throws -> [Assignment] {
        try await reading { db in try OutboxTable.assignmentsSyncedNowhere(in: db) }
    }

    func leaveClassServer(classID: UUID?) async throws -> Int {
        try await writing { db in try OutboxTable.leave(classID: classID, in: db) }
    }

    func pendingOperations(limit: Int, excluding excluded: Set<UUID>, excludingAssignments excludedAssignments: [UUID: Set<String>]) async throws -> [OutboxEntry] {
        try await reading { db in try OutboxTable.pending(limit: limit, excluding: excluded, excludingAssignments: excludedAssignments, in: db) }
    }

    func outboxDepth() async throws -> Int {
        try await reading { db in try OutboxTable.depth(in: db) }
    }

    func acknowledgeOperations(_ sequences: [Int64], at date: Date) async throws {
        try await writing { db in try OutboxTable.acknowledge(sequences, at: date.timeIntervalSince1970, in: db) }
    }

    func recordSyncFailure(_ reason: String) async throws {
        try await writing { db in try OutboxTable.recordFailure(reason, in: db) }
    }

    func setAsideOperation(_ sequence: Int64, reason: String) async throws {
        try await writing { db in try OutboxTable.setAside(sequence, reason: reason, at: Date().timeIntervalSince1970, in: db) }
    }

    func refusedOperations() async throws -> (count: Int, latestReason: String?) {
        try await reading { db in try OutboxTable.refused(in: db) }
    }
}
