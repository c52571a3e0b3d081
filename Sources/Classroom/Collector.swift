import Foundation
import OpenClassKit

/// Imports students' submission files into a teacher's store, file by file.
///
/// Each file is checked before anything is stored: the student's signature, the encryption to
/// this teacher, and every value of the work. The first accepted submission of a student pins
/// the key it was signed with; a later one signed with another key, or dated in the future, is a
/// conflict: kept aside in the store for the teacher to inspect, never an update.
public struct Collector: Sendable {
    /// What happened to one file.
    public struct Outcome: Sendable {
        public var file: URL
        /// The student's name, when the file could be read.
        public var studentName: String?
        /// The student's account identifier, when the file could be read.
        public var studentIdentifier: String?
        /// The assignment's title, when the file is for a known handout.
        public var assignmentTitle: String?
        /// The fingerprint of the key the file is signed with, when the file could be read.
        public var keyFingerprint: String?
        /// Why the file is a conflict, when the result is `conflict`.
        public var conflict: String?
        /// What the import did, or why the file was refused.
        package var result: Result<Submission.ImportResult, ClassroomError>
    }

    public let store: CLSDataStore
    /// The teacher, whose key the submissions are encrypted to.
    public let teacher: Identity

    public init(store: CLSDataStore, teacher: Identity) {
        self.store = store
        self.teacher = teacher
    }

    /// Imports every `.clssubmission` file of a folder (not its subfolders), in name order.
    /// A file that is refused leaves the store as it was; the others are imported.
    /// - Throws: ``ClassroomError`` `.fileAccess` when the folder cannot be listed; `CLSError`
    ///   when the store cannot be used.
    public func collect(folder: URL, at now: Date = Date()) async throws -> [Outcome] {
        let files = try Self.submissionFiles(in: folder)
        let assignments = Dictionary(try await store.assignments().map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        var outcomes: [Outcome] = []
        for file in files {
            outcomes.append(try await collect(file: file, assignments: assignments, at: now))
        }
        return outcomes
    }

    /// The `.clssubmission` files of a folder in byte order of their names, which are kept byte
    /// for byte: a name that is not UTF-8 is read as it is.
    static func submissionFiles(in folder: URL) throws -> [URL] {
        let folderBytes = folder.fileSystemPathBytes
        guard let directory = FileSystemPath.withCString(folder, opendir) else {
            throw ClassroomError(
                .fileAccess,
                "cannot list \(folder.path): \(String(cString: strerror(errno))); give a folder of .\(SubmissionFile.fileExtension) files")
        }
        defer { closedir(directory) }
        let suffix = Array(".\(SubmissionFile.fileExtension)".utf8)
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name.count > suffix.count && name.suffix(suffix.count).elementsEqual(suffix) { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
            .map { URL(fileSystemPathBytes: folderBytes + (folderBytes.last == UInt8(ascii: "/") ? [] : [UInt8(ascii: "/")]) + $0) }
    }

    private func collect(file: URL, assignments: [String: Assignment], at now: Date) async throws -> Outcome {
        var outcome = Outcome(file: file, result: .success(.unchanged))
        do {
            let submission = try SubmissionFile.read(from: file)
            outcome.studentName = submission.studentName
            outcome.studentIdentifier = submission.student
            outcome.keyFingerprint = Identity.fingerprint(of: submission.studentKey)
            guard let assignment = assignments[submission.handout] else {
                throw ClassroomError(
                    .unknownHandout,
                    "\(file.path) is for handout \(submission.handout), which is not one of yours in \(store.storeURL.path); it was not imported"
                )
            }
            outcome.assignmentTitle = assignment.title
            let (work, digest) = try submission.openWork(with: assignment, teacher: teacher, file: file)
            try work.validate(at: now, file: file)
            let record = Submission(
                assignmentIdentifier: assignment.identifier, studentIdentifier: submission.student,
                studentName: submission.studentName, submittedAt: submission.submittedAt, digest: digest,
                payload: try JSONCoding.encoder.encode(work), studentKey: submission.studentKey)
            if submission.submittedAt > now.addingTimeInterval(Submission.clockMargin) {
                try await store.keepAside(record)
                outcome.conflict = "it is dated \(submission.submittedAt.formatted(.iso8601)), in the future"
                outcome.result = .success(.conflict)
                return outcome
            }
            let result = try await store.importSubmission(record)
            if result == .conflict {
                let pinned = try await store.pinnedKey(forStudent: submission.student).map(Identity.fingerprint(of:)) ?? "none"
                outcome.conflict =
                    "it is signed with the key \(outcome.keyFingerprint ?? ""), but the key this class holds for the student is \(pinned)"
            }
            outcome.result = .success(result)
        } catch let error as ClassroomError {
            outcome.result = .failure(error)
        }
        return outcome
    }

    /// Trusts a student's new key on purpose: the key of the submissions kept aside for that
    /// student whose fingerprint is given. They are then imported, but those dated in the future.
    /// - Parameters:
    ///   - student: The student's account identifier, a unique prefix of it, or their name.
    ///   - fingerprint: The key's fingerprint as ``Identity/fingerprint(of:)`` writes it; spaces
    ///     and case do not matter, and a unique prefix of at least 8 digits will do.
    /// - Returns: The student's identifier and what importing each kept-aside submission did.
    /// - Throws: ``ClassroomError`` `.notAssigned` when no kept-aside submission, or several keys,
    ///   match.
    package func trust(student: String, fingerprint: String) async throws -> (student: String, results: [Submission.ImportResult]) {
        let wanted = fingerprint.lowercased().filter { !$0.isWhitespace }
        guard wanted.count >= 8 else {
            throw ClassroomError(.notAssigned, "give at least 8 digits of the key's fingerprint, as `clsfile collect` printed it")
        }
        let lowered = student.lowercased()
        let candidates = try await store.keptAsideSubmissions().filter {
            $0.studentIdentifier.lowercased().hasPrefix(lowered) || $0.studentName.lowercased() == lowered
        }.filter {
            guard let key = $0.studentKey else { return false }
            return Identity.fingerprint(of: key).filter { !$0.isWhitespace }.hasPrefix(wanted)
        }
        let matches = Set(candidates.map { [$0.studentIdentifier, $0.studentKey?.base64EncodedString() ?? ""] })
        guard matches.count == 1, let chosen = candidates.first, let key = chosen.studentKey else {
            throw ClassroomError(
                .notAssigned,
                matches.isEmpty
                    ? "no submission kept aside in \(store.storeURL.path) for student '\(student)' with key \(fingerprint); `clsfile class-report` lists those kept aside"
                    : "'\(student)' and \(fingerprint) match \(matches.count) students or keys; give the full account identifier and fingerprint"
            )
        }
        return (chosen.studentIdentifier, try await store.trustStudentKey(key, forStudent: chosen.studentIdentifier))
    }
}
