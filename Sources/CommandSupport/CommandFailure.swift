import ArgumentParser
import Classroom
import Foundation
import OpenClassKit

/// An error a command reports as one `clsfile:` line and an exit code, and under `--verbose`
/// (``VerboseOption``) a second line with what failed underneath.
///
/// The conformances below, and those of the programs that link the other modules' errors
/// (`DetectorError` and `RecorderError` in `clsfile`, `SyncError` in `clsfile-sync`,
/// `ServerError` in `clsfile-server`, `DashboardError` in `clsfile-serve`), are the one table of
/// exit codes, as README's "Exit codes" and `--help` give
/// them: sysexits(3) numbers, 64 a usage error, 65 bad data, 66 a missing input, 69 a program that
/// cannot run, 74 an input/output failure, 75 a temporary failure, 77 a permission refused, and 1
/// for a failure of none of those kinds. Each table names every code of its error, so that a code
/// added to a module gets its exit code by decision: `ExitCodeTests` fails until it has one.
public protocol CommandFailure: Error {
    /// The error's codes.
    associatedtype Code: Hashable & CaseIterable
    /// What failed, on which path, and what to do.
    var message: String { get }
    /// What kind of failure it is.
    var code: Code { get }
    /// What failed underneath, such as the system's or the database's own error; nil when
    /// the message says all there is.
    var cause: (any Error)? { get }
    /// The exit code of every code.
    static var exitCodes: [Code: Int32] { get }
}

extension CommandFailure {
    /// The exit code it gives: its code's in ``exitCodes``.
    public var exitCode: Int32 {
        // Every code is in the table (ExitCodeTests); 1 is only the answer of a table left incomplete.
        Self.exitCodes[code] ?? 1
    }
}

extension CLSError: CommandFailure {
    public var cause: (any Error)? { underlyingError }

    public static let exitCodes: [Code: Int32] = [
        .invalidArgument: 66, .databaseInaccessible: 74,
        .none: 1, .classKitUnavailable: 1, .invalidModification: 1, .authorizationDenied: 1, .limits: 1,
        .invalidCreate: 1, .invalidUpdate: 1, .partialFailure: 1, .invalidAccountCredentials: 1
    ]
}

extension ClassroomError: CommandFailure {
    public var cause: (any Error)? { underlyingError }

    public static let exitCodes: [Code: Int32] = [
        .wrongRole: 64, .aiStatementRequired: 64,
        .malformedFile: 65, .damagedFile: 65, .newerFormat: 65, .outdatedFormat: 65, .unknownHandout: 65, .invalidValue: 65,
        .notAssigned: 66, .fileAccess: 66, .identity: 66
    ]
}

/// Runs a command body, printing a ``CommandFailure`` as one line on standard error, and under
/// `--verbose` its ``CommandFailure/cause`` on a second, and exiting with its code.
/// - Returns: What the body returns.
@discardableResult
public func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let failure as any CommandFailure {
        Diagnostics.warn(failure.message)
        if Diagnostics.isVerbose, let cause = failure.cause {
            Diagnostics.warn("underlying error: \(String(reflecting: cause))")
        }
        throw ExitCode(failure.exitCode)
    }
}
