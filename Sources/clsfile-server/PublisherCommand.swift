import ArgumentParser
import ClassServer
import CommandSupport
import Crypto
import Foundation

/// `clsfile-server publisher add|list`.
struct PublisherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publisher", abstract: "Add and list the keys content tools publish to the Catalog API with.",
        subcommands: [Add.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a publisher's public key for a team.",
            discussion: """
                KEY is a file with a P-256 public key in PEM (-----BEGIN PUBLIC KEY-----), as \
                `clsfile catalog keygen` writes it beside the private key. The publisher's tokens \
                name the key by KID in their header and the team by TEAM in their claims (iss); a \
                team sees and changes only its own catalogs. TEAM and KID are 1 to 64 letters, \
                digits, '.', '_' or '-'.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .long, help: ArgumentHelp("The publisher's team.", valueName: "team"))
        var team: String

        @Option(name: .long, help: ArgumentHelp("The id the publisher's tokens name the key by.", valueName: "kid"))
        var kid: String

        @Option(name: .long, help: ArgumentHelp("A file with the publisher's public key in PEM.", valueName: "key"))
        var publicKey: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let key = try Self.readKey(publicKey)
                let publisher = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.addPublisher(team: team, keyIdentifier: kid, publicKey: key)
                }
                print("publisher key \(publisher.keyIdentifier) of the team \(publisher.team) added")
            }
        }

        static func readKey(_ path: String) throws -> P256.Signing.PublicKey {
            let blocks = try PublicKeyFile.blocks(in: path)
            guard blocks.count == 1, let key = try? P256.Signing.PublicKey(pemRepresentation: blocks[0]) else {
                throw ServerError(
                    .invalidValue,
                    "\(path) holds \(PublicKeyFile.describe(blocks.count)), not one P-256 public key; `clsfile catalog keygen` writes one (FILE.pub)"
                )
            }
            return key
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the publisher keys, by team.")

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                for publisher in try await ServerDatabase.withDatabase(address, logger: .server, { try await $0.publishers() }) {
                    print("\(publisher.team)  \(publisher.keyIdentifier)")
                }
            }
        }
    }
}
