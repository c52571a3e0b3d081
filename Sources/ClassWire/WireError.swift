import Foundation

/// The one error type of ClassWire: a code, and a message that says what failed and what to do.
///
/// The server answers a ``Code-swift.struct/unauthorized`` refusal with HTTP 401 and the message
/// as it is; a client shows a ``Code-swift.struct/invalidValue`` as a refusal of the value it was
/// given.
public struct WireError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible, CaseIterable {
        private enum Name: String, Sendable, CaseIterable {
            case unauthorized, invalidValue
        }
        private let name: Name
        private init(_ name: Name) { self.name = name }

        /// A token is missing, malformed, of another algorithm or key, or out of date.
        public static let unauthorized = Code(.unauthorized)
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

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
