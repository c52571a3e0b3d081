import ArgumentParser
import Foundation
import SessionRecorder

/// The options of commands that record sessions.
struct SessionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds without input after which time stops counting; defaults to $CLSFILE_IDLE_TIMEOUT, else 300.",
            valueName: "seconds"))
    var idleTimeout: Double?

    func validate() throws {
        _ = try resolvedIdleTimeout()
    }

    /// The idle timeout from the option, else the environment, else five minutes.
    func resolvedIdleTimeout() throws -> TimeInterval {
        try Self.resolvedIdleTimeout(idleTimeout)
    }

    /// The idle timeout from an `--idle-timeout` value, else the environment, else five minutes.
    static func resolvedIdleTimeout(_ idleTimeout: Double?) throws -> TimeInterval {
        if let idleTimeout {
            guard idleTimeout > 0, idleTimeout.isFinite else {
                throw ValidationError("--idle-timeout must be a positive number of seconds, not \(idleTimeout).")
            }
            return idleTimeout
        }
        if let text = getenv("CLSFILE_IDLE_TIMEOUT").map({ String(cString: $0) }), !text.isEmpty {
            guard let value = Double(text), value > 0, value.isFinite else {
                throw ValidationError("CLSFILE_IDLE_TIMEOUT must be a positive number of seconds, not '\(text)'.")
            }
            return value
        }
        return SessionRecorder.Configuration().idleTimeout
    }
}
