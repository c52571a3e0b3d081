import ArgumentParser
import ClassServer
import ClassWire
import CommandSupport
import Foundation
import ProgramBasics

/// `clsfile-server lti register|list|rotate-key`: the LMSes the server is an LTI 1.3 tool of.
struct LTICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lti", abstract: "Register the LMSes (LTI 1.3 platforms) the server is a tool of.",
        discussion: """
            An LMS (Moodle, Canvas, Schoology, Brightspace, Sakai) adds clsfile-server as an LTI \
            1.3 tool with the server's addresses: login (initiate login) URL \
            https://SERVER/lti/login, redirect and target link URL https://SERVER/lti/launch, and \
            the tool's keys (public keyset) URL https://SERVER/lti/jwks. The LMS then shows the \
            platform's details, which `lti register` records here. Teachers and students then open \
            clsfile from their course: an instructor's first launch makes the course's class.
            """,
        subcommands: [Register.self, RegistrationURL.self, List.self, RotateKey.self])

    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an LMS, or add deployments to one registered, as the LMS administrator gives its details.",
            discussion: """
                Registering the same issuer and client id again updates its addresses and adds \
                the deployments given. The first registration also makes the tool's own RSA key, \
                which /lti/jwks publishes. Prints the platform and its deployments.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .long, help: ArgumentHelp("The platform's issuer (iss), such as https://moodle.school.example.", valueName: "url"))
        var issuer: String

        @Option(name: .long, help: ArgumentHelp("The client id the LMS gave this tool.", valueName: "id"))
        var clientID: String

        @Option(name: .long, help: ArgumentHelp("A deployment id of the tool on the LMS; repeat for several.", valueName: "id"))
        var deploymentID: [String] = []

        @Option(name: .long, help: ArgumentHelp("The platform's authentication request (OIDC authorization) URL.", valueName: "url"))
        var authLoginURL: String

        @Option(name: .long, help: ArgumentHelp("The platform's access token URL.", valueName: "url"))
        var authTokenURL: String

        @Option(name: .long, help: ArgumentHelp("The platform's public keyset (JWKS) URL.", valueName: "url"))
        var jwksURL: String

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The least time between two scores of a student on one line item sent to the LMS's gradebook (each costs the server about a millisecond of CPU).",
                valueName: "seconds"))
        var scoreInterval: Int = 600

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let platform = LTIPlatform(
                    issuer: issuer, clientID: clientID, authLoginURL: try Self.url(authLoginURL, "--auth-login-url"),
                    authTokenURL: try Self.url(authTokenURL, "--auth-token-url"), jwksURL: try Self.url(jwksURL, "--jwks-url"),
                    deployments: deploymentID, scoreInterval: scoreInterval)
                let (registered, key) = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.registerLTIPlatform(platform)
                }
                print(LTICommand.describe(registered))
                if let key { print("made the tool's key \(key), published at /lti/jwks") }
            }
        }

        static func url(_ text: String, _ name: String) throws -> URL {
            guard let url = URL(string: text) else { throw ServerError(.invalidValue, "\(name) \(text.prefix(80)) is not an address") }
            return url
        }
    }

    struct RegistrationURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "registration-url",
            abstract: "Print an address with which an LMS registers the server as its tool by itself (LTI Dynamic Registration).",
            discussion: """
                The LMS administrator pastes the address where the LMS asks for a tool's \
                registration URL (Moodle: Manage tools, Canvas: Developer keys, LTI Registration). \
                The LMS then registers itself: the server keeps its issuer, addresses, client id \
                and deployment. The address works once, within the days given.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .long, help: ArgumentHelp("The server's address, as LMSes reach it (its --public-url).", valueName: "url"))
        var serverURL: String

        @Option(name: .long, help: ArgumentHelp("How many days the address works.", valueName: "days"))
        var days: Int = 7

        func run() async throws {
            try await reportingFailures {
                guard (1...90).contains(days) else { throw ServerError(.invalidValue, "--days must be 1 to 90, not \(days)") }
                let origin: ServerOrigin
                do { origin = try ServerOrigin(serverURL) } catch let error as WireError {
                    throw ServerError(.invalidValue, "--server-url: \(error.message)")
                }
                let address = try databaseOptions.address()
                let (code, key) = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.makeLTIRegistrationCode(lifetime: days * 86_400)
                }
                if let key { print("made the tool's key \(key), published at /lti/jwks") }
                print("\(origin.value)/lti/register?code=\(code)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the LMSes registered, with their deployments.")

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                for platform in try await ServerDatabase.withDatabase(address, logger: .server, { try await $0.ltiPlatforms() }) {
                    print(LTICommand.describe(platform))
                }
            }
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Make a new key for the tool; the one it replaces stays published for seven days.",
            discussion: """
                Every server process signs with the new key from its next signature; platforms \
                read it at /lti/jwks. Rotate when a key may have leaked, or yearly.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let (current, retired) = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.rotateLTIToolKey()
                }
                print("the tool's key is \(current)\(retired.map { "; \($0) stays published for seven days" } ?? "")")
            }
        }
    }

    static func describe(_ platform: LTIPlatform) -> String {
        """
        \(TerminalText.escaped(platform.issuer))  client \(TerminalText.escaped(platform.clientID))  \
        deployments \(platform.deployments.map(TerminalText.escaped).joined(separator: ", "))  scores every \(platform.scoreInterval) s
        """
    }
}
