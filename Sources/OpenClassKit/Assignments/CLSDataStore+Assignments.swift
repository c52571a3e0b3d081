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
    /// The path is written as apps write it, from below the main app context — a document's is
    /// its canonical path, `["/home/ada/essay.txt"]` — or from the main app context itself,
    /// `["clsfile", "/home/ada/essay.txt"]`; `["clsfile"]` marks every assigned document done and
    /// an empty path none. The change is written before the call returns, on the caller's thread
    /// and a connection of its own, so a process may exit right after it. A failure cannot be
    /// returned here; it goes to the handler of ``reportExitFailures(to:)``. To learn the outcome,
    /// use ``markAssignedActivitiesDone(matching:)``.
    public func completeAllAssignedActivities(matching contextPath: [String]) {
        do {
            _ = try storage.completeNow(matching: fullPath(contextPath), at: Date())
        } catch {
            SpanHandover.report(error as? CLSError ?? CLSError(.databaseInaccessible, "marking assigned work done failed: \(error)"))
        }
    }

    /// Marks done every assigned document whose context identifier path starts with
    /// `contextPath` (written as for ``completeAllAssignedActivities(matching:)``) and returns how
    /// many assigned documents matched. Not part of ClassKit.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be written.
    @discardableResult
    public func markAssignedActivitiesDone(matching contextPath: [String]) async throws -> Int {
        let path = fullPath(contextPath)
        let matching = try await storage.assignedContexts()
            .filter { $0.identifierPath.starts(with: path) }
            .map(\.contextID)
        guard !matching.isEmpty else { return 0 }
        return try await storage.complete(assignmentsOf: matching, at: Date())
    }

    /// A context path from the main app context: as given when it starts there, else below it.
    /// An empty path stays empty, which matches nothing.
    private func fullPath(_ contextPath: [String]) -> [String] {
        guard let first = contextPath.first else { return [UUID().uuidString] }
        return first == mainAppContext.identifier ? contextPath : [mainAppContext.identifier] + contextPath
    }

    // MARK: Assignments

    /// Records an assignment a teacher made; recording it again changes nothing.
    /// - Throws: ``CLSError`` `.invalidModification` when another assignment already has its identifier.
    package func recordAssignment(_ assignment: Assignment) async throws {
        try await storage.record(assignment)
    }

    /// Accepts an assignment for a student's file: from now on the file is an assigned document.
    /// Accepting the same assignment again, for the same or another file, ties it to that file.
    /// - Throws: ``CLSError`` `.invalidArgument` for a URL that names no regular file,
    ///   `.invalidModification` when the file is already tied to another assignment.
    package func acceptAssignment(_ assignment: Assignment, for documentURL: URL) async throws {
        try await storage.accept(assignment, for: try FileIdentity(resolving: documentURL))
    }

    /// Accepts an assignment of a context tree (``Assignment/coversContextTree``), which a
    /// teacher chose in a class server's catalog: from now on the work of every activity at or
    /// below its ``Assignment/contextPath``, under any app's main context, reports to it — the
    /// work recorded so far at once, and each context's that gets work later at its first save.
    /// Accepting it again changes nothing.
    /// - Returns: How many contexts' work reports to it now.
    /// - Throws: ``CLSError`` `.invalidArgument` for an assignment of no context tree,
    ///   `.invalidModification` when its identifier names another assignment in the store.
    @discardableResult
    public func acceptContextTreeAssignment(_ assignment: Assignment) async throws -> Int {
        try await storage.acceptContextTree(assignment)
    }

    /// Records the student's statement of how they used AI tools on an accepted assignment,
    /// replacing the one given before; a class server the work goes to gets it at the next sync.
    /// - Parameters:
    ///   - statement: The statement, in the student's words.
    ///   - identifier: The assignment's identifier.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    package func recordAIStatement(_ statement: AIStatement, forAssignment identifier: String) async throws {
        try await storage.recordAIStatement(statement, forAssignment: identifier)
    }

    /// Keeps when the student wrote a submission of an accepted assignment
    /// (``Assignment/submittedAt``), so that what they read of their evidence says what was sent.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such accepted assignment.
    package func recordSubmission(ofAssignment identifier: String, at date: Date) async throws {
        try await storage.writing { db in try ClassroomTables.recordSubmission(ofAssignment: identifier, at: date, in: db) }
    }

    /// Every assignment in this store, oldest first.
    package func assignments() async throws -> [Assignment] {
        try await storage.assignments()
    }

    /// The assignment a file is tied to, or nil.
    package func assignment(for documentURL: URL) async throws -> Assignment? {
        try await storage.assignment(for: try FileIdentity(resolving: documentURL))
    }

    /// Removes an assignment, with whatever was collected for it. The file's own activity stays.
    /// - Returns: Whether there was such an assignment.
    @discardableResult
    package func removeAssignment(identifier: String) async throws -> Bool {
        try await storage.removeAssignment(identifier: identifier)
    }

    // MARK: Submissions

    /// Imports a student's submission for an assignment of this store into its history. Importing
    /// the same submission twice changes nothing; an older one never becomes the latest. The first
    /// signed submission of a student pins their key; one signed with another key is kept aside
    /// (``Submission/ImportResult/conflict``) until ``trustStudentKey(_:forStudent:)``.
    /// - Throws: ``CLSError`` `.invalidArgument` when the store has no such assignment.
    package func importSubmission(_ submission: Submission) async throws -> Submission.ImportResult {
        try await storage.importSubmission(submission)
    }

    /// The latest submission of each student for an assignment, ordered by student name.
    package func submissions(forAssignment identifier: String) async throws -> [Submission] {
        try await storage.submissions(forAssignment: identifier)
    }

    /// Every submission accepted for an assignment, ordered by student name and date; with
    /// `latestDate`, those submitted then or before only.
    package func submissionHistory(forAssignment identifier: String, submittedUpTo latestDate: Date? = nil) async throws -> [Submission] {
        try await storage.submissionHistory(forAssignment: identifier, submittedUpTo: latestDate)
    }

    /// Keeps a submission aside as a conflict, out of the history and the reports: for work the
    /// collecting tool refuses to import but keeps for the teacher to inspect. It needs its
    /// ``Submission/studentKey``.
    package func keepAside(_ submission: Submission) async throws {
        try await storage.keepAside(submission)
    }

    /// Every submission kept aside as a conflict, ordered by student name and date.
    package func keptAsideSubmissions() async throws -> [Submission] {
        try await storage.keptAsideSubmissions()
    }

    /// The key pinned for a student: the one their first accepted submission was signed with, or
    /// the one the teacher last trusted.
    package func pinnedKey(forStudent identifier: String) async throws -> Data? {
        try await storage.pinnedKey(forStudent: identifier)
    }

    /// Trusts a student's new key on purpose: pins it, then imports what was kept aside under it
    /// (but work dated later than ``Submission/clockMargin`` from now).
    /// - Returns: What importing each kept-aside submission did, oldest first.
    @discardableResult
    package func trustStudentKey(_ key: Data, forStudent identifier: String) async throws -> [Submission.ImportResult] {
        try await storage.trust(key, forStudent: identifier, datedUpTo: Date().addingTimeInterval(Submission.clockMargin))
    }
}
