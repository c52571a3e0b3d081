import Foundation

/// An error from the class dashboard: a setting it refuses, or an address it cannot listen on.
public struct DashboardError: Error, Sendable, LocalizedError, CustomStringConvertible {
    /// What went wrong. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible, CaseIterable {
        private enum Value: Sendable, Hashable, CaseIterable { case invalidToken, insecureAddress, cannotListen }
        private let value: Value

        /// Every code, for the tables that give each its meaning (exit codes, HTTP statuses): a
        /// code added here is in them, and their tests fail until it has one.
        public static var allCases: [Code] { Value.allCases.map { Code(value: $0) } }

        /// A token given on the command line that is too short or has characters an address cannot carry.
        public static let invalidToken = Code(value: .invalidToken)
        /// An address other than loopback with no access token.
        public static let insecureAddress = Code(value: .insecureAddress)
        /// The address cannot be listened on: in use, not this machine's, or not allowed.
        public static let cannotListen = Code(value: .cannotListen)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public let code: Code
    /// One line that names the value at fault and the way out.
    public let message: String
    /// The error underneath, if any.
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
