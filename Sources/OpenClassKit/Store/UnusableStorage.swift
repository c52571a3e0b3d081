import Foundation

/// The storage of a data store whose location could not be worked out: every call throws why.
struct UnusableStorage: ActivityStorage {
    let reason: CLSError

    func activity(for file: FileIdentity) async throws -> ActivityRecord { throw reason }
    func existingActivity(for file: FileIdentity) async throws -> ActivityRecord? { throw reason }
    func allActivities() async throws -> [ActivityRecord] { throw reason }
    func save(_ changes: [ActivityChanges]) async throws -> [ActivityRecord] { throw reason }
    func record(_ assignment: CLSAssignment) async throws { throw reason }
    func accept(_ assignment: CLSAssignment, for file: FileIdentity) async throws { throw reason }
    func assignments() async throws -> [CLSAssignment] { throw reason }
    func assignment(for file: FileIdentity) async throws -> CLSAssignment? { throw reason }
    func removeAssignment(identifier: String) async throws -> Bool { throw reason }
    func complete(assignmentsOf contextIDs: [Int64]?, at date: Date) async throws -> Int { throw reason }
    func assignedContexts(appIdentifier: String) async throws -> [(contextID: Int64, identifierPath: [String])] { throw reason }
    func importSubmission(_ submission: CLSSubmission) async throws -> CLSSubmission.ImportResult { throw reason }
    func submissions(forAssignment identifier: String) async throws -> [CLSSubmission] { throw reason }
}
