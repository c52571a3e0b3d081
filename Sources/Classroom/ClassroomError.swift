import Foundation

/// The one error type of Classroom: what failed, on which file, and what to do.
public struct ClassroomError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible, CaseIterable {
        private enum Name: String, Sendable, CaseIterable {
            case malformedFile, damagedFile, newerFormat, unknownHandout, wrongRole, notAssigned, fileAccess, outdatedFormat, invalidValue,
                identity, aiStatementRequired
        }
        private let name: Name
        private init(_ name: Name) { self.name = name }

        /// A file is not a handout or submission at all, or lacks a field it must have.
        public static let malformedFile = Code(.malformedFile)
        /// A file was edited or damaged after it was sealed.
        public static let damagedFile = Code(.damagedFile)
        /// A file was written by a newer clsfile, in a format version this one does not know.
        public static let newerFormat = Code(.newerFormat)
        /// A submission is for a handout this store does not know.
        public static let unknownHandout = Code(.unknownHandout)
        /// The command needs another development-mode role.
        public static let wrongRole = Code(.wrongRole)
        /// A file is not assigned.
        public static let notAssigned = Code(.notAssigned)
        /// A file could not be read or written.
        public static let fileAccess = Code(.fileAccess)
        /// A file was written in a format version this clsfile no longer accepts.
        public static let outdatedFormat = Code(.outdatedFormat)
        /// A sealed file holds a value out of range: not finite, negative, too large, or in the future.
        public static let invalidValue = Code(.invalidValue)
        /// The person's identity keys are missing or damaged, or are not the ones a file is for.
        public static let identity = Code(.identity)
        /// The handout asks for a statement of AI use and the student has given none.
        public static let aiStatementRequired = Code(.aiStatementRequired)

        /// Every code, for the tables that give each its meaning (exit codes, HTTP statuses): a
        /// code added here is in them, and their tests fail until it has one.
        public static var allCases: [Code] { Name.allCases.map(Code.init) }

        public var description: String { name.rawValue }
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line that names what failed, where, and what to do.
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
