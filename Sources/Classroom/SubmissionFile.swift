internal import Crypto
import Foundation
import OpenClassKit

/// What a student sends back for one handout: their work on the assigned document, encrypted to
/// the teacher and signed by the student.
///
/// The file is JSON: a readable header (format, version, handout, student, name, date, the
/// student's public signing key) and the work, encrypted with HPKE (P-256, SHA-256, AES-256-GCM)
/// to the teacher's key from the handout, the header authenticated with it. The student's key
/// signs the header, the encapsulated key and the ciphertext together. So a classmate, who holds
/// the same handout, can neither read the work nor change it, and cannot sign as another student:
/// the teacher pins each student's key at the first submission collected (see ``Collector``).
public struct SubmissionFile: Sendable, Equatable, Codable {
    /// The format version this code writes and the only one it reads: version 1 was sealed with a
    /// class key every student held.
    public static let currentVersion = 2
    /// The value of the `format` field.
    public static let formatName = "clsfile-submission"
    /// The file name extension of submissions.
    public static let fileExtension = "clssubmission"
    /// The HPKE cipher suite of version 2.
    static let ciphersuite = HPKE.Ciphersuite.P256_SHA256_AES_GCM_256

    public var format = SubmissionFile.formatName
    public var version = SubmissionFile.currentVersion
    /// The handout's identifier.
    public var handout: String
    /// The student's opaque account identifier.
    public var student: String
    /// The name the student gave.
    public var studentName: String
    public var submittedAt: Date
    /// The student's public signing key (P-256, X9.63 form).
    public var studentKey: Data
    /// HPKE's encapsulated key.
    public var encapsulatedKey: Data
    /// The encrypted work.
    public var sealed: Data
    /// The student's signature (P-256 ECDSA, raw r‖s) of `signedBytes`.
    public var signature: Data

