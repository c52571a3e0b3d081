import ArgumentParser
import ClassServer
import CommandSupport
import Crypto
import Foundation

/// `clsfile-server teacher add|list`.
struct TeacherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "teacher", abstract: "Add and list teachers.",
        subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a teacher by their device's public key.",
            discussion: """
                KEY is a P-256 public key in PEM (-----BEGIN PUBLIC KEY-----), as \
                `clsfile role teacher --public-key` prints it. Prints the teacher's account id and \
                key id; a class is created for either.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .long, help: "The teacher's name, as students see it.")
        var name: String

        @Option(name: .long, help: ArgumentHelp("A file with the teacher's public key in PEM.", valueName: "key"))
        var publicKey: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let key = try Self.readKey(publicKey)
                let account = try await ServerDatabase.withDatabase(address) { try await $0.addTeacher(name: name, publicKey: key) }
                print("teacher \(account.name): account \(account.id.uuidString.lowercased()), key \(account.keyIdentifier)")
            }
        }

        static func readKey(_ path: String) throws -> P256.Signing.PublicKey {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ServerError(.notFound, "cannot read the public key \(path): \(error.localizedDescription)")
            }
            do {
                return try P256.Signing.PublicKey(pemRepresentation: text)
            } catch {
                throw ServerError(.invalidValue, "\(path) holds no P-256 public key in PEM (-----BEGIN PUBLIC KEY-----); `clsfile role teacher --public-key` prints one")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the teachers.")

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                for teacher in try await ServerDatabase.withDatabase(address, { try await $0.teachers() }) {
                    print("\(teacher.id.uuidString.lowercased())  \(teacher.keyIdentifier)  \(TerminalText.escaped(teacher.name))")
                }
            }
        }
    }
}
