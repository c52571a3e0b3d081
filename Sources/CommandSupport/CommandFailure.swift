import ArgumentParser
import Classroom
import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder

/// An error a command reports as one `clsfile:` line and an exit code.
///
/// The conformances below are the one table of exit codes, as README's "Exit codes" and
/// `--help` give them: sysexits(3) numbers, 64 a usage error, 65 bad data, 66 a missing input,
/// 69 a program that cannot run, 74 an input/output failure, 75 a temporary failure. The
/// dashboard's error joins the table in `clsfile-serve`, the one program that links it.
public protocol CommandFailure: Error {
    /// What failed, on which path, and what to do.
    var message: String { get }
    /// The exit code it gives.
    var exitCode: Int32 { get }
}

extension CLSError: CommandFailure {
    public var exitCode: Int32 {
        switch code {
        case .invalidArgument: 66
        case .databaseInaccessible: 74
        default: 1
        }
    }
}

extension ClassroomError: CommandFailure {
    public var exitCode: Int32 {
        if code == .wrongRole { return 64 }
        if [.malformedFile, .damagedFile, .newerFormat, .outdatedFormat, .unknownHandout, .invalidValue].contains(code) { return 65 }
        if [.notAssigned, .fileAccess, .identity].contains(code) { return 66 }
        return 1
    }
}

extension DetectorError: CommandFailure {
    public var exitCode: Int32 {
        [.notARegularFile, .unreadable].contains(code) ? 66 : 65
    }
}

extension RecorderError: CommandFailure {
    public var exitCode: Int32 {
        if code == .storeBusy { return 75 }
        if code == .editorUnavailable { return 69 }
        if code == .fileAccess { return 66 }
        if code == .spoolUnavailable { return 74 }
        return 1
    }
}

/// Runs a command body, printing a ``CommandFailure`` as one line on standard error and exiting
/// with its code.
/// - Returns: What the body returns.
@discardableResult
public func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let failure as any CommandFailure {
        Diagnostics.warn(failure.message)
        throw ExitCode(failure.exitCode)
    }
}
