import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile show FILE`: everything recorded for one file.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the time, progress, items, sessions and writing history recorded for a file.",
        discussion: """
            The history has a row for each session (and every 5 minutes of a long one): the time, \
            the words it added, the characters typed and pasted in `clsfile open`'s terminal, and \
            the progress after it. `clsfile replay FILE` shows how the text itself grew.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func run() async throws {
        try await reportingFailures {
            let url = FileArgument.url(for: file)
            let store = storeOptions.dataStore()
            let activity = try await store.existingActivity(for: url)
            var summary = activity.map { ActivitySummary($0) } ?? ActivitySummary(unrecordedFile: url)
            if activity != nil { summary.history = try await store.writingHistory(for: url) }
            print(json ? summary.json() : summary.text())
        }
    }
}
