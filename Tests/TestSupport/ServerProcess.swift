import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server running in the background: `clsfile serve` as a teacher, or `clsfile-server serve`.
public final class ServerProcess: Sendable {
    public let process: SpawnedProcess
    /// The address it printed, with `?token=` when a token is in force.
    public let url: String
    /// The port it listens on.
    public let port: Int

    /// Starts `clsfile serve` and waits until it prints where it listens.
    /// - Parameters:
    ///   - arguments: Options after `serve`; `--port 0` is added unless a port is given.
    ///   - environment: Variables for it, such as the `XDG_CONFIG_HOME` that holds the teacher's role.
    public convenience init(_ arguments: [String], environment: [String: String], in folder: URL, name: String = "serve") async throws {
        let withPort = arguments.contains("--port") ? arguments : arguments + ["--port", "0"]
        try await self.init(
            program: try builtExecutable("clsfile").path, ["serve"] + withPort, environment: environment,
            in: folder, name: name, announcing: "Class dashboard: ")
    }

    /// Starts a server program and waits up to 60 s for the line, starting with `prefix`, on
    /// which it prints its address.
    public init(
        program: String, _ arguments: [String], environment: [String: String], in folder: URL, name: String,
        announcing prefix: String
    ) async throws {
        process = try SpawnedProcess(program, arguments, environment: environment, in: folder, name: name)
        let deadline = Date().addingTimeInterval(60)
        var found: String?
        while Date() < deadline, found == nil {
            found = process.output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            if found == nil {
                var raw: Int32 = 0
                if waitpid(process.pid, &raw, WNOHANG) == process.pid {
                    throw ServerError(message: "\(program) exited before listening: \(process.errorOutput)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard let found, let components = URLComponents(string: found), let port = components.port else {
            throw ServerError(message: "\(program) printed no address within 60 s: \(process.output) \(process.errorOutput)")
        }
        url = found
        self.port = port
    }

    /// Stops the server with SIGTERM and returns its exit status.
    public func stop() async -> Int32? {
        process.signal(SIGTERM)
        return await process.wait(timeout: 30)
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }
    }
}
