import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile forget FILE`: deletes a file's writing history, or only the snapshots of its text.
struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Delete a file's writing history, or only the snapshots of its text.",
        discussion: """
            The file's time, progress and items stay; the history starts again at its next \
            session. Snapshots already sent with a submission are not recalled. To keep no \
            snapshots at all, set CLSFILE_SNAPSHOTS=off where your editor and clsfile run.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Delete only the snapshots of the text; keep each session's figures.")
    var snapshotsOnly = false

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func run() async throws {
        try await reportingFailures {
            let url = FileArgument.url(for: file)
            let store = storeOptions.dataStore()
            guard try await store.existingActivity(for: url) != nil else {
                print("nothing is recorded for \(TerminalText.escaped(url.displayPath)): there is no history to forget")
                return
            }
            let rows = try await store.forgetWritingHistory(for: url, keepingFigures: snapshotsOnly)
            let what = snapshotsOnly ? "snapshots of the text" : "rows of writing history"
            print("forgot \(rows) \(what) of \(TerminalText.escaped(url.displayPath)); its time, progress and items are kept")
        }
    }
}
