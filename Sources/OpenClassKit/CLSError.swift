import Foundation

/// The one error type of OpenClassKit.
///
/// Every error names what failed (a path, a value or an item) and what to do about it. The codes and
/// their raw values match ClassKit's, so code that switches over `CLSError.Code` keeps compiling.
///
/// ```swift
/// do {
///     _ = try await CLSDataStore.shared.fetchActivity(for: url)
/// } catch let error as CLSError where error.code == .invalidArgument {
///     print(error.message)
/// }
/// ```
public struct CLSError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What kind of failure happened. Raw values are ClassKit's.
    public enum Code: Int, Sendable, CaseIterable {
        /// No error.
        case none = 0
        /// The framework is not available.
        case classKitUnavailable = 1
        /// An argument (a URL, a value, an item) is not acceptable.
        case invalidArgument = 2
        /// A change is not allowed, for example a new subclass for a saved primary item.
        case invalidModification = 3
        /// The caller may not do this.
        case authorizationDenied = 4
        /// The store cannot be opened, read or written.
        case databaseInaccessible = 5
        /// A limit was exceeded.
        case limits = 6
        /// An object could not be created.
        case invalidCreate = 7
        /// An object could not be updated.
        case invalidUpdate = 8
        /// Some objects of a batch were saved and some were not.
        case partialFailure = 9
        /// Account credentials are not valid.
        case invalidAccountCredentials = 10
    }

    /// What kind of failure happened.
    public let code: Code
    /// One line that names what failed, where, and what to do.
    public let message: String
    /// The lower-level error that caused this one, if any.
    public let underlyingError: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure happened.
    ///   - message: One line naming what failed, where, and what to do.
    ///   - underlyingError: The lower-level cause, if any.
    public init(_ code: Code, _ message: String, underlyingError: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    public var errorDescription: String? { message }
    public var description: String { message }
}
