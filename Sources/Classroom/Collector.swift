import Foundation
import OpenClassKit

/// Imports students' submission files into a teacher's store, file by file.
public struct Collector: Sendable {
    /// What happened to one file.
    public struct Outcome: Sendable {
        public var file: URL
        /// The student's name, when the file could be read.
        public var studentName: String?
        /// The assignment's title, when the file is for a known handout.
        public var assignmentTitle: String?
        /// What the import did, or why the file was refused.
        public var result: Result<Submission.ImportResult, ClassroomError>
    }

    public let store: CLSDataStore

    public init(store: CLSDataStore) {
        self.store = store
    }

    /// Imports every `.clssubmission` file of a folder (not its subfolders), in name order.
    /// A file that is refused leaves the store as it was; the others are imported.
    /// - Throws: ``ClassroomError`` `.fileAccess` when the folder cannot be listed; ``CLSError``
    ///   when the store cannot be used.
    public func collect(folder: URL) async throws -> [Outcome] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw ClassroomError(.fileAccess, "cannot list \(folder.path): \(error.localizedDescription); give a folder of .\(SubmissionFile.fileExtension) files")
        }
        let files = names.filter { $0.hasSuffix(".\(SubmissionFile.fileExtension)") }.sorted()
            .map { folder.appendingPathComponent($0) }
        let assignments = Dictionary(try await store.assignments().map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        var outcomes: [Outcome] = []
        for file in files {
            outcomes.append(try await collect(file: file, assignments: assignments))
        }
        return outcomes
    }

    private func collect(file: URL, assignments: [String: Assignment]) async throws -> Outcome {
        var outcome = Outcome(file: file, result: .success(.unchanged))
        do {
            let submission = try SubmissionFile.read(from: file)
            outcome.studentName = submission.studentName
            guard let assignment = assignments[submission.handout] else {
                throw ClassroomError(.unknownHandout, "\(file.path) is for handout \(submission.handout), which is not one of yours in \(store.storeURL.path); it was not imported")
            }
            outcome.assignmentTitle = assignment.title
            let (work, digest) = try submission.openWork(with: assignment, file: file)
            let payload = try JSONCoding.encoder.encode(work)
            let result = try await store.importSubmission(Submission(
                assignmentIdentifier: assignment.identifier, studentIdentifier: submission.student,
                studentName: submission.studentName, submittedAt: submission.submittedAt, digest: digest, payload: payload))
            outcome.result = .success(result)
        } catch let error as ClassroomError {
            outcome.result = .failure(error)
        }
        return outcome
    }
}
