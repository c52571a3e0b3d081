import ArgumentParser
import CommandSupport
import Foundation
import HistoryPictures
import OpenClassKit

/// `clsfile show FILE`: everything recorded for one file.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the time, progress, items, sessions and writing history recorded for a file.",
        discussion: """
            The history has a row for each session (and every 5 minutes of a long one): the time, \
            the words it added, the characters typed and pasted in `clsfile open`'s terminal, and \
            the progress after it. `clsfile replay FILE` shows how the text itself grew; --html \
            prints a page with pictures of it (`clsfile show --html essay.txt > essay.html`).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Flag(name: .long, help: "Print a self-contained HTML page of the file's writing history, with pictures.")
    var html = false

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func validate() throws {
        if json && html { throw ValidationError("Choose one of --json and --html.") }
    }

    func run() async throws {
        try await reportingFailures {
            let url = FileArgument.url(for: file)
            let store = storeOptions.dataStore()
            let activity = try await store.existingActivity(for: url)
            var summary = activity.map { ActivitySummary($0) } ?? ActivitySummary(unrecordedFile: url)
            if activity != nil { summary.history = try await store.writingHistory(for: url) }
            if html {
                print(HistoryPage(title: url.lastPathComponent, figures: summary.historyFigures,
                                  history: summary.history ?? WritingHistory(entries: []),
                                  showsProgress: summary.progressBasis?.measuresProgress != false).render())
            } else {
                print(json ? summary.json() : summary.text())
            }
        }
    }
}
