import ArgumentParser
import ClassDashboard
import CommandSupport
import Foundation
import Logging
import OpenClassKit

/// `clsfile serve`: the teacher's view of the class as web pages.
///
/// A program of its own, which `clsfile serve` runs, so that the web server is not loaded by the
/// `clsfile` that editor plugins start on every event.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clsfile serve",
        abstract: "Serve the teacher's view of the class as web pages (teacher role).",
        discussion: """
            Pages: / (every assignment with its average time, average primary item, average progress \
            and how many are done), /assignments/ID (a row per student), \
            /assignments/ID/students/STUDENT (every item and session of one student's work), and \
            /api/class-report.json. Primary items of different kinds are averaged apart, with a \
            warning. Every request reads the store afresh: reload to see newly collected work.

            Listens on 127.0.0.1 unless --host says otherwise. On an address other than loopback a \
            token is required: one is read from the file --token-file names, else from the \
            environment variable \(Self.tokenVariable), else a random one is made and printed; \
            never from the command line, where every user of the machine sees it (ps). With a token \
            in force, every request must carry it as Authorization: Bearer TOKEN or ?token=TOKEN, \
            else it gets 401. Prints the address to open when it listens (with the real port when \
            --port is 0); Ctrl-C (SIGINT) or SIGTERM stops it. A connection that sends nothing for \
            --idle-timeout seconds (30) while no request of it is answered, or whose request body \
            has not all arrived --body-timeout seconds (60) after its head, is closed.

            Exit codes: 0 stopped by a signal; 64 not in the teacher role, or a bad option; 66 \
            development-mode settings that cannot be read; 69 an address that cannot be listened on \
            (in use, not this machine's); 74 a store that cannot be opened or read.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp(
        "The address to listen on. Anything but loopback (127.0.0.1, ::1, localhost) needs a token.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 8765

    @Option(name: .customLong("token-file"), help: ArgumentHelp(
        "A file holding the token every request must carry (at least \(AccessToken.minimumLength) letters, digits, '-', '_', '.' or '~'; readable by you alone). Default: \(Self.tokenVariable), else none on loopback and a random one elsewhere.",
        valueName: "path"))
    var tokenFile: String?

    /// Refused: a token on the command line is seen by every user of the machine.
    @Option(name: .long, help: ArgumentHelp(visibility: .hidden))
    var token: String?

    @OptionGroup var timeoutOptions: TimeoutOptions

    @OptionGroup var verboseOption: VerboseOption

    /// The environment variable that may hold the token.
    static let tokenVariable = "CLSFILE_DASHBOARD_TOKEN"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535 (0 picks a free one).") }
        guard token == nil else {
            throw ValidationError("--token shows the token to every user of this machine (ps): put it in a file readable by you alone and give --token-file PATH, or set \(Self.tokenVariable).")
        }
    }

    /// The token of --token-file, else of the environment, if either gives one.
    private func givenToken() throws -> AccessToken? {
        let environment = ProcessInfo.processInfo.environment[Self.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let tokenFile {
            guard environment == nil else {
                throw DashboardError(.invalidToken, "give the token with --token-file or \(Self.tokenVariable), not both")
            }
            return try AccessToken(contentsOf: URL(fileURLWithPath: tokenFile))
        }
        guard let environment else { return nil }
        do {
            return try AccessToken(environment)
        } catch let error as DashboardError {
            throw DashboardError(error.code, "\(Self.tokenVariable): \(error.message)")
        }
    }

    func run() async throws {
        try await reportingFailures { try await serve() }
    }

    private func serve() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "serve")
            let store = storeOptions.dataStore()
            // Open and read the store once now, so that a store that cannot be used stops the command
            // here instead of turning every page into an error.
            _ = try await store.assignments()
            var accessToken = try givenToken()
            let generated = accessToken == nil && !LoopbackAddress.isLoopback(host)
            if generated { accessToken = AccessToken.random() }
            let timeouts = ConnectionTimeouts(idleSeconds: timeoutOptions.idleSeconds, requestBodySeconds: timeoutOptions.requestBodySeconds)
            var logger = Logger(label: "clsfile.serve")
            logger.logLevel = .error
            let server = try DashboardServer(store: store, configuration: .init(host: host, port: port, token: accessToken, timeouts: timeouts),
                                             logger: logger)
            try await server.run { endpoint in
                var lines = ["Class dashboard: \(endpoint.url)", "Store: \(store.storeURL.path)"]
                if generated, let token = endpoint.token {
                    lines.append("Access token (made for this run; --token-file or \(Self.tokenVariable) chooses one): \(token.value)")
                }
                if endpoint.token != nil {
                    lines.append("Every request must carry the token: Authorization: Bearer TOKEN, or ?token=TOKEN in the address.")
                }
                lines.append("Press Ctrl-C to stop.")
                // Standard output may be a pipe, where print would hold the lines back.
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            }
            FileHandle.standardOutput.write(Data("Stopped.\n".utf8))
        }
    }
}

/// The dashboard's rows of the exit-code table (``CommandFailure``): an address it cannot listen
/// on is 69, a token or address refused is a usage error.
extension DashboardError: CommandFailure {
    public var cause: (any Error)? { underlyingError }

    public static let exitCodes: [Code: Int32] = [.cannotListen: 69, .invalidToken: 64, .insecureAddress: 64]
}
