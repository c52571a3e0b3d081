public import Crypto
import Foundation
import OpenClassKit

/// A person's keys in the classroom: one that signs (P-256 ECDSA) what they send, and one that
/// work sent to them is encrypted to (P-256 key agreement, for HPKE).
///
/// A student's signature tells the teacher which student sent a file; the teacher's key, carried
/// by each handout, lets only the teacher read it. Each role keeps its own identity beside its
/// store, in `identity.json`, readable only by its owner (``url(for:dataHome:)``).
public struct Identity: Sendable {
    /// The format name of the identity file.
    static let formatName = "clsfile-identity"

    /// The key that signs.
    public let signingKey: P256.Signing.PrivateKey
    /// The key that work sent to this person is encrypted to.
    public let agreementKey: P256.KeyAgreement.PrivateKey

    /// Makes a new identity.
    public init() {
        signingKey = P256.Signing.PrivateKey()
        agreementKey = P256.KeyAgreement.PrivateKey()
    }

    /// The public signing key, in X9.63 form: what a submission carries.
    public var signingPublicKey: Data { signingKey.publicKey.x963Representation }
    /// The public key to encrypt to, in X9.63 form: what a handout carries.
    public var recipientPublicKey: Data { agreementKey.publicKey.x963Representation }

    /// Where a role keeps its identity: `identity.json` beside the role's store.
    public static func url(for role: DeveloperMode.Role, dataHome: URL = DeveloperMode.dataHome) -> URL {
        DeveloperMode.storeURL(for: role, dataHome: dataHome).deletingLastPathComponent()
            .appendingPathComponent("identity.json")
    }

    /// A public key as people compare it: the first 16 bytes of its SHA-256, in groups of four
    /// hexadecimal digits (`3f1a 09c2 …`).
    public static func fingerprint(of publicKey: Data) -> String {
        let hex = Array(keyIdentifier(of: publicKey))
        return stride(from: 0, to: hex.count, by: 4).map { String(hex[$0..<$0 + 4]) }.joined(separator: " ")
    }

    /// A public key as servers name it (`kid`): the first 16 bytes of its SHA-256 in 32
    /// hexadecimal digits, the fingerprint without its spaces.
    public static func keyIdentifier(of publicKey: Data) -> String {
        String(SHA256.hash(data: publicKey).prefix(16).hexadecimal)
    }

    // MARK: The file

    private struct File: Codable {
        var format = Identity.formatName
        var version = 1
        var signingKey: Data
        var agreementKey: Data
    }

    /// Reads an identity file.
    /// - Throws: ``ClassroomError`` `.identity` when there is none or it is damaged, `.fileAccess`
    ///   when it cannot be read.
    public static func read(from url: URL) throws -> Identity {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ClassroomError(
                .identity,
                "no identity keys at \(url.path): set your role again (clsfile role teacher, or clsfile role student --name NAME), which makes them"
            )
        }
        let data = try ExchangeFile.read(url, what: "identity keys")
        do {
            let file = try JSONDecoder().decode(File.self, from: data)
            guard file.format == formatName else { throw CocoaError(.coderInvalidValue) }
            return Identity(
                signingKey: try P256.Signing.PrivateKey(rawRepresentation: file.signingKey),
                agreementKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: file.agreementKey))
        } catch {
            throw ClassroomError(
                .identity,
                "the identity keys at \(url.path) are damaged; restore them from a backup (work sealed with them cannot be read or recognized without them)",
                underlyingError: error)
        }
    }

    /// Reads the identity at `url`, or makes one and writes it there, readable only by its owner.
    /// - Returns: The identity, and whether it was made now.
    public static func readOrCreate(at url: URL) throws -> (identity: Identity, created: Bool) {
        if FileManager.default.fileExists(atPath: url.path) { return (try read(from: url), false) }
        let identity = Identity()
        let file = File(signingKey: identity.signingKey.rawRepresentation, agreementKey: identity.agreementKey.rawRepresentation)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClassroomError(.fileAccess, "cannot make the folder of \(url.path): \(error.localizedDescription); check its permissions")
        }
        switch try ExchangeFile.writePrivately(try JSONEncoder().encode(file), to: url, replacing: false) {
        case .written: return (identity, true)
        case .alreadyExists: return (try read(from: url), false) // another process made it first
        }
    }

    private init(signingKey: P256.Signing.PrivateKey, agreementKey: P256.KeyAgreement.PrivateKey) {
        self.signingKey = signingKey
        self.agreementKey = agreementKey
    }
}
