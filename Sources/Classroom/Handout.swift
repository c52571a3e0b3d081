internal import Crypto
import Foundation
import OpenClassKit

/// The file a teacher gives out with a document, the way Schoolwork shares a folder per handout:
/// what the assignment is, which document it is for, and the teacher's public key, which what
/// comes back is encrypted to.
///
/// It is JSON with a format name and a version, written beside the document as
/// `NAME.clshandout` (``defaultURL(beside:)``), so that it travels with the document.
public struct Handout: Sendable, Equatable, Codable {
    /// The format version this code writes and the only one it reads: version 1 carried a class
    /// key that every student held, with which any of them could forge another's work.
    public static let currentVersion = 2
    /// The value of the `format` field.
    public static let formatName = "clsfile-handout"
    /// The file name extension of handouts.
    public static let fileExtension = "clshandout"

    /// The document a handout is for.
    public struct Document: Sendable, Equatable, Codable {
        /// The document's file name.
        public var name: String
        /// The SHA-256 of the document as handed out, lowercase hexadecimal.
        public var sha256: String
    }

    /// The course context a handout belongs to, when a teacher assigned a context (a chapter with
    /// several documents): one handout per document, all with the same assigned context.
    public struct Course: Sendable, Equatable, Codable {
        /// The assigned context's identifier path, below the main app context.
        public var assignedPath: [String]
        /// The identifier path of this handout's document's context, at or below ``assignedPath``.
        public var documentPath: [String]
        /// The course's contexts from the top down to the assigned one, and every context below
        /// it, parents first, in a course manifest's shape (without documents or thumbnails).
        public var contexts: [CourseManifest.Entry]

        /// Creates the course part of a handout.
        public init(assignedPath: [String], documentPath: [String], contexts: [CourseManifest.Entry]) {
            self.assignedPath = assignedPath
            self.documentPath = documentPath
            self.contexts = contexts
        }

        /// Why the course part is not one a student's store can take; nil when it is.
        var problem: String? {
            let limits = (depth: CLSContext.maximumDepth - 1, text: CLSContext.maximumIdentifierLength)
            guard !assignedPath.isEmpty, documentPath.starts(with: assignedPath) else {
                return
                    "its document's context \(documentPath.joined(separator: "/")) is not under the assigned context \(assignedPath.joined(separator: "/"))"
            }
            guard contexts.count <= 10_000 else { return "it lists \(contexts.count) contexts; at most 10,000" }
            let paths = Set(contexts.map(\.data.identifierPath))
            guard paths.contains(assignedPath), paths.contains(documentPath) else {
                return "its contexts do not include the assigned context and its document's"
            }
            for entry in contexts {
                let path = entry.data.identifierPath
                guard !path.isEmpty, path.count <= limits.depth, path.allSatisfy({ !$0.isEmpty && $0.count <= limits.text }),
                    entry.data.title.count <= limits.text, (entry.data.summary?.count ?? 0) <= CLSContext.maximumSummaryLength,
                    entry.document == nil
                else {
                    return "the context \(path.joined(separator: "/")) breaks ClassKit's limits or names a file"
                }
            }
            return nil
        }
    }

    public var format = Handout.formatName
    public var version = Handout.currentVersion
    /// The handout's identifier, the same in the teacher's and the students' stores.
    public var id: String
    public var title: String
    public var className: String?
    public var due: Date?
    public var targetWords: Int?
    /// True for a reading assignment: progress is the share of the document viewed. Absent (nil)
    /// in handouts from before reading assignments, which read as false.
    public var reading: Bool?
    public var instructions: String?
    public var document: Document
    /// The teacher's public key (P-256, X9.63 form, base64 in the file) that submissions are
    /// encrypted to.
    public var teacherKey: Data
    public var createdAt: Date
    /// The assigned course context this handout's document belongs to; nil for a document
    /// assigned alone.
    public var course: Course?
    /// What of the writing history the teacher asks to be handed in with the work; absent for
    /// nothing. A clsfile from before it reads the handout and hands in no history.
    public var processEvidence: ProcessEvidence?
    /// Whether the teacher asks for a statement of the student's AI use; absent for none. A
    /// clsfile from before it ignores the field (JSON's unknown keys are skipped) and asks for none.
    public var aiStatementRequirement: AIStatement.Requirement?
    /// How many days the teacher keeps the process evidence of submitted work after it last
    /// changed (1 to `ProcessEvidence/maximumKeptDays`); absent for
    /// `ProcessEvidence/defaultKeptDays`. A clsfile from before it skips the field.
    public var keptEvidenceDays: Int?

