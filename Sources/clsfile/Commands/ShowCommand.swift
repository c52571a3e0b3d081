import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile show FILE`: everything recorded for one file.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the time, progress, items and sessions recorded for a file.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func run() async throws {
        try await reportingFailures {
            let url = FileArgument.url(for: file)
            let activity = try await storeOptions.dataStore().existingActivity(for: url)
            let summary = activity.map { ActivitySummary($0) } ?? ActivitySummary(unrecordedFile: url)
            print(json ? summary.json() : summary.text())
        }
    }
}
