import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile collect DIR`: a teacher imports students' submission files.
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Import the .clssubmission files of a folder into your class (teacher).",
        discussion: """
            Prints one line per file: added, updated, unchanged (importing twice changes nothing), \
            superseded (older than the latest held; kept in the history), conflict, or refused with \
            the reason: a file that is malformed, changed after the student signed it, holds values \
            out of range, or is for a handout that is not yours. The first submission collected \
            from a student pins the key they sign with; a later one signed with another key, or \
            dated in the future, is a conflict: kept aside, not imported, until you trust the new \
            key with `clsfile trust-key`. Refused files change nothing; with a conflict or a \
            refused file the exit code is 65. Then the process evidence kept past its handout's \
            days is deleted, as `clsfile expire` does, with a line for each submission.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The folder holding the submission files.", valueName: "folder"))
    var folder: String

    func run() async throws {
        var refused = 0
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "collect")
            let store = storeOptions.dataStore()
            let outcomes = try await Collector(store: store, teacher: RoleGate.identity(of: .teacher)).collect(
                folder: FileArgument.url(for: folder))
            if outcomes.isEmpty {
                Diagnostics.warn("no .\(SubmissionFile.fileExtension) files in \(folder)")
            }
            for outcome in outcomes {
                // Names, titles and file names come from students' files: escaped, so that none can
                // drive the terminal or forge a line.
                let who = TerminalText.escaped(
                    [outcome.studentName, outcome.assignmentTitle.map { "'\($0)'" }]
                        .compactMap { $0 }.joined(separator: ", "))
                let name = TerminalText.escaped(outcome.file.lastPathComponent)
                switch outcome.result {
                case .success(.conflict):
                    refused += 1
                    let student = outcome.studentIdentifier ?? ""
                    print(
                        "conflict: \(name)\(who.isEmpty ? "" : " (\(who))"): \(outcome.conflict ?? "a conflict"); kept aside, not imported; only if the student confirms this key as their new one (`clsfile role` prints it on their machine), trust it: clsfile trust-key \(TerminalText.escaped(student)) '\(outcome.keyFingerprint ?? "")'"
                    )
                case .success(let result):
                    print("\(result.rawValue): \(name)\(who.isEmpty ? "" : " (\(who))")")
                case .failure(let error):
                    refused += 1
                    Diagnostics.warn("refused: \(error.message)")
                }
            }
            ExpireCommand.report(try await EvidenceExpiry(store: store).expire(), dryRun: false)
        }
        if refused > 0 { throw ExitCode(65) }
    }
}