    enum CodingKeys: String, CodingKey {
        case format, version, id, title
        case className = "class"
        case due, targetWords, reading, instructions, document, teacherKey
        case createdAt, course, processEvidence
        case aiStatementRequirement = "aiStatement"
        case keptEvidenceDays = "keepEvidenceDays"
    }

    /// Makes a new handout for a document, with a fresh identifier, for the teacher's identity.
    /// - Throws: ``ClassroomError`` `.fileAccess` when the document cannot be read.
    public init(
        document url: URL, title: String, className: String? = nil, due: Date? = nil,
        targetWords: Int? = nil, isReading: Bool = false, instructions: String? = nil,
        teacher: Identity, course: Course? = nil, processEvidence: ProcessEvidence? = nil,
        aiStatementRequirement: AIStatement.Requirement? = nil, keptEvidenceDays: Int? = nil
    ) throws {
        id = UUID().uuidString.lowercased()
        self.title = title
        self.className = className
        self.due = due
        self.targetWords = targetWords
        reading = isReading ? true : nil
        self.instructions = instructions
        document = Document(name: url.lastPathComponent, sha256: try Self.sha256(of: url))
        teacherKey = teacher.recipientPublicKey
        createdAt = Date()
        self.course = course
        self.processEvidence = processEvidence
        self.aiStatementRequirement = aiStatementRequirement
        self.keptEvidenceDays = keptEvidenceDays
    }

    /// The handout of an assignment recorded in a store.
    /// - Throws: ``ClassroomError`` `.outdatedFormat` for an assignment from a version-1 handout.
    public init(_ assignment: Assignment) throws {
        guard let teacherKey = assignment.teacherKey else {
            throw ClassroomError(
                .outdatedFormat,
                "'\(assignment.title)' (\(assignment.identifier)) came from a version-1 handout, which carried no teacher key; issue it again with `clsfile assign`"
            )
        }
        id = assignment.identifier
        title = assignment.title
        className = assignment.className
        due = assignment.dueDate
        targetWords = assignment.targetWordCount
        reading = assignment.isReading ? true : nil
        instructions = assignment.instructions
        document = Document(name: assignment.documentName, sha256: assignment.documentDigest)
        self.teacherKey = teacherKey
        createdAt = assignment.createdAt
        processEvidence = assignment.processEvidence
        aiStatementRequirement = assignment.aiStatementRequirement
        keptEvidenceDays = assignment.keptEvidenceDays
    }

    /// The assignment this handout describes, to record or accept in a store.
    public var assignment: Assignment {
        Assignment(
            identifier: id, title: title, className: className, dueDate: due, targetWordCount: targetWords,
            isReading: reading == true, instructions: instructions, documentName: document.name, documentDigest: document.sha256,
            teacherKey: teacherKey, createdAt: createdAt, contextPath: course?.assignedPath,
            processEvidence: processEvidence, aiStatementRequirement: aiStatementRequirement, keptEvidenceDays: keptEvidenceDays)
    }

    /// Accepts the handout for a student's copy of its document; for a handout of an assigned
    /// context, the course's contexts come into the store and the document is tied to its
    /// context, so its work is recorded there (and what was recorded for it before moves along).
    /// - Throws: `CLSError` as `acceptAssignment(_:for:)` and
    ///   `importContexts(_:)` do.
    public func accept(for documentURL: URL, in store: CLSDataStore) async throws {
        try await store.acceptAssignment(assignment, for: documentURL)
        guard let course else { return }
        _ = try await store.importContexts(CourseManifest(contexts: course.contexts))
        guard let context = try await store.mainAppContext.descendant(matchingIdentifierPath: course.documentPath) else {
            throw CLSError(
                .invalidArgument,
                "the handout's context \(course.documentPath.joined(separator: "/")) was not imported into \(store.storeURL.path)")
        }
        try await store.tieDocument(documentURL, to: context)
    }

