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
public struct CLSError: Error, LocalizedError, CustomNSError, CustomStringConvertible, Sendable {
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
    /// The object that failed (an activity, an item, a context), if the error is about one:
    /// ClassKit's ``CLSErrorObjectKey``.
    public let object: CLSObject?
    /// For ``Code/partialFailure``, the error of each object that failed: ClassKit's
    /// ``CLSErrorUnderlyingErrorsKey``.
    public let underlyingErrors: [CLSError]
    /// For ``Code/partialFailure``, the objects that were saved: ClassKit's
    /// ``CLSErrorSuccessfulObjectsKey``.
    public let successfulObjects: [CLSObject]

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure happened.
    ///   - message: One line naming what failed, where, and what to do.
    ///   - underlyingError: The lower-level cause, if any.
    ///   - object: The object that failed, if any.
    ///   - underlyingErrors: For a partial failure, the error of each object that failed.
    ///   - successfulObjects: For a partial failure, the objects that succeeded.
    public init(
        _ code: Code, _ message: String, underlyingError: (any Error & Sendable)? = nil, object: CLSObject? = nil,
        underlyingErrors: [CLSError] = [], successfulObjects: [CLSObject] = []
    ) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
        self.object = object
        self.underlyingErrors = underlyingErrors
        self.successfulObjects = successfulObjects
    }

    /// The same error about an object.
    func about(_ object: CLSObject) -> CLSError {
        CLSError(
            code, message, underlyingError: underlyingError, object: object, underlyingErrors: underlyingErrors,
            successfulObjects: successfulObjects)
    }

    public var errorDescription: String? { message }
    public var description: String { message }

    /// The error domain, for code that reads the error as an `NSError`.
    public static var errorDomain: String { CLSErrorCodeDomain }
    public var errorCode: Int { code.rawValue }
    /// The object, underlying errors and successful objects under ClassKit's keys, with the message.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let object { info[CLSErrorObjectKey] = object }
        if !underlyingErrors.isEmpty { info[CLSErrorUnderlyingErrorsKey] = underlyingErrors }
        if !successfulObjects.isEmpty { info[CLSErrorSuccessfulObjectsKey] = successfulObjects }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError }
        return info
    }
}

/// The error domain of ``CLSError``.
public let CLSErrorCodeDomain = "OpenClassKit.CLSError"
/// The user-info key of the object an error is about (``CLSError/object``).
public let CLSErrorObjectKey = "CLSErrorObject"
/// The user-info key of a partial failure's errors (``CLSError/underlyingErrors``).
public let CLSErrorUnderlyingErrorsKey = "CLSErrorUnderlyingErrors"
/// The user-info key of a partial failure's saved objects (``CLSError/successfulObjects``).
public let CLSErrorSuccessfulObjectsKey = "CLSErrorSuccessfulObjects"
