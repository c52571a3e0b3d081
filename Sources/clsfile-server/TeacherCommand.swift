import ArgumentParser
import ClassServer
import CommandSupport
import Crypto
import Foundation
import ProgramBasics

/// `clsfile-server teacher add|list`.
struct TeacherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "teacher", abstract: "Add and list teachers.",
        subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a teacher by their public keys.",
            discussion: """
                KEY is a file with the teacher's two P-256 public keys in PEM (-----BEGIN PUBLIC \
                KEY-----), the signing key first and the recipient key second, as \
                `clsfile role teacher --public-key` prints them on the teacher's computer. The \
                signing key signs the teacher's requests; the recipient key is the one their \
                handouts carry, by which students' clsfile sends each assignment's work only to \
                the classes of the teacher who handed it out. Prints the teacher's account id and \
                key id; a class is created for either. Adding a teacher registered before the \
                server kept recipient keys gives them theirs.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .long, help: "The teacher's name, as students see it.")
        var name: String

        @Option(name: .long, help: ArgumentHelp("A file with the teacher's public keys in PEM.", valueName: "key"))
        var publicKey: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let (signing, recipient) = try Self.readKeys(publicKey)
                let account = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.addTeacher(name: name, publicKey: signing, recipientKey: recipient)
                }
                print("teacher \(account.name): account \(account.id.uuidString.lowercased()), key \(account.keyIdentifier)")
            }
        }

        static func readKeys(_ path: String) throws -> (P256.Signing.PublicKey, P256.KeyAgreement.PublicKey) {
            let blocks = try PublicKeyFile.blocks(in: path)
            guard blocks.count == 2, let signing = try? P256.Signing.PublicKey(pemRepresentation: blocks[0]),
                let recipient = try? P256.KeyAgreement.PublicKey(pemRepresentation: blocks[1])
            else {
                throw ServerError(
                    .invalidValue,
                    "\(path) holds \(PublicKeyFile.describe(blocks.count)), not the two P-256 public keys (the signing key, then the recipient key); `clsfile role teacher --public-key` prints both on the teacher's computer"
                )
            }
            return (signing, recipient)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the teachers.")

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                for teacher in try await ServerDatabase.withDatabase(address, logger: .server, { try await $0.teachers() }) {
                    print("\(teacher.id.uuidString.lowercased())  \(teacher.keyIdentifier)  \(TerminalText.escaped(teacher.name))")
                }
            }
        }
    }
}
