import Crypto
import Foundation
import OpenClassKit

/// What a student sends back for one handout: their work on the assigned document, sealed with the
/// handout's class key (ChaCha20-Poly1305), so that it can be read only with the handout and any
/// change to the file, header included, is detected.
///
/// The file is JSON: a readable header (format, version, handout, student, date) and `sealed`, the
/// encrypted ``StudentWork``. The header is authenticated as associated data.
///
/// The class key travels with the handout to every student, so sealing keeps the work from anyone
/// without the handout and catches edits and damage on the way; it does not prove which student
/// wrote a file.
public struct SubmissionFile: Sendable, Equatable, Codable {
    /// The format version this code writes and the newest it reads.
    public static let currentVersion = 1
    /// The value of the `format` field.
    public static let formatName = "clsfile-submission"
    /// The file name extension of submissions.
    public static let fileExtension = "clssubmission"

    public var format = SubmissionFile.formatName
    public var version = SubmissionFile.currentVersion
    /// The handout's identifier.
    public var handout: String
    /// The student's opaque account identifier.
    public var student: String
    /// The name the student gave.
    public var studentName: String
    public var submittedAt: Date
    /// Nonce, ciphertext and tag of the work.
    public var sealed: Data

    /// Seals a student's work on a handout.
    public init(work: StudentWork, handout: Assignment, student: String, studentName: String,
                submittedAt: Date = Date()) throws {
        self.handout = handout.identifier
        self.student = student
        self.studentName = studentName
        // Whole seconds, as the file stores them, so that the header authenticates after a round trip.
        self.submittedAt = Date(timeIntervalSince1970: submittedAt.timeIntervalSince1970.rounded(.down))
        sealed = Data()
        let plaintext = try JSONCoding.encoder.encode(work)
        sealed = try ChaChaPoly.seal(plaintext, using: SymmetricKey(data: handout.classKey),
                                     authenticating: Data(associatedData.utf8)).combined
    }

    /// The header fields, as the bytes the seal authenticates.
    private var associatedData: String {
        [format, String(version), handout, student, studentName,
         String(Int64(submittedAt.timeIntervalSince1970))].joined(separator: "\n")
    }

    // MARK: Reading

    /// Reads a submission file and checks its header.
    /// - Throws: ``ClassroomError``: `.fileAccess`, `.malformedFile` or `.newerFormat`, naming the file.
    public static func read(from url: URL) throws -> SubmissionFile {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ClassroomError(.fileAccess, "cannot read \(url.path): \(error.localizedDescription)")
        }
        guard let header = try? JSONDecoder().decode(FormatHeader.self, from: data), header.format == formatName else {
            throw ClassroomError(.malformedFile, "\(url.path) is not a clsfile submission (no \"format\": \"\(formatName)\"); ask the student to run `clsfile submit` again")
        }
        guard header.version <= currentVersion else {
            throw ClassroomError(.newerFormat, "\(url.path) has format version \(header.version), newer than this clsfile reads (\(currentVersion)); update clsfile")
        }
        do { return try JSONCoding.decoder.decode(SubmissionFile.self, from: data) } catch {
            throw ClassroomError(.malformedFile, "\(url.path) is damaged: \(JSONCoding.describe(error)); ask the student to run `clsfile submit` again")
        }
    }

    /// Opens the seal with the handout's key and returns the work, checking that it belongs to the
    /// handout the header names.
    /// - Throws: ``ClassroomError`` `.damagedFile` when the file was edited or damaged, or sealed
    ///   with another key.
    public func openWork(with handout: Assignment, file url: URL) throws -> (work: StudentWork, digest: String) {
        let plaintext: Data
        do {
            let box = try ChaChaPoly.SealedBox(combined: sealed)
            plaintext = try ChaChaPoly.open(box, using: SymmetricKey(data: handout.classKey),
                                            authenticating: Data(associatedData.utf8))
        } catch {
            throw ClassroomError(.damagedFile, "\(url.path) was edited or damaged after it was sealed, or sealed for another handout; it was not imported: ask the student to run `clsfile submit` again")
        }
        let work: StudentWork
        do { work = try JSONCoding.decoder.decode(StudentWork.self, from: plaintext) } catch {
            throw ClassroomError(.malformedFile, "\(url.path) holds work this clsfile cannot read (\(JSONCoding.describe(error))); update clsfile")
        }
        guard work.assignmentIdentifier == handout.identifier else {
            throw ClassroomError(.damagedFile, "\(url.path) holds work for handout \(work.assignmentIdentifier) under the header of \(handout.identifier); it was not imported")
        }
        return (work, SHA256.hash(data: plaintext).hexadecimal)
    }

    /// Writes the file; replaces an earlier submission file of the same name.
    public func write(to url: URL) throws {
        do { try JSONCoding.encoder.encode(self).write(to: url, options: .atomic) } catch {
            throw ClassroomError(.fileAccess, "cannot write \(url.path): \(error.localizedDescription); check the folder's permissions or pass another --output")
        }
    }
}
