import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile collect DIR`: a teacher imports students' submission files.
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Import the .clssubmission files of a folder into your class (teacher).",
        discussion: """
            Prints one line per file: added, updated, unchanged (importing twice changes nothing), \
            superseded (an older submission than the one held), or refused with the reason: a file \
            that is malformed, damaged or edited after sealing, or for a handout that is not yours. \
            Refused files change nothing; the exit code is then 65.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The folder holding the submission files.", valueName: "folder"))
    var folder: String

    func run() async throws {
        var refused = 0
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "collect")
            let outcomes = try await Collector(store: storeOptions.dataStore()).collect(folder: URL(fileURLWithPath: folder))
            if outcomes.isEmpty {
                Diagnostics.warn("no .\(SubmissionFile.fileExtension) files in \(folder)")
            }
            for outcome in outcomes {
                let who = [outcome.studentName, outcome.assignmentTitle.map { "'\($0)'" }].compactMap { $0 }.joined(separator: ", ")
                switch outcome.result {
                case .success(let result):
                    print("\(result.rawValue): \(outcome.file.lastPathComponent)\(who.isEmpty ? "" : " (\(who))")")
                case .failure(let error):
                    refused += 1
                    Diagnostics.warn("refused: \(error.message)")
                }
            }
        }
        if refused > 0 { throw ExitCode(65) }
    }
}
