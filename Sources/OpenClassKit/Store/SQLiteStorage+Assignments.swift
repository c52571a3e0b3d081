import Foundation
import GRDB

/// The classroom's side of the store: each call is one transaction around ``ClassroomTables``.
extension SQLiteStorage: AssignmentStorage {
    func record(_ assignment: Assignment) async throws {
        try await writing { db in try ClassroomTables.record(assignment, in: db) }
    }

    func accept(_ assignment: Assignment, for file: FileIdentity) async throws {
        let appIdentifier = self.appIdentifier
        try await writing { db in
            let activity = try Self.findOrCreate(file, appIdentifier: appIdentifier, in: db)
            try ClassroomTables.accept(assignment, forContext: activity.contextID, path: file.path, in: db)
        }
    }

    func acceptContextTree(_ assignment: Assignment) async throws -> Int {
        try await writing { db in try ClassroomTables.acceptContextTree(assignment, in: db) }
    }

    func assignments() async throws -> [Assignment] {
        try await reading { db in try ClassroomTables.assignments(in: db) }
    }

    func assignment(for file: FileIdentity) async throws -> Assignment? {
        try await reading { db in try ClassroomTables.assignment(atPath: file.path, in: db) }
    }

    func removeAssignment(identifier: String) async throws -> Bool {
        try await writing { db in try ClassroomTables.removeAssignment(identifier: identifier, in: db) }
    }

    func complete(assignmentsOf contextIDs: [Int64]?, at date: Date) async throws -> Int {
        try await writing { db in try ClassroomTables.complete(assignmentsOf: contextIDs, at: date, in: db) }
    }

    nonisolated func completeNow(matching contextPath: [String], at date: Date) throws -> Int {
        try writingNow { db in
            let matching = try ClassroomTables.assignedContexts(in: db)
                .filter { $0.identifierPath.starts(with: contextPath) }.map(\.contextID)
            return matching.isEmpty ? 0 : try ClassroomTables.complete(assignmentsOf: matching, at: date, in: db)
        }
    }

    func assignedContexts() async throws -> [(contextID: Int64, identifierPath: [String])] {
        try await reading { db in try ClassroomTables.assignedContexts(in: db) }
    }

    func importSubmission(_ submission: Submission) async throws -> Submission.ImportResult {
        try await writing { db in try ClassroomTables.importSubmission(submission, in: db) }
    }

    func submissions(forAssignment identifier: String) async throws -> [Submission] {
        try await reading { db in try ClassroomTables.submissions(forAssignment: identifier, in: db) }
    }

    func keptAsideSubmissions() async throws -> [Submission] {
        try await reading { db in try ClassroomTables.keptAside(in: db) }
    }

    func keepAside(_ submission: Submission) async throws {
        try await writing { db in try ClassroomTables.keepAside(submission, in: db) }
    }

    func trust(_ key: Data, forStudent student: String, datedUpTo latestDate: Date) async throws -> [Submission.ImportResult] {
        try await writing { db in try ClassroomTables.trust(key, forStudent: student, datedUpTo: latestDate, in: db) }
    }

    func pinnedKey(forStudent student: String) async throws -> Data? {
        try await reading { db in try ClassroomTables.pinnedKey(forStudent: student, in: db) }
    }

    func submissionHistory(forAssignment identifier: String) async throws -> [Submission] {
        try await reading { db in try ClassroomTables.submissionHistory(forAssignment: identifier, in: db) }
    }
}
