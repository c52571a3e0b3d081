import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile list`: one line per file in the store.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every file with recorded activity, most recently changed first.",
        discussion: "With --json, files come in the order they were first recorded, each as `show --json` gives it.")

    @OptionGroup var storeOptions: StoreOptions

    /// Prints a batch of the JSON list, after the opening bracket or a comma.
    private static func write(_ list: inout (count: Int, batch: [ActivitySummary])) throws {
        guard !list.batch.isEmpty else { return }
        print(list.count == 0 ? "[" : ",")
        print(try ActivitySummary.jsonElements(list.batch), terminator: "")
        list.count += list.batch.count
        list.batch.removeAll(keepingCapacity: true)
    }

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let store = try storeOptions.dataStore()
            if json {
                // Written as read, a batch at a time, in the order files were first recorded: a
                // store of any size lists in little memory.
                var written = try await store.reduceActivities(into: (count: 0, batch: [ActivitySummary]())) { list, activity in
                    list.batch.append(ActivitySummary(activity))
                    if list.batch.count == 256 { try Self.write(&list) }
                }
                try Self.write(&written)
                print(written.count == 0 ? "[\n\n]" : "\n]")
            } else {
                print(ListRow.table(try await store.reduceActivities(into: [ListRow]()) { $0.append(ListRow($1)) }))
            }
        }
    }
}
