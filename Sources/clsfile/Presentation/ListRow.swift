import Foundation
import OpenClassKit

/// One line of `clsfile list`: what it shows of a file, and no more, so a list of 100,000 files
/// stays small.
struct ListRow: Sendable {
    var seconds: Double
    var isStarted: Bool
    var progress: ProgressSummary
    /// The primary item as people read it, `558 word count`; nil without one.
    var primary: String?
    var modified: Date
    var path: String

    init(_ activity: CLSActivity) {
        // A running session counts to its last pulse, so idle minutes never show and then vanish.
        seconds = activity.recordedDuration()
        isStarted = activity.isStarted
        progress = ProgressSummary(activity)
        primary = activity.primaryActivityItem.map {
            let item = ActivitySummary.Item($0)
            return "\(item.displayValue) \(item.title.lowercased())"
        }
        modified = activity.dateLastModified
        path = ActivitySummary.path(of: activity)
    }

    /// The rows as a table, most recently changed first.
    static func table(_ rows: [ListRow]) -> String {
        guard !rows.isEmpty else { return "No activity recorded yet." }
        var lines = [["TIME", "PROGRESS", "PRIMARY", "LAST CHANGED", "FILE"]]
        for row in rows.sorted(by: { $0.modified > $1.modified }) {
            lines.append([Formatting.text(row.seconds) + (row.isStarted ? "*" : ""), row.progress.percent,
                          row.primary ?? "-", Formatting.timestamp(row.modified), row.path])
        }
        var text = Formatting.columns(lines)
        if rows.contains(where: \.isStarted) { text.append("* running now") }
        return text.joined(separator: "\n")
    }
}
