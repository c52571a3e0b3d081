import Foundation
internal import GRDB

/// The classroom's side of the store: each call is one transaction around ``ClassroomTables``.
extension SQLiteStorage {
    /// Records a teacher's assignment; recording the same one again changes nothing.
    func record(_ assignment: Assignment) async throws {
        try await writing { db in try ClassroomTables.record(assignment, in: db) }
    }

    /// Ties an assignment to a student's file, replacing an earlier tie of the same assignment.
    func accept(_ assignment: Assignment, for file: FileIdentity) async throws {
        let appIdentifier = self.appIdentifier
        try await writing { db in
            let activity = try ActivityTable.findOrCreate(file, appIdentifier: appIdentifier, in: db)
            try ClassroomTables.accept(assignment, forContext: activity.contextID, path: file.path, in: db)
        }
    }

    /// Accepts an assignment of a context tree; returns how many contexts' work reports to it.
    func acceptContextTree(_ assignment: Assignment) async throws -> Int {
        try await writing { db in try ClassroomTables.acceptContextTree(assignment, in: db) }
    }

    /// Records a student's statement of AI use on an accepted assignment, and queues it for sync.
    func recordAIStatement(_ statement: AIStatement, forAssignment identifier: String) async throws {
        try await writing { db in try ClassroomTables.recordAIStatement(statement, forAssignment: identifier, in: db) }
    }

    /// Every assignment, oldest first, with its file and done date where it has them.
    func assignments() async throws -> [Assignment] {
        try await reading { db in try ClassroomTables.assignments(in: db) }
    }

    /// The assignment tied to a file, if any.
    func assignment(for file: FileIdentity) async throws -> Assignment? {
        try await reading { db in try ClassroomTables.assignment(atPath: file.path, in: db) }
    }

    /// Removes an assignment (and, in a teacher's store, what was collected for it); false when
    /// there was none.
    func removeAssignment(identifier: String) async throws -> Bool {
        try await writing { db in try ClassroomTables.removeAssignment(identifier: identifier, in: db) }
    }

    /// Sets the done date of the assigned files' activities that have none; returns how many files
    /// are assigned among those given.
    func complete(assignmentsOf contextIDs: [Int64]?, at date: Date) async throws -> Int {
        try await writing { db in try ClassroomTables.complete(assignmentsOf: contextIDs, at: date, in: db) }
    }

    /// Marks done, at once and on the caller's thread, the assigned files whose identifier path
    /// starts with a full path (from the main app context); returns how many matched.
    nonisolated func completeNow(matching contextPath: [String], at date: Date) throws -> Int {
        try writingNow { db in
            let matching = try ClassroomTables.assignedContexts(in: db)
                .filter { $0.identifierPath.starts(with: contextPath) }.map(\.contextID)
            return matching.isEmpty ? 0 : try ClassroomTables.complete(assignmentsOf: matching, at: date, in: db)
        }
    }

    /// The identifier path (from the main app context) of every assigned context, with its row.
    func assignedContexts() async throws -> [(contextID: Int64, identifierPath: [String])] {
        try await reading { db in try ClassroomTables.assignedContexts(in: db) }
    }

    /// Imports a collected submission, keeping only the latest per student and assignment.
    func importSubmission(_ submission: Submission) async throws -> Submission.ImportResult {
        try await writing { db in try ClassroomTables.importSubmission(submission, in: db) }
    }

    /// The submissions collected for an assignment, by student name.
    func submissions(forAssignment identifier: String) async throws -> [Submission] {
        try await reading { db in try ClassroomTables.submissions(forAssignment: identifier, in: db) }
    }

    /// Every submission kept aside as a conflict.
    func keptAsideSubmissions() async throws -> [Submission] {
        try await reading { db in try ClassroomTables.keptAside(in: db) }
    }

    /// Keeps a submission aside as a conflict.
    func keepAside(_ submission: Submission) async throws {
        try await writing { db in try ClassroomTables.keepAside(submission, in: db) }
    }

    /// Pins a student's new key and imports what was kept aside under it, dated up to a date.
    func trust(_ key: Data, forStudent student: String, datedUpTo latestDate: Date) async throws -> [Submission.ImportResult] {
        try await writing { db in try ClassroomTables.trust(key, forStudent: student, datedUpTo: latestDate, in: db) }
    }

    /// The key pinned for a student, if any.
    func pinnedKey(forStudent student: String) async throws -> Data? {
        try await reading { db in try ClassroomTables.pinnedKey(forStudent: student, in: db) }
    }

    /// Every submission accepted for an assignment.
    func submissionHistory(forAssignment identifier: String, submittedUpTo latestDate: Date?) async throws -> [Submission] {
        try await reading { db in try ClassroomTables.submissionHistory(forAssignment: identifier, submittedUpTo: latestDate, in: db) }
    }
}
