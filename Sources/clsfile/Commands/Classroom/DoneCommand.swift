import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile done FILE`: a student marks an assigned document done.
struct DoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Mark an assigned document done (student).",
        discussion: "Done is independent of progress, as in ClassKit: the teacher sees both.")

    @OptionGroup var storeOptions: StoreOptions

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
            let path = try await store.fetchActivity(for: documentURL).context.identifierPath
            try await store.markAssignedActivitiesDone(matching: path)
            BackgroundSync.startIfWaiting(store: store)
            print("done: '\(TerminalText.escaped(assignment.title))' (\(TerminalText.escaped(documentURL.lastPathComponent)))")
        }
    }
}
