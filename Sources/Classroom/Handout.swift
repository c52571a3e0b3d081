import Crypto
import Foundation
import OpenClassKit

/// The file a teacher gives out with a document, the way Schoolwork shares a folder per handout:
/// what the assignment is, which document it is for, and the class key that seals what comes back.
///
/// It is JSON with a format name and a version, written beside the document as
/// `NAME.clshandout` (``defaultURL(beside:)``), so that it travels with the document.
public struct Handout: Sendable, Equatable, Codable {
    /// The format version this code writes and the newest it reads.
    public static let currentVersion = 1
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
    /// The 32-byte class key, base64 in the file.
    public var classKey: Data
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case format, version, id, title, className = "class", due, targetWords, reading, instructions, document, classKey
        case createdAt
    }

    /// Makes a new handout for a document, with a fresh identifier and class key.
    /// - Throws: ``ClassroomError`` `.fileAccess` when the document cannot be read.
    public init(document url: URL, title: String, className: String? = nil, due: Date? = nil,
                targetWords: Int? = nil, isReading: Bool = false, instructions: String? = nil) throws {
        id = UUID().uuidString.lowercased()
        self.title = title
        self.className = className
        self.due = due
        self.targetWords = targetWords
        reading = isReading ? true : nil
        self.instructions = instructions
        document = Document(name: url.lastPathComponent, sha256: try Self.sha256(of: url))
        classKey = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        createdAt = Date()
    }

    /// The handout of an assignment recorded in a store.
    public init(_ assignment: Assignment) {
        id = assignment.identifier
        title = assignment.title
        className = assignment.className
        due = assignment.dueDate
        targetWords = assignment.targetWordCount
        reading = assignment.isReading ? true : nil
        instructions = assignment.instructions
        document = Document(name: assignment.documentName, sha256: assignment.documentDigest)
        classKey = assignment.classKey
        createdAt = assignment.createdAt
    }

    /// The assignment this handout describes, to record or accept in a store.
    public var assignment: Assignment {
        Assignment(identifier: id, title: title, className: className, dueDate: due, targetWordCount: targetWords,
                      isReading: reading == true, instructions: instructions, documentName: document.name, documentDigest: document.sha256,
                      classKey: classKey, createdAt: createdAt)
    }

    // MARK: Files

    /// Where a document's handout is written by default: `NAME.clshandout` beside it.
    public static func defaultURL(beside document: URL) -> URL {
        document.deletingLastPathComponent().appendingPathComponent("\(document.lastPathComponent).\(fileExtension)")
    }

    /// Reads and checks a handout file.
    /// - Throws: ``ClassroomError``: `.fileAccess` when it cannot be read, `.malformedFile` when it is
    ///   not a handout, `.newerFormat` when a newer clsfile wrote it.
    public static func read(from url: URL) throws -> Handout {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ClassroomError(.fileAccess, "cannot read the handout \(url.path): \(error.localizedDescription); check the path")
        }
        let header = try? JSONDecoder().decode(FormatHeader.self, from: data)
        guard let header, header.format == formatName else {
            throw ClassroomError(.malformedFile, "\(url.path) is not a clsfile handout (no \"format\": \"\(formatName)\"); ask your teacher for the .\(fileExtension) file")
        }
        guard header.version <= currentVersion else {
            throw ClassroomError(.newerFormat, "the handout \(url.path) has format version \(header.version), newer than this clsfile reads (\(currentVersion)); update clsfile")
        }
        let handout: Handout
        do { handout = try JSONCoding.decoder.decode(Handout.self, from: data) } catch {
            throw ClassroomError(.malformedFile, "the handout \(url.path) is damaged: \(JSONCoding.describe(error)); ask your teacher for a new copy")
        }
        guard handout.classKey.count == 32, !handout.id.isEmpty, !handout.document.name.isEmpty else {
            throw ClassroomError(.malformedFile, "the handout \(url.path) is damaged: its id, document name or 32-byte class key is missing; ask your teacher for a new copy")
        }
        return handout
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
            throw ClassroomError(.fileAccess, "cannot write the handout \(url.path): \(error.localizedDescription); check the folder's permissions")
        }
    }

    /// Finds the handout lying beside a document: `NAME.clshandout`, else any handout in the same
    /// folder whose document has the same file name. Unreadable or foreign `.clshandout` files are skipped.
    public static func lyingBeside(_ document: URL) -> Handout? {
        if let handout = try? read(from: defaultURL(beside: document)), handout.document.name == document.lastPathComponent {
            return handout
        }
        let folder = document.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".\(fileExtension)") {
            if let handout = try? read(from: folder.appendingPathComponent(name)), handout.document.name == document.lastPathComponent {
                return handout
            }
        }
        return nil
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
    /// For a student about to open a document: its assignment, accepting the handout lying beside
    /// it when the document is not assigned yet. Nil in other roles, or with no handout.
    /// - Returns: The assignment, and whether this call accepted it.
    public static func assignment(opening document: URL, store: CLSDataStore,
                                  mode: DeveloperMode) async throws -> (assignment: Assignment, accepted: Bool)? {
        guard mode.role == .student, FileManager.default.fileExists(atPath: document.path) else { return nil }
        if let assignment = try await store.assignment(for: document) { return (assignment, false) }
        guard let handout = lyingBeside(document) else { return nil }
        try await store.acceptAssignment(handout.assignment, for: document)
        return (handout.assignment, true)
    }
}
