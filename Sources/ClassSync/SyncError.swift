import ClassWire
import Foundation

/// The one error type of ClassSync: a code, and a message that says what failed and what to do.
public struct SyncError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible, CaseIterable {
        private enum Name: String, Sendable, CaseIterable {
            case unauthorized, unreachable, refused, notJoined, invalidValue
        }
        private let name: Name
        private init(_ name: Name) { self.name = name }

        /// A token is missing, malformed, of another algorithm or key, or out of date.
        public static let unauthorized = Code(.unauthorized)
        /// The server cannot be reached, or answered with something that is not its API.
        public static let unreachable = Code(.unreachable)
        /// The server refused the request, with its JSON error.
        public static let refused = Code(.refused)
        /// This store has joined no class server.
        public static let notJoined = Code(.notJoined)
        /// A value given is malformed or out of range.
        public static let invalidValue = Code(.invalidValue)

        /// Every code, for the tables that give each its meaning (exit codes, HTTP statuses): a
        /// code added here is in them, and their tests fail until it has one.
        public static var allCases: [Code] { Name.allCases.map(Code.init) }

        public var description: String { name.rawValue }
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
