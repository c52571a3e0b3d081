import Foundation
import OpenClassKit

/// Writes a student's submissions: one file per accepted assignment, holding only the work on the
/// assigned document, encrypted to the teacher and signed with the student's identity.
public struct Submitter: Sendable {
    public let store: CLSDataStore
    public let student: DeveloperMode
    /// The student's keys, which sign every submission.
    public let identity: Identity

    public init(store: CLSDataStore, student: DeveloperMode, identity: Identity) {
        self.store = store
        self.student = student
        self.identity = identity
    }

    /// The work on every accepted assignment (or on one), read from the store.
    /// - Parameters:
    ///   - store: The student's store.
    ///   - key: One assignment's identifier, a unique prefix of it, or its title; nil for all.
    /// - Throws: ``ClassroomError`` `.notAssigned` when there is nothing to submit, or the key names
    ///   no accepted assignment or several.
    public static func assignedWork(in store: CLSDataStore, key: String? = nil) async throws -> [(
        assignment: Assignment, work: StudentWork
    )] {
        try await assignedActivities(in: store, key: key).map {
            ($0.assignment, StudentWork(assignment: $0.assignment, activity: $0.activity))
        }
    }

    /// The work a submission carries for every accepted assignment (or for one), exactly as
    /// ``submit(key:to:at:)`` seals it: the figures, each session's identifier and dictation mark,
    /// the student's notes, and what the assignment asks of the writing history. `clsfile
    /// evidence` shows this, so that the student sees what leaves before it does.
    /// - Throws: As ``assignedWork(in:key:)``; ``ClassroomError`` `.invalidValue` when the
    ///   snapshots of the text are more than a submission holds or do not rebuild.
    public static func workToSubmit(in store: CLSDataStore, key: String? = nil) async throws -> [(
        assignment: Assignment, work: StudentWork
    )] {
        var result: [(Assignment, StudentWork)] = []
        for (assignment, activity) in try await assignedActivities(in: store, key: key) {
            var work = StudentWork(assignment: assignment, activity: activity)
            if let activity { work.markDictated(try await store.dictatedSessions(of: activity)) }
            let sessions = Set(work.sessions.compactMap(\.identifier))
            let notes = try await store.evidenceNotes(ofAssignment: assignment.identifier).filter {
                $0.sessionIdentifier.map(sessions.contains) ?? true
            }
            work.notes = notes.isEmpty ? nil : notes
            try await addProcessEvidence(to: &work, for: assignment, from: store)
            result.append((assignment, work))
        }
        return result
    }

    /// Every accepted assignment (or one) with the activity of its document, when it has one.
    private static func assignedActivities(in store: CLSDataStore, key: String?) async throws -> [(
        assignment: Assignment, activity: CLSActivity?
    )] {
        let accepted = try await store.assignments().filter { $0.acceptedAt != nil }
        guard !accepted.isEmpty else {
            throw ClassroomError(
                .notAssigned,
                "no accepted assignments in \(store.storeURL.path): accept a handout with `clsfile accept FILE.clshandout` first")
        }
        let chosen =
            try key.map { key in
                [try AssignmentChoice.pick(key, from: accepted, identifier: \.identifier, title: \.title, in: store.storeURL.path)]
            } ?? accepted
        var result: [(Assignment, CLSActivity?)] = []
        for assignment in chosen {
            var activity: CLSActivity?
            if let url = assignment.documentURL, FileManager.default.fileExists(atPath: url.path) {
                activity = try await store.existingActivity(for: url)
            }
            result.append((assignment, activity))
        }
        return result
    }

    /// Adds what the assignment asks of the writing history, and only that: nothing without
    /// ``Assignment/processEvidence`` or when the student withdrew it, the rows for `.figures`, the rows and snapshots for `.replay`,
    /// the snapshots checked as the teacher's dashboard will check them.
    /// - Throws: ``ClassroomError`` `.invalidValue` when the snapshots are more than a submission
    ///   holds or do not rebuild.
    static func addProcessEvidence(to work: inout StudentWork, for assignment: Assignment, from store: CLSDataStore) async throws {
        guard let evidence = assignment.processEvidence, assignment.evidenceWithdrawnAt == nil, let url = assignment.documentURL,
            FileManager.default.fileExists(atPath: url.path)
        else { return }
        work.history = try await store.writingHistory(for: url).entries
        guard evidence == .replay else { return }
        let records = try await store.snapshotRecords(of: url)
        do {
            try StudentWork.checkSnapshots(records)
        } catch let error as CLSError {
            throw ClassroomError(
                .invalidValue,
                "the snapshots of \(url.path) cannot go with the submission: \(error.message); ask your teacher for an assignment with figures only, or to collect the file another way"
            )
        }
        work.snapshots = records
    }

    /// Seals and writes the submissions into a folder, one file per assignment, readable only by
    /// their owner, replacing earlier files of the same assignments; returns the files written.
    /// Each carries the student's statement of AI use, when they gave one.
    /// - Throws: ``ClassroomError`` `.aiStatementRequired`, writing nothing, when an assignment
    ///   whose handout requires a statement of AI use has none (`CLSDataStore` records one).
    public func submit(key: String? = nil, to folder: URL, at date: Date = Date()) async throws -> [URL] {
        guard let name = student.displayName else {
            throw ClassroomError(
                .wrongRole, "a submission carries your display name, and none is set: clsfile role student --name \"Your Name\"")
        }
        let chosen = try await Self.workToSubmit(in: store, key: key)
        // All or none: no file is written while one assignment still waits for its statement.
        for (assignment, work) in chosen where assignment.aiStatementRequirement == .required && work.aiStatement == nil {
            throw ClassroomError(
                .aiStatementRequired,
                "'\(assignment.title)' asks you to say how you used AI tools, and you have not yet: submit with --ai-use \(AIStatement.Use.allCases.map(\.rawValue).joined(separator: "|")) (and --ai-note TEXT in your own words, if you like); nothing was written"
            )
        }
        var written: [URL] = []
        for (assignment, work) in chosen {
            let file = try SubmissionFile(
                work: work, handout: assignment, student: student.accountIdentifier,
                studentName: name, identity: identity, submittedAt: date)
            let url = folder.appendingPathComponent(
                Self.fileName(
                    title: assignment.title, student: name,
                    account: student.accountIdentifier))
            try file.write(to: url)
            try await store.recordSubmission(ofAssignment: assignment.identifier, at: date)
            written.append(url)
        }
        return written
    }

    /// `essay-on-rivers.ada-lovelace.1f3c9a2b.clssubmission`: readable, and unique per student and title.
    static func fileName(title: String, student: String, account: String) -> String {
        "\(slug(title)).\(slug(student)).\(account.prefix(8)).\(SubmissionFile.fileExtension)"
    }

    static func slug(_ text: String) -> String {
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }
        let joined = words.joined(separator: "-")
        return joined.isEmpty ? "untitled" : String(joined.prefix(60))
    }
}
