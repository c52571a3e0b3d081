import Foundation

extension CLSDataStore {
    // MARK: ClassKit

    /// Whether a file is a document a teacher assigned: true once the student accepted a handout
    /// for it.
    /// - Parameter documentURL: A file URL naming an existing regular file.
    /// - Throws: ``CLSError`` `.invalidArgument` for a URL that names no regular file,
    ///   `.databaseInaccessible` when the store cannot be read.
    public func isAssignedDocument(_ documentURL: URL) async throws -> Bool {
        try await assignment(for: documentURL) != nil
    }

    /// Marks done every assigned document whose context identifier path starts with
    /// `contextPath`, as ClassKit does for a student. Done is independent of progress.
    ///
    /// The identifier path of a document is the main app context's identifier followed by the
    /// file's canonical path: `["clsfile", "/home/ada/essay.txt"]`; `["clsfile"]` marks every
    /// assigned document done. Runs in the background; errors are not reported. Use
    /// ``completeAllAssignedActivities(matching:)-(_)`` with `try await` to learn the outcome.
    public func completeAllAssignedActivities(matching contextPath: [String]) {
        Task { _ = try? await completeAllAssignedActivities(matching: contextPath) }
    }

    /// Marks done every assigned document whose context identifier path starts with
    /// `contextPath`, and returns how many assigned documents matched.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be written.
    @discardableResult
    public func completeAllAssignedActivities(matching contextPath: [String]) async throws -> Int {
        let matching = try await storage.assignedContexts(appIdentifier: mainAppContext.identifier)
            .filter { $0.identifierPath.starts(with: contextPath) }
            .map(\.contextID)
        guard !matching.isEmpty else { return 0 }
        return try await storage.complete(assignmentsOf: matching, at: Date())
    }

    // MARK: Assignments

    /// Records an assignment a teacher made; recording it again changes nothing.
    /// - Throws: ``CLSError`` `.invalidModification` when another assignment already has its identifier.
    public func recordAssignment(_ assignment: Assignment) async throws {
        try await storage.record(assignment)
    }

    /// Accepts an assignment for a student's file: from now on the file is an assigned document.
    /// Accepting the same assignment again, for the same or another file, ties it to that file.
    /// - Throws: ``CLSError`` `.invalidArgument` for a URL that names no regular file,
    ///   `.invalidModification` when the file is already tied to another assignment.
    public func acceptAssignment(_ assignment: Assignment, for documentURL: URL) async throws {
        try await storage.accept(assignment, for: try FileIdentity(resolving: documentURL))
    }

    /// Every assignment in this store, oldest first.
    public func assignments() async throws -> [Assignment] {
        try await storage.assignments()
    }

    /// The assignment a file is tied to, or nil.
    public func assignment(for documentURL: URL) async throws -> Assignment? {
        try await storage.assignment(for: try FileIdentity(resolving: documentURL))
    }

    /// Removes an assignment, with whatever was collected for it. The file's own activity stays.
    /// - Returns: Whether there was such an assignment.
    @discardableResult
    public func removeAssignment(identifier: String) async throws -> Bool {
        try await storage.removeAssignment(identifier: identifier)
    }

    // MARK: Submissions

    /// Imports a student's submission for an assignment of this store into its history. Importing
    /// the same submission twice changes nothing; an older one never becomes the latest. The first
    /// signed submission of a student pins their key; one signed with another key is kept aside
    /// (``Submission/ImportResult/conflict``) until ``trustStudentKey(_:forStudent:)``.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such assignment.
    public func importSubmission(_ submission: Submission) async throws -> Submission.ImportResult {
        try await storage.importSubmission(submission)
    }

    /// The latest submission of each student for an assignment, ordered by student name.
    public func submissions(forAssignment identifier: String) async throws -> [Submission] {
        try await storage.submissions(forAssignment: identifier)
    }

    /// Every submission accepted for an assignment, ordered by student name and date.
    public func submissionHistory(forAssignment identifier: String) async throws -> [Submission] {
        try await storage.submissionHistory(forAssignment: identifier)
    }

    /// Keeps a submission aside as a conflict, out of the history and the reports: for work the
    /// collecting tool refuses to import but keeps for the teacher to inspect. It needs its
    /// ``Submission/studentKey``.
    public func keepAside(_ submission: Submission) async throws {
        try await storage.keepAside(submission)
    }

    /// Every submission kept aside as a conflict, ordered by student name and date.
    public func keptAsideSubmissions() async throws -> [Submission] {
        try await storage.keptAsideSubmissions()
    }

    /// The key pinned for a student: the one their first accepted submission was signed with, or
    /// the one the teacher last trusted.
    public func pinnedKey(forStudent identifier: String) async throws -> Data? {
        try await storage.pinnedKey(forStudent: identifier)
    }

    /// Trusts a student's new key on purpose: pins it, then imports what was kept aside under it
    /// (but work dated later than ``Submission/clockMargin`` from now).
    /// - Returns: What importing each kept-aside submission did, oldest first.
    @discardableResult
    public func trustStudentKey(_ key: Data, forStudent identifier: String) async throws -> [Submission.ImportResult] {
        try await storage.trust(key, forStudent: identifier, datedUpTo: Date().addingTimeInterval(Submission.clockMargin))
    }
}
