import Foundation
import OpenClassKit

/// Writes a student's submissions: one sealed file per accepted assignment, holding only the work
/// on the assigned document.
public struct Submitter: Sendable {
    public let store: CLSDataStore
    public let student: CLSDeveloperMode

    public init(store: CLSDataStore, student: CLSDeveloperMode) {
        self.store = store
        self.student = student
    }

    /// The work on every accepted assignment (or on one), read from the store.
    /// - Parameter identifier: One assignment's identifier, or nil for all.
    /// - Throws: ``ClassroomError`` `.notAssigned` when there is nothing to submit.
    public func assignedWork(identifier: String? = nil) async throws -> [(assignment: CLSAssignment, work: StudentWork)] {
        let accepted = try await store.assignments().filter { $0.acceptedAt != nil }
        let chosen = identifier.map { id in accepted.filter { $0.identifier == id || $0.identifier.hasPrefix(id) } } ?? accepted
        guard !chosen.isEmpty else {
            throw ClassroomError(.notAssigned, identifier.map { "no accepted assignment \($0) in \(store.storeURL.path); `clsfile assignments` lists them" }
                ?? "no accepted assignments in \(store.storeURL.path): accept a handout with `clsfile accept FILE.clshandout` first")
        }
        var result: [(CLSAssignment, StudentWork)] = []
        for assignment in chosen {
            let activity = try await assignment.documentURL.asyncMap { url in
                FileManager.default.fileExists(atPath: url.path) ? try await store.existingActivity(for: url) : nil
            } ?? nil
            result.append((assignment, StudentWork(assignment: assignment, activity: activity)))
        }
        return result
    }

    /// Seals and writes the submissions into a folder, one file per assignment, replacing earlier
    /// files of the same assignments; returns the files written.
    public func submit(identifier: String? = nil, to folder: URL, at date: Date = Date()) async throws -> [URL] {
        guard let name = student.displayName else {
            throw ClassroomError(.wrongRole, "a submission carries your display name, and none is set: clsfile role student --name \"Your Name\"")
        }
        var written: [URL] = []
        for (assignment, work) in try await assignedWork(identifier: identifier) {
            let file = try SubmissionFile(work: work, handout: assignment, student: student.accountIdentifier,
                                          studentName: name, submittedAt: date)
            let url = folder.appendingPathComponent(Self.fileName(title: assignment.title, student: name,
                                                                  account: student.accountIdentifier))
            try file.write(to: url)
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

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
