import Foundation

/// How every program and page of clsfile writes a duration: `2h 05m`, `41m 12s`, `9s`, rounded
/// to the nearest second, or from an hour on to the nearest minute, so that one figure reads the
/// same in the terminal, the history's pictures and the teacher's pages.
package enum DurationText {
    /// The duration as people read it; `-` for a value that is not a number.
    package static func text(_ seconds: Double) -> String {
        // A corrupt or foreign store, or imported work, can hold anything: never trap on it.
        guard seconds.isFinite else { return "-" }
        guard abs(seconds) < 1e15 else { return String(format: "%gh", seconds / 3600) }
        if seconds < 0 { return "-" + text(-seconds) }
        let unit = unit(of: seconds)
        return text(units: Int((seconds / Double(unit)).rounded()), of: unit)
    }

    /// The seconds a duration is written in whole numbers of: a minute from an hour on (`2h 05m`),
    /// a second below (`41m 12s`).
    static func unit(of seconds: Double) -> Int {
        seconds.rounded() >= 3600 ? 60 : 1
    }

    /// A whole number of units as people read it; a number of minutes under an hour reads `41m`.
    static func text(units: Int, of unit: Int) -> String {
        // Without `String(format:)`, a tenth of the cost of a 100,000-line report.
        if unit == 60 {
            let (hours, minutes) = (units / 60, units % 60)
            return hours > 0 ? String(hours) + "h " + twoDigits(minutes) + "m" : String(minutes) + "m"
        }
        // From an hour on, to the nearest minute, as any other duration is written.
        if units >= 3600 { return text(units: (units + 30) / 60, of: 60) }
        let (minutes, rest) = (units / 60, units % 60)
        if minutes > 0 { return String(minutes) + "m " + twoDigits(rest) + "s" }
        return String(rest) + "s"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }
}