    /// Encrypts a student's work on a handout to its teacher and signs it.
    /// - Throws: ``ClassroomError`` `.outdatedFormat` for an assignment from a version-1 handout,
    ///   `.malformedFile` when its teacher key is not a P-256 key.
    public init(
        work: StudentWork, handout: Assignment, student: String, studentName: String,
        identity: Identity, submittedAt: Date = Date()
    ) throws {
        guard let teacherKey = handout.teacherKey else {
            throw ClassroomError(
                .outdatedFormat,
                "'\(handout.title)' came from a version-1 handout, which any classmate could use to forge your work; ask your teacher to issue it again, then accept the new handout"
            )
        }
        let recipient: P256.KeyAgreement.PublicKey
        do { recipient = try P256.KeyAgreement.PublicKey(x963Representation: teacherKey) } catch {
            throw ClassroomError(
                .malformedFile, "the teacher key of '\(handout.title)' is not a P-256 key; ask your teacher to issue the handout again",
                underlyingError: error)
        }
        self.handout = handout.identifier
        self.student = student
        self.studentName = studentName
        // Whole seconds, as the file stores them, so that the header authenticates after a round trip.
        self.submittedAt = Date(timeIntervalSince1970: submittedAt.timeIntervalSince1970.rounded(.down))
        studentKey = identity.signingPublicKey
        var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: Self.ciphersuite, info: Self.info(handout: handout.identifier))
        encapsulatedKey = sender.encapsulatedKey
        sealed = Data()
        signature = Data()
        sealed = try sender.seal(try work.sealedJSON(), authenticating: header)
        signature = try identity.signingKey.signature(for: signedBytes).rawRepresentation
    }

    /// The header fields, as the bytes the encryption authenticates.
    var header: Data {
        AuthenticatedFields.encode(
            format, String(version), handout, student, studentName,
            String(Int64(submittedAt.timeIntervalSince1970)), studentKey.base64EncodedString())
    }

    /// What the student signs: the header, the encapsulated key and the ciphertext.
    var signedBytes: Data { AuthenticatedFields.encode([header, encapsulatedKey, sealed]) }

    /// HPKE's info: the format and the handout, so that work for one handout never opens as another's.
    static func info(handout: String) -> Data {
        AuthenticatedFields.encode(formatName, String(currentVersion), handout)
    }

    // MARK: Reading

    /// Reads a submission file and checks its header: a regular file of at most 16 MiB, read
    /// without following a symbolic link.
    /// - Throws: ``ClassroomError``: `.fileAccess`, `.malformedFile`, `.newerFormat` or
    ///   `.outdatedFormat`, naming the file.
    public static func read(from url: URL) throws -> SubmissionFile {
        let data = try ExchangeFile.read(url, what: "the submission")
        guard let header = try? JSONDecoder().decode(FormatHeader.self, from: data), header.format == formatName else {
            throw ClassroomError(
                .malformedFile,
                "\(url.path) is not a clsfile submission (no \"format\": \"\(formatName)\"); ask the student to run `clsfile submit` again")
        }
        guard header.version <= currentVersion else {
            throw ClassroomError(
                .newerFormat,
                "\(url.path) has format version \(header.version), newer than this clsfile reads (\(currentVersion)); update clsfile")
        }
        guard header.version == currentVersion else {
            throw ClassroomError(
                .outdatedFormat,
                "\(url.path) has format version \(header.version), sealed with a class key any classmate held, so it proves nothing about who wrote it; it was not imported: issue the handout again and ask the student to submit again"
            )
        }
        let file: SubmissionFile
        do { file = try JSONCoding.decoder.decode(SubmissionFile.self, from: data) } catch {
            throw ClassroomError(
                .malformedFile, "\(url.path) is damaged: \(JSONCoding.describe(error)); ask the student to run `clsfile submit` again")
        }
        guard !file.student.isEmpty, file.student.utf8.count <= 200, file.handout.utf8.count <= 200,
            !file.studentName.isEmpty, file.studentName.utf8.count <= 200
        else {
            throw ClassroomError(
                .malformedFile, "\(url.path) has an empty or over-long student identifier, name or handout; it was not imported")
        }
        return file
    }

    /// Checks the student's signature, then opens the work with the teacher's identity and checks
    /// that it belongs to the handout the header names.
    /// - Throws: ``ClassroomError`` `.damagedFile` when the file was changed after it was signed,
    ///   or sealed for another handout or teacher; `.identity` when the handout is not this
    ///   teacher's; `.malformedFile` when the work cannot be read.
    public func openWork(with handout: Assignment, teacher: Identity, file url: URL) throws -> (work: StudentWork, digest: String) {
        guard handout.teacherKey == teacher.recipientPublicKey else {
            throw ClassroomError(
                .identity,
                "the handout of \(url.path) ('\(handout.title)') was made with another teacher key than yours; collect it where the handout was made"
            )
        }
        guard let key = try? P256.Signing.PublicKey(x963Representation: studentKey),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(signature, for: signedBytes)
        else {
            throw ClassroomError(
                .damagedFile,
                "\(url.path) was changed or damaged after the student signed it; it was not imported: ask the student to run `clsfile submit` again"
            )
        }
        let plaintext: Data
        do {
            var recipient = try HPKE.Recipient(
                privateKey: teacher.agreementKey, ciphersuite: Self.ciphersuite,
                info: Self.info(handout: handout.identifier), encapsulatedKey: encapsulatedKey)
            plaintext = try recipient.open(sealed, authenticating: header)
        } catch {
            throw ClassroomError(
                .damagedFile,
                "\(url.path) cannot be opened with your key: it was sealed for another handout or teacher, or damaged; it was not imported",
                underlyingError: error)
        }
        let work: StudentWork
        do { work = try JSONCoding.decoder.decode(StudentWork.self, from: plaintext) } catch {
            throw ClassroomError(
                .malformedFile, "\(url.path) holds work this clsfile cannot read (\(JSONCoding.describe(error))); update clsfile")
        }
        guard work.assignmentIdentifier == handout.identifier else {
            throw ClassroomError(
                .damagedFile,
                "\(url.path) holds work for handout \(work.assignmentIdentifier) under the header of \(handout.identifier); it was not imported"
            )
        }
        return (work, SHA256.hash(data: plaintext).hexadecimal)
    }

    /// Writes the file, readable only by its owner (0600); replaces an earlier submission file of
    /// the same name.
    public func write(to url: URL) throws {
        try ExchangeFile.writePrivately(try JSONCoding.encoder.encode(self), to: url, replacing: true)
    }
}
