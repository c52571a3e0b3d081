import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile list`: one line per file in the store.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every file with recorded activity, most recently changed first.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let summaries = try await storeOptions.dataStore().allActivities()
                .map(ActivitySummary.init)
                .sorted { $0.modified > $1.modified }
            if json {
                print(try ActivitySummary.json(summaries))
            } else {
                print(ActivitySummary.table(summaries))
            }
        }
    }
}
