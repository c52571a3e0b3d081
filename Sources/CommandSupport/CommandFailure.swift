import ArgumentParser
import Classroom
import Foundation
import OpenClassKit

/// Runs a command body, printing a ``CLSError`` as one line on standard error and exiting with the
/// code `--help` documents.
/// - Returns: What the body returns.
@discardableResult
public func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as CLSError {
        Diagnostics.warn(error.message)
        switch error.code {
        case .invalidArgument: throw ExitCode(66)
        case .databaseInaccessible: throw ExitCode(74)
        default: throw ExitCode.failure
        }
    } catch let error as ClassroomError {
        Diagnostics.warn(error.message)
        throw ExitCode(exitCode(of: error.code))
    }
}

/// The exit code `--help` documents for a Classroom failure.
public func exitCode(of code: ClassroomError.Code) -> Int32 {
    if code == .wrongRole { return 64 }
    if [.malformedFile, .damagedFile, .newerFormat, .unknownHandout].contains(code) { return 65 }
    if [.notAssigned, .fileAccess].contains(code) { return 66 }
    return 1
}
