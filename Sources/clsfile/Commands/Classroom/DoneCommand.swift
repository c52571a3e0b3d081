import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile done FILE`: a student marks an assigned document done.
struct DoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Mark an assigned document done (student).",
        discussion: """
            Done is independent of progress, as in ClassKit: the teacher sees both. --ai-use (and \
            --ai-note) records how you used AI tools on it, replacing what you said before; it goes \
            to the class server with the work, and `clsfile submit` sends it too.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var aiStatementOptions: AIStatementOptions

    @Argument(help: ArgumentHelp("The assigned document.", valueName: "file"))
    var file: String

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.student, for: "done")
            let store = storeOptions.dataStore()
            let url = FileArgument.url(for: file)
            guard let assignment = try await store.assignment(for: url), let documentURL = assignment.documentURL else {
                throw ClassroomError(.notAssigned, "\(file) is not an assigned document; accept its handout first with `clsfile accept`")
            }
            let statement = try aiStatementOptions.statement()
            if let statement { try await store.recordAIStatement(statement, forAssignment: assignment.identifier) }
            let path = try await store.fetchActivity(for: documentURL).context.identifierPath
            try await store.markAssignedActivitiesDone(matching: path)
            BackgroundSync.startIfWaiting(store: store)
            print("done: '\(TerminalText.escaped(assignment.title))' (\(TerminalText.escaped(documentURL.lastPathComponent)))")
            if let statement { print("AI use: \(TerminalText.escaped(statement.summary))") }
        }
    }
}
