import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import PlainCalls

/// `clsfile list`: one line per file in the store.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every file with recorded activity, most recently changed first.",
        discussion: """
            With --json, files come in the order they were first recorded, each as `show --json` gives it \
            without its spans and sessions, which are counted in `sessionCount` (`show --json FILE` lists them).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let store = storeOptions.dataStore()
            if json {
                // Written as read, in the order files were first recorded: a store of any size
                // lists in little memory.
                var list = JSONWriter()
                list.beginArray()
                list = try await store.reduceActivities(into: list) { json, activity in
                    ActivitySummary(activity, withSpans: false).write(to: &json)
                    json.flush(atLeast: 1 << 16)
                }
                list.endArray()
                print(list.text)
            } else {
                ListRow.write(try await store.reduceActivities(into: [ListRow]()) { $0.append(ListRow($1)) })
            }
        }
    }
}
