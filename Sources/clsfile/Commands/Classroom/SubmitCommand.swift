import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile submit`: a student seals their work on assigned documents for the teacher.
struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Write your work on assigned documents as sealed files for your teacher (student).",
        discussion: """
            Writes one .clssubmission file per accepted assignment into --output (the current \
            folder by default), sealed with the handout's class key. It holds only the assigned \
            document's file name, time, sessions, progress, items and done flag: nothing about any \
            other file. Submitting again replaces the file; the teacher's `clsfile collect` keeps \
            the latest.

            --ai-use (and --ai-note) records how you used AI tools on the assignment (--assignment, \
            or your only one) before its file is written; without them, the statement you gave \
            before goes with the work. A handout that requires a statement is not submitted \
            without one.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Only this assignment: its identifier, a unique prefix of it, or its title.", valueName: "assignment"))
    var assignment: String?

    @Option(name: .long, help: ArgumentHelp("The folder to write into.", valueName: "folder"))
    var output: String = "."

    @OptionGroup var aiStatementOptions: AIStatementOptions

    func run() async throws {
        try await reportingFailures {
            let student = try RoleGate.require(.student, for: "submit")
            let folder = URL(fileURLWithPath: output)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw ClassroomError(.fileAccess, "\(output) is not a folder; create it or pass another --output")
            }
            let store = storeOptions.dataStore()
            if let statement = try aiStatementOptions.statement() {
                let chosen = try await Submitter.assignedWork(in: store, key: assignment)
                guard chosen.count == 1, let stated = chosen.first?.assignment else {
                    throw ValidationError(
                        "--ai-use is about one assignment and you accepted \(chosen.count): name it with --assignment (clsfile assignments lists them)."
                    )
                }
                try await store.recordAIStatement(statement, forAssignment: stated.identifier)
            }
            let written = try await Submitter(store: store, student: student, identity: RoleGate.identity(of: .student))
                .submit(key: assignment, to: folder)
            BackgroundSync.startIfWaiting(store: store)
            for url in written { print(url.path) }
        }
    }
}