    // MARK: Files

    /// Where a document's handout is written by default: `NAME.clshandout` beside it.
    public static func defaultURL(beside document: URL) -> URL {
        document.deletingLastPathComponent().appendingPathComponent("\(document.lastPathComponent).\(fileExtension)")
    }

    /// Reads and checks a handout file: a regular file of at most 16 MiB, read without following
    /// a symbolic link, with a valid teacher key and a document name that is a plain file name.
    /// - Throws: ``ClassroomError``: `.fileAccess` when it cannot be read, `.malformedFile` when it is
    ///   not a handout, `.newerFormat` when a newer clsfile wrote it, `.outdatedFormat` for version 1.
    public static func read(from url: URL) throws -> Handout {
        let data = try ExchangeFile.read(url, what: "the handout")
        let header = try? JSONDecoder().decode(FormatHeader.self, from: data)
        guard let header, header.format == formatName else {
            throw ClassroomError(
                .malformedFile,
                "\(url.path) is not a clsfile handout (no \"format\": \"\(formatName)\"); ask your teacher for the .\(fileExtension) file")
        }
        guard header.version <= currentVersion else {
            throw ClassroomError(
                .newerFormat,
                "the handout \(url.path) has format version \(header.version), newer than this clsfile reads (\(currentVersion)); update clsfile"
            )
        }
        guard header.version == currentVersion else {
            throw ClassroomError(
                .outdatedFormat,
                "the handout \(url.path) has format version \(header.version), which any classmate could use to forge others' work; ask your teacher to issue it again with this clsfile"
            )
        }
        let handout: Handout
        do { handout = try JSONCoding.decoder.decode(Handout.self, from: data) } catch {
            throw ClassroomError(
                .malformedFile, "the handout \(url.path) is damaged: \(JSONCoding.describe(error)); ask your teacher for a new copy")
        }
        guard (try? P256.KeyAgreement.PublicKey(x963Representation: handout.teacherKey)) != nil,
            !handout.id.isEmpty, handout.id.utf8.count <= 200
        else {
            throw ClassroomError(
                .malformedFile,
                "the handout \(url.path) is damaged: its id or teacher key is missing or invalid; ask your teacher for a new copy")
        }
        guard isPlainFileName(handout.document.name) else {
            throw ClassroomError(
                .malformedFile,
                "the handout \(url.path) names the document '\(handout.document.name)', which is not a plain file name; it was refused: ask your teacher for a new copy"
            )
        }
        if let days = handout.keptEvidenceDays, !(1...ProcessEvidence.maximumKeptDays).contains(days) {
            throw ClassroomError(
                .malformedFile,
                "the handout \(url.path) keeps process evidence \(days) days, not between 1 and \(ProcessEvidence.maximumKeptDays); it was refused: ask your teacher for a new copy"
            )
        }
        if let problem = handout.course?.problem {
            throw ClassroomError(
                .malformedFile, "the handout \(url.path) is damaged: \(problem); it was refused: ask your teacher for a new copy")
        }
        return handout
    }

