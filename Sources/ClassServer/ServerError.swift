import Foundation

/// The one error type of ClassServer: a code, and a message that says what failed and what to do.
public struct ServerError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible, CaseIterable {
        private enum Name: String, Sendable, CaseIterable {
            case invalidAddress, database, schema, unsafeRole, invalidValue, unauthorized, notFound, tooLarge, forbidden,
                invalidEnvironment, tooManyContexts, parentNotFound, thumbnailNotReferenced, invalidThumbnail, alreadyAssigned,
                unknownAssignment
        }
        private let name: Name
        private init(_ name: Name) { self.name = name }

        /// The database address does not parse.
        public static let invalidAddress = Code(.invalidAddress)
        /// The database cannot be reached, refused the login, or failed a statement.
        public static let database = Code(.database)
        /// The database's schema is newer than this server knows, or not there yet.
        public static let schema = Code(.schema)
        /// The role the server runs as could read past row-level security.
        public static let unsafeRole = Code(.unsafeRole)
        /// A value given to a command is out of range or malformed.
        public static let invalidValue = Code(.invalidValue)
        /// A request's token is missing, malformed, of another algorithm or key, or out of date.
        public static let unauthorized = Code(.unauthorized)
        /// Something named (a teacher, a class, a join code) is not there.
        public static let notFound = Code(.notFound)
        /// A request's body, or a count or string in it, is larger than the server accepts.
        public static let tooLarge = Code(.tooLarge)
        /// The caller's role may not make this request.
        public static let forbidden = Code(.forbidden)
        /// A catalog call names no environment, or another than `development` and `production`.
        public static let invalidEnvironment = Code(.invalidEnvironment)
        /// A catalog request carries more than 200 contexts.
        public static let tooManyContexts = Code(.tooManyContexts)
        /// A catalog context's parent is in neither the catalog nor the request before it.
        public static let parentNotFound = Code(.parentNotFound)
        /// A thumbnail uploaded before any context of the catalog references it.
        public static let thumbnailNotReferenced = Code(.thumbnailNotReferenced)
        /// A thumbnail that is not a PNG or JPEG of 330 × 330 pixels.
        public static let invalidThumbnail = Code(.invalidThumbnail)
        /// A catalog context assigned to a class that has it assigned already.
        public static let alreadyAssigned = Code(.alreadyAssigned)
        /// Work on an assignment the class does not have (its teacher has not registered the
        /// handout, or the catalog assignment covers no such context): it waits on the student's side.
        public static let unknownAssignment = Code(.unknownAssignment)

        /// Every code, for the tables that give each its meaning (exit codes, HTTP statuses): a
        /// code added here is in them, and their tests fail until it has one.
        public static var allCases: [Code] { Name.allCases.map(Code.init) }

        public var description: String { name.rawValue }
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line that names what failed and what to do.
    public let message: String
    /// The error underneath, if any.
    public let underlyingError: (any Error)?
    /// For ``Code-swift.struct/unknownAssignment``: the assignments named.
    public let assignments: [String]

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil, assignments: [String] = []) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
        self.assignments = assignments
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
