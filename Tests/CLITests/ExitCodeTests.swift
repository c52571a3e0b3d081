import ClassDashboard
import Classroom
import clsfile
import clsfile_serve
import clsfile_sync
import ClassSync
import CommandSupport
import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder
import TestSupport
import PlainCalls
import Testing

/// The one table of exit codes (`CommandFailure`'s conformances), row by row, against what
/// README's "Exit codes" and `clsfile --help` promise.
struct ExitCodeTests {
    private static let table: [(failure: any CommandFailure, code: Int32)] = [
        (CLSError(.invalidArgument, "a missing file"), 66),
        (CLSError(.databaseInaccessible, "a store that cannot be read"), 74),
        (CLSError(.invalidUpdate, "an activity that vanished"), 1),
        (ClassroomError(.wrongRole, "a command for another role"), 64),
        (ClassroomError(.aiStatementRequired, "a submission without the statement its handout requires"), 64),
        (ClassroomError(.malformedFile, "a malformed handout"), 65),
        (ClassroomError(.damagedFile, "an edited submission"), 65),
        (ClassroomError(.newerFormat, "a handout of a newer clsfile"), 65),
        (ClassroomError(.unknownHandout, "a submission for another class"), 65),
        (ClassroomError(.notAssigned, "a file not assigned"), 66),
        (ClassroomError(.fileAccess, "a handout that cannot be read"), 66),
        (DetectorError(.notARegularFile, "a directory"), 66),
        (DetectorError(.unreadable, "a file without read permission"), 66),
        (DetectorError(.unsupportedFormat, "an image"), 65),
        (DetectorError(.corruptArchive, "a truncated DOCX"), 65),
        (DetectorError(.fileTooLarge, "a file over the limit"), 65),
        (DetectorError(.libraryUnavailable, "no libmagic"), 65),
        (RecorderError(.editorUnavailable, "an editor that cannot start"), 69),
        (RecorderError(.fileAccess, "a folder that does not exist"), 66),
        (RecorderError(.spoolUnavailable, "a spool that cannot be written"), 74),
        (RecorderError(.storeBusy, "a store kept locked"), 75),
        (RecorderError(.invalidRequest, "a hook line that does not parse"), 1),
        (SyncError(.invalidValue, "a server address that is not one"), 64),
        (SyncError(.refused, "a value the server refused"), 65),
        (SyncError(.notJoined, "a class not joined"), 66),
        (SyncError(.unauthorized, "a key the server does not know"), 77),
        (SyncError(.unreachable, "a server that does not answer"), 69),
        (DashboardError(.cannotListen, "an address in use"), 69),
        (DashboardError(.invalidToken, "a short token"), 64),
        (DashboardError(.insecureAddress, "a public address without a token"), 64)
    ]

    /// The codes of `failure`'s type that its table gives no exit code.
    static func codesWithoutExitCode<Failure: CommandFailure>(_ failure: Failure.Type) -> [Failure.Code] {
        Failure.Code.allCases.filter { Failure.exitCodes[$0] == nil }
    }

    /// Every code of every module's error has an exit code given on purpose, one README explains:
    /// a code added to a module fails here until its table names it. (`ServerError`'s, in
    /// `clsfile-server`, is checked by `ServerErrorTests`.)
    @Test func everyCodeOfEveryModuleHasAnExitCode() {
        #expect(Self.codesWithoutExitCode(CLSError.self).isEmpty)
        #expect(Self.codesWithoutExitCode(ClassroomError.self).isEmpty)
        #expect(Self.codesWithoutExitCode(DetectorError.self).map(\.description) == [])
        #expect(Self.codesWithoutExitCode(RecorderError.self).map(\.description) == [])
        #expect(Self.codesWithoutExitCode(DashboardError.self).map(\.description) == [])
        #expect(Self.codesWithoutExitCode(SyncError.self).map(\.description) == [])
        let documented: Set<Int32> = [1, 64, 65, 66, 69, 74, 75, 77]
        let given = Set(CLSError.exitCodes.values).union(ClassroomError.exitCodes.values).union(DetectorError.exitCodes.values)
            .union(RecorderError.exitCodes.values).union(DashboardError.exitCodes.values).union(SyncError.exitCodes.values)
        #expect(given.isSubset(of: documented), "\(given.subtracting(documented).sorted())")
        // Each type's codes are all its own: as many as allCases gives, none twice.
        #expect(ClassroomError.Code.allCases.count == Set(ClassroomError.Code.allCases).count)
        #expect(ClassroomError.Code.allCases.count == ClassroomError.exitCodes.count)
        #expect(SyncError.Code.allCases.map(\.description) == ["unauthorized", "unreachable", "refused", "notJoined", "invalidValue"])
    }

    @Test func everyModulesFailureGivesItsDocumentedCode() {
        for row in Self.table {
            #expect(row.failure.exitCode == row.code, "\(type(of: row.failure)): \(row.failure.message)")
        }
    }

    /// Every code the table gives is explained in README and in `clsfile --help`.
    @Test func readmeAndHelpExplainEveryCodeTheTableGives() throws {
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let exitCodes = try #require(readme.range(of: "Exit codes:").map { readme[$0.lowerBound...].prefix(1200) })
        let help = try run(try builtExecutable("clsfile"), ["--help"]).output
        for code in Set(Self.table.map(\.code)) {
            #expect(exitCodes.contains("`\(code)`"), "README's exit codes lack \(code)")
            #expect(help.contains(" \(code) "), "--help lacks exit code \(code)")
        }
    }
}
