import ClassWire
import Foundation

/// The one error type of ClassSync: a code, and a message that says what failed and what to do.
public struct SyncError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A token is missing, malformed, of another algorithm or key, or out of date.
        public static let unauthorized = Code("unauthorized")
        /// The server cannot be reached, or answered with something that is not its API.
        public static let unreachable = Code("unreachable")
        /// The server refused the request, with its JSON error.
        public static let refused = Code("refused")
        /// This store has joined no class server.
        public static let notJoined = Code("notJoined")
        /// A value given is malformed or out of range.
        public static let invalidValue = Code("invalidValue")

        public var description: String { name }
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line that names what failed and what to do.
    public let message: String
    /// The server's error, for `.refused`.
    public let answer: SyncWire.ErrorAnswer?
    /// The error underneath, if any.
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, answer: SyncWire.ErrorAnswer? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.answer = answer
        self.underlyingError = underlyingError
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