    /// Whether a name is a file name alone: no folder, not `.` or `..`, no control characters,
    /// at most 255 bytes.
    public static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && name.utf8.count <= 255
            && !name.unicodeScalars.contains { $0 == "/" || $0.properties.generalCategory == .control }
    }

    /// Writes the handout, readable by anyone the folder is shared with; never replaces another file.
    /// - Throws: ``ClassroomError`` `.fileAccess` when the file exists or cannot be written.
    public func write(to url: URL) throws {
        let data = try JSONCoding.encoder.encode(self)
        do {
            try data.write(to: url, options: .withoutOverwriting)
        } catch let error as CocoaError where error.code == .fileWriteFileExists {
            throw ClassroomError(.fileAccess, "\(url.path) already exists; remove it or pass another --output")
        } catch {
            throw ClassroomError(
                .fileAccess, "cannot write the handout \(url.path): \(error.localizedDescription); check the folder's permissions")
        }
    }

    /// The handout lying beside a document, `NAME.clshandout` for `NAME`, when it is for that
    /// document; nil when there is none or it cannot be read.
    public static func lyingBeside(_ document: URL) -> Handout? {
        guard let handout = try? read(from: defaultURL(beside: document)),
            handout.document.name == document.lastPathComponent
        else { return nil }
        return handout
    }

    /// The SHA-256 of a file, read in 1 MiB pieces, lowercase hexadecimal.
    static func sha256(of url: URL) throws -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw ClassroomError(.fileAccess, "cannot read \(url.path); check that the document exists and is readable")
        }
        defer { try? handle.close() }
        var hash = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        } catch {
            throw ClassroomError(.fileAccess, "cannot read \(url.path): \(error.localizedDescription)")
        }
        return hash.finalize().hexadecimal
    }
}

/// The two fields every clsfile exchange file starts with.
struct FormatHeader: Decodable {
    var format: String
    var version: Int
}

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal.
    var hexadecimal: String { map { String(format: "%02x", $0) }.joined() }
}

extension Handout {
    /// What ``assignment(opening:store:mode:)`` found.
    public struct Opening: Sendable {
        /// The document's assignment, if it has one.
        public var assignment: Assignment?
        /// Whether this call accepted the handout lying beside the document.
        public var accepted = false
        /// Why a handout lying beside the document was not accepted: for a warning, never a
        /// reason not to open the document.
        public var warnings: [String] = []
    }

    /// For a student about to open a document: its assignment, accepting the handout lying beside
    /// it — only `NAME.clshandout` for `NAME`, only for an assignment not accepted yet, and only
    /// while the document is still the one handed out (its SHA-256). An accepted assignment is
    /// never tied to another file here. Other roles get nothing.
    /// - Throws: `CLSError` when the store cannot be read; a handout's problems are warnings.
    public static func assignment(opening document: URL, store: CLSDataStore, mode: DeveloperMode) async throws -> Opening {
        var opening = Opening()
        guard mode.role == .student, FileManager.default.fileExists(atPath: document.path) else { return opening }
        if let assignment = try await store.assignment(for: document) {
            opening.assignment = assignment
            return opening
        }
        let handoutURL = defaultURL(beside: document)
        guard FileManager.default.fileExists(atPath: handoutURL.path) else { return opening }
        let shown = handoutURL.path
        let handout: Handout
        do { handout = try read(from: handoutURL) } catch let error as ClassroomError {
            opening.warnings.append("\(error.message); the document was opened as not assigned")
            return opening
        }
        guard handout.document.name == document.lastPathComponent else {
            opening.warnings.append("the handout \(shown) is for '\(handout.document.name)', not this file; it was not accepted")
            return opening
        }
        if let held = try await store.assignments().first(where: { $0.identifier == handout.id }), held.acceptedAt != nil {
            let place = held.documentURL.map { $0.path } ?? "another file"
            opening.warnings.append(
                "the handout \(shown) is for '\(held.title)', which you accepted for \(place); it stays tied there (to move it: clsfile accept --document FILE HANDOUT)"
            )
            return opening
        }
        guard (try? sha256(of: document)) == handout.document.sha256 else {
            opening.warnings.append(
                "\(document.path) is not the document handed out with \(shown) (its content differs), so the handout was not accepted automatically; to accept it anyway: clsfile accept \(shown)"
            )
            return opening
        }
        do {
            try await handout.accept(for: document, in: store)
        } catch let error as CLSError where error.code == .invalidModification {
            opening.warnings.append("the handout \(shown) was not accepted: \(error.message)")
            return opening
        }
        opening.assignment = handout.assignment
        opening.accepted = true
        return opening
    }
}
