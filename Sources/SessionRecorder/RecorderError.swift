import Foundation

/// The one error type of SessionRecorder: a code, and a message that names the file and what to do.
public struct RecorderError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened.
    public enum Code: String, Sendable {
        /// The event or its arguments are not acceptable.
        case invalidEvent
        /// The spool of events waiting for a busy store cannot be read or written.
        case spoolUnavailable
        /// The store stayed locked by another process; the events wait in the spool.
        case storeBusy
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line naming what failed, where, and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
