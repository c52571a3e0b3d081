import ClassDashboard
import Classroom
import clsfile_serve
import CommandSupport
import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder
import TestSupport
import Testing

/// The one table of exit codes (`CommandFailure`'s conformances), row by row, against what
/// README's "Exit codes" and `clsfile --help` promise.
struct ExitCodeTests {
    private static let table: [(failure: any CommandFailure, code: Int32)] = [
        (CLSError(.invalidArgument, "a missing file"), 66),
        (CLSError(.databaseInaccessible, "a store that cannot be read"), 74),
        (CLSError(.invalidUpdate, "an activity that vanished"), 1),
        (ClassroomError(.wrongRole, "a command for another role"), 64),
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
        (DashboardError(.cannotListen, "an address in use"), 69),
        (DashboardError(.invalidToken, "a short token"), 64),
        (DashboardError(.insecureAddress, "a public address without a token"), 64),
    ]

    @Test func everyModulesFailureGivesItsDocumentedCode() {
        for row in Self.table {
            #expect(row.failure.exitCode == row.code, "\(type(of: row.failure)): \(row.failure.message)")
        }
    }

    /// Every code the table gives is explained in README and in `clsfile --help`.
    @Test func readmeAndHelpExplainEveryCodeTheTableGives() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let exitCodes = try #require(readme.range(of: "Exit codes:").map { readme[$0.lowerBound...].prefix(1200) })
        let help = try run(try builtExecutable("clsfile"), ["--help"]).output
        for code in Set(Self.table.map(\.code)) {
            #expect(exitCodes.contains("`\(code)`"), "README's exit codes lack \(code)")
            #expect(help.contains(" \(code) "), "--help lacks exit code \(code)")
        }
    }
}
