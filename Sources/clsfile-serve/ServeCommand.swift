import ArgumentParser
import ClassDashboard
import CommandSupport
import ForwardedCommands
import Foundation
import Logging
import OpenClassKit

/// `clsfile serve`: the teacher's view of the class as web pages.
///
/// A program of its own, which `clsfile serve` runs, so that the web server is not loaded by the
/// `clsfile` that editor plugins start on every event.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = ServeArguments.configuration(commandName: "clsfile serve")

    @OptionGroup var arguments: ServeArguments

    @OptionGroup var verboseOption: VerboseOption

    /// The token of --token-file, else of the environment, if either gives one.
    private func givenToken() throws -> AccessToken? {
        let environment = ProcessInfo.processInfo.environment[ServeArguments.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let tokenFile = arguments.tokenFile {
            guard environment == nil else {
                throw DashboardError(.invalidToken, "give the token with --token-file or \(ServeArguments.tokenVariable), not both")
            }
            return try AccessToken(contentsOf: URL(fileURLWithPath: tokenFile))
        }
        guard let environment else { return nil }
        do {
            return try AccessToken(environment)
        } catch let error as DashboardError {
            throw DashboardError(error.code, "\(ServeArguments.tokenVariable): \(error.message)")
        }
    }

    func run() async throws {
        try await reportingFailures { try await serve() }
    }

    private func serve() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "serve")
            let store = arguments.storeOptions.dataStore()
            // Open and read the store once now, so that a store that cannot be used stops the command
            // here instead of turning every page into an error.
            _ = try await store.assignments()
            var accessToken = try givenToken()
            let generated = accessToken == nil && !LoopbackAddress.isLoopback(arguments.host)
            if generated { accessToken = AccessToken.random() }
            let timeouts = ConnectionTimeouts(
                idleSeconds: arguments.timeoutOptions.idleSeconds, requestBodySeconds: arguments.timeoutOptions.requestBodySeconds)
            var logger = Logger(label: "clsfile.serve")
            logger.logLevel = .error
            let server = try DashboardServer(
                store: store, configuration: .init(host: arguments.host, port: arguments.port, token: accessToken, timeouts: timeouts),
                logger: logger)
            try await server.run { endpoint in
                var lines = ["Class dashboard: \(endpoint.url)", "Store: \(store.storeURL.path)"]
                if generated, let token = endpoint.token {
                    lines.append(
                        "Access token (made for this run; --token-file or \(ServeArguments.tokenVariable) chooses one): \(token.value)")
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
