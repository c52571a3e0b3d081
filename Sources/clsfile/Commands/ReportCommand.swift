import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import SessionRecorder

/// `clsfile report`: every file's active and open time, words, progress and sessions.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report active time, open time, words, progress and sessions for every file.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var sessionOptions: SessionOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Flag(name: .long, help: "Print CSV.")
    var csv = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Count only time from this day on (YYYY-MM-DD, local time).",
            valueName: "date"))
    var since: String?

    func validate() throws {
        guard !(json && csv) else { throw ValidationError("Choose one of --json and --csv.") }
        _ = try sinceDate()
    }

    private func sinceDate() throws -> Date? {
        try since.map { try DateArgument.date($0, option: "--since", day: .start) }
    }

    func run() async throws {
        let rule = SessionRecorder.Configuration(idleTimeout: try sessionOptions.resolvedIdleTimeout()).idleRule
        try await reportingFailures {
            let store = storeOptions.dataStore()
            let from = try sinceDate()
            /// What each file gives the output, made as the store is read (on the reducing
            /// thread, while the store reads ahead), newest first.
            func lines<Line: Sendable>(_ line: @escaping @Sendable (ReportRow) -> Line) async throws -> [Line] {
                var lines = try await store.reduceActivities(into: [(Date, Line)]()) { lines, activity in
                    guard from.map({ from in activity.timeSpans.contains { ($0.end ?? $0.lastPulse) >= from } }) ?? true else { return }
                    let row = ReportRow(activity, since: from)
                    lines.append((row.lastOpened, line(row)))
                }
                lines.sort { $0.0 > $1.0 }
                return lines.map(\.1)
            }
            if json {
                ReportRow.writeJSON(try await lines(\.jsonElement), idleRule: rule)
            } else if csv {
                ReportRow.writeCSV(try await lines(\.csvLine))
            } else {
                ReportRow.writeTable(try await lines(\.cells), idleRule: rule)
            }
        }
    }
}
