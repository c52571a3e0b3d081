import Foundation
import OpenClassKit
import PlainCalls

/// One line of `clsfile list`: its cells as printed and what sorts it, and no more, so a list of
/// 100,000 files stays small.
struct ListRow: Sendable {
    var modified: Date
    var isStarted: Bool
    /// TIME, PROGRESS, PRIMARY, LAST CHANGED, FILE.
    var cells: [String]

    init(_ activity: CLSActivity) {
        // A running session counts to its last pulse, so idle minutes never show and then vanish.
        isStarted = activity.isStarted
        modified = activity.dateLastModified
        let primary = activity.primaryActivityItem.map {
            let item = ActivitySummary.Item($0)
            return "\(item.displayValue) \(item.title.lowercased())"
        }
        cells = [
            Formatting.text(activity.recordedDuration()) + (isStarted ? "*" : ""), ProgressSummary(activity).percent,
            primary ?? "-", Formatting.timestamp(modified), ActivitySummary.place(of: activity).path
        ]
    }

    /// Prints the rows as a table, most recently changed first.
    static func write(_ rows: [ListRow]) {
        guard !rows.isEmpty else {
            print("No activity recorded yet.")
            return
        }
        var table = Table()
        table.append(["TIME", "PROGRESS", "PRIMARY", "LAST CHANGED", "FILE"])
        for row in rows.sorted(by: { $0.modified > $1.modified }) {
            table.append(row.cells)
        }
        table.write()
        if rows.contains(where: \.isStarted) { print("* running now") }
    }
}
