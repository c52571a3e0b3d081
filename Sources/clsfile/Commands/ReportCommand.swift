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

    @Option(name: .long, help: ArgumentHelp("Count only time from this day on (YYYY-MM-DD, local time).",
                                            valueName: "date"))
    var since: String?

    func validate() throws {
        guard !(json && csv) else { throw ValidationError("Choose one of --json and --csv.") }
        _ = try sinceDate()
    }

    private func sinceDate() throws -> Date? {
        guard let since else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let date = formatter.date(from: since) else {
            throw ValidationError("--since takes a day as YYYY-MM-DD, not '\(since)'.")
        }
        return date
    }

    func run() async throws {
        let rule = SessionRecorder.Configuration(idleTimeout: try sessionOptions.resolvedIdleTimeout()).idleRule
        try await reportingFailures {
            let from = try sinceDate()
            let rows = try await storeOptions.dataStore().reduceActivities(into: [ReportRow]()) { rows, activity in
                guard from.map({ from in activity.timeSpans.contains { ($0.end ?? $0.lastPulse) >= from } }) ?? true else { return }
                rows.append(ReportRow(activity, since: from))
            }.sorted { $0.lastOpened > $1.lastOpened }
            if json {
                print(try ReportRow.json(rows, idleRule: rule))
            } else if csv {
                print(ReportRow.csv(rows), terminator: "")
            } else {
                print(ReportRow.table(rows, idleRule: rule))
            }
        }
    }
}
