import Foundation

/// The one error type of SessionRecorder: a code, and a message that names the file and what to do.
public struct RecorderError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible, CaseIterable {
        private enum Name: String, Sendable, CaseIterable {
            case editorUnavailable, fileAccess, invalidRequest, spoolUnavailable, storeBusy
        }
        private let name: Name
        private init(_ name: Name) { self.name = name }

        /// The editor cannot be run: no editor, a command that does not parse or start, no
        /// terminal for it.
        public static let editorUnavailable = Code(.editorUnavailable)
        /// The file to edit cannot be created.
        public static let fileAccess = Code(.fileAccess)
        /// A hook request (a JSON line of `hook --stdio`, or its values) is malformed.
        public static let invalidRequest = Code(.invalidRequest)
        /// The spool of events waiting for a busy store cannot be read or written.
        public static let spoolUnavailable = Code(.spoolUnavailable)
        /// The store stayed locked by another process; the events wait in the spool.
        public static let storeBusy = Code(.storeBusy)

        /// Every code, for the tables that give each its meaning (exit codes, HTTP statuses): a
        /// code added here is in them, and their tests fail until it has one.
        public static var allCases: [Code] { Name.allCases.map(Code.init) }

        public var description: String { name.rawValue }
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line naming what failed, where, and what to do.
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
