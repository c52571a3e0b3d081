import Foundation

/// The one error type of Classroom: what failed, on which file, and what to do.
public struct ClassroomError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened.
    public enum Code: String, Sendable {
        /// A file is not a handout or submission at all, or lacks a field it must have.
        case malformedFile
        /// A file was edited or damaged after it was sealed.
        case damagedFile
        /// A file was written by a newer clsfile, in a format version this one does not know.
        case newerFormat
        /// A submission is for a handout this store does not know.
        case unknownHandout
        /// The command needs another development-mode role.
        case wrongRole
        /// A file is not assigned.
        case notAssigned
        /// A file could not be read or written.
        case fileAccess
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line that names what failed, where, and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
