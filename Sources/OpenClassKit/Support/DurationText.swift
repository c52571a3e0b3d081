import Foundation

/// How every program and page of clsfile writes a duration: `2h 05m`, `41m 12s`, `9s`, whole
/// seconds rounded down, so that one figure reads the same in the terminal, the history's
/// pictures and the teacher's pages.
package enum DurationText {
    /// The duration as people read it; `-` for a value that is not a number.
    package static func text(_ seconds: Double) -> String {
        // A corrupt or foreign store, or imported work, can hold anything: never trap on it.
        guard seconds.isFinite else { return "-" }
        guard abs(seconds) < 1e15 else { return String(format: "%gh", seconds / 3600) }
        if seconds < 0 { return "-" + text(-seconds) }
        let total = Int(seconds.rounded(.down))
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        // Without `String(format:)`, a tenth of the cost of a 100,000-line report.
        if hours > 0 { return String(hours) + "h " + twoDigits(minutes) + "m" }
        if minutes > 0 { return String(minutes) + "m " + twoDigits(rest) + "s" }
        return String(rest) + "s"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }
}
