import Foundation

/// The storage of a data store whose location could not be worked out: every call throws why.
struct UnusableStorage: ActivityStorage {
    let reason: CLSError

    func activity(for file: FileIdentity) async throws -> ActivityRecord { throw reason }
    func existingActivity(atPath path: [UInt8]) async throws -> ActivityRecord? { throw reason }
    func reduceActivities<Result: Sendable>(into initial: Result, forViewing: Bool,
                                            _ update: @escaping @Sendable (inout Result, ActivityRecord) throws -> Void) async throws -> Result {
        throw reason
    }
    func save(_ changes: [ActivityChanges]) async throws -> (records: [ActivityRecord?], savedAt: Double) { throw reason }
    func version(of file: FileIdentity) async throws -> (activityID: Int64, modifiedAt: Double)? { throw reason }
    func runningActivityNow() throws -> ActivityRecord? { throw reason }
    func record(_ assignment: Assignment) async throws { throw reason }
    func accept(_ assignment: Assignment, for file: FileIdentity) async throws { throw reason }
    func acceptContextTree(_ assignment: Assignment) async throws -> Int { throw reason }
    func assignments() async throws -> [Assignment] { throw reason }
    func assignment(for file: FileIdentity) async throws -> Assignment? { throw reason }
    func removeAssignment(identifier: String) async throws -> Bool { throw reason }
    func complete(assignmentsOf contextIDs: [Int64]?, at date: Date) async throws -> Int { throw reason }
    func completeNow(matching contextPath: [String], at date: Date) throws -> Int { throw reason }
    func assignedContexts() async throws -> [(contextID: Int64, identifierPath: [String])] { throw reason }
    func importSubmission(_ submission: Submission) async throws -> Submission.ImportResult { throw reason }
    func submissions(forAssignment identifier: String) async throws -> [Submission] { throw reason }
    func keptAsideSubmissions() async throws -> [Submission] { throw reason }
    func keepAside(_ submission: Submission) async throws { throw reason }
    func trust(_ key: Data, forStudent student: String, datedUpTo latestDate: Date) async throws -> [Submission.ImportResult] { throw reason }
    func pinnedKey(forStudent student: String) async throws -> Data? { throw reason }
    func submissionHistory(forAssignment identifier: String) async throws -> [Submission] { throw reason }
    func classServerMemberships() async throws -> [ClassServerMembership] { throw reason }
    func joinClassServer(_ membership: ClassServerMembership) async throws -> Int { throw reason }
    func leaveClassServer(classID: UUID?) async throws -> Int { throw reason }
    func assignmentsSyncedNowhere() async throws -> [Assignment] { throw reason }
    func pendingOperations(limit: Int, excluding excluded: Set<UUID>, excludingAssignments excludedAssignments: [UUID: Set<String>]) async throws -> [OutboxEntry] { throw reason }
    func outboxDepth() async throws -> Int { throw reason }
    func acknowledgeOperations(_ sequences: [Int64], at date: Date) async throws { throw reason }
    func recordSyncFailure(_ reason: String) async throws { throw self.reason }
    func setAsideOperation(_ sequence: Int64, reason: String) async throws { throw self.reason }
    func refusedOperations() async throws -> (count: Int, latestReason: String?) { throw reason }
    func rootContext(appIdentifier: String) async throws -> Int64 { throw reason }
    func childContext(of parentID: Int64, identifier: String) async throws -> ContextRecord? { throw reason }
    func childContexts(of parentID: Int64) async throws -> [ContextRecord] { throw reason }
    func contextTree(under rootID: Int64) async throws -> [ContextRecord] { throw reason }
    func saveContexts(_ changes: [ContextChange]) async throws -> [Int64?] { throw reason }
    func bindDocument(_ file: FileIdentity, toContext contextID: Int64) async throws -> Bool { throw reason }
    func setActiveContextNow(_ id: Int64) throws { throw reason }
    func resignActiveContextNow(_ id: Int64) throws { throw reason }
    func activeContextChainNow() throws -> [ContextRecord] { throw reason }
    func contextChainNow(to contextID: Int64) throws -> [ContextRecord] { throw reason }
    func currentActivityNow(ofContext contextID: Int64) throws -> ActivityRecord? { throw reason }
    func createAttempt(ofContext contextID: Int64) async throws -> ActivityRecord { throw reason }
    func currentActivities(below contextID: Int64) async throws -> [ActivityRecord] { throw reason }
    func writingHistory(ofActivity activityID: Int64) async throws -> [WritingHistoryEntry] { throw reason }
    func snapshotRows(ofActivity activityID: Int64, after id: Int64, limit: Int) async throws -> [SnapshotRow] { throw reason }
    func forgetHistory(ofActivity activityID: Int64, keepingFigures: Bool) async throws -> Int { throw reason }
}
