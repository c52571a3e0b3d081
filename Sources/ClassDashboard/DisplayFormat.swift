import Foundation
import OpenClassKit

/// How the dashboard writes times, shares and numbers: the same way the `clsfile` command does.
package enum DisplayFormat {
    /// `2h 05m`, `41m 12s`, `9s`.
    static func duration(_ seconds: Double) -> String {
        // Imported work can hold anything: a value that is no number is a dash, a negative one 0s.
        seconds.isFinite ? DurationText.text(max(0, seconds)) : "-"
    }

    /// `80%`, `12.5%`.
    static func percent(_ share: Double) -> String {
        guard share.isFinite else { return "-" }
        let value = (share * 1000).rounded() / 10
        return value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))%" : String(format: "%.1f%%", value)
    }

    /// `412`, `356.5`: whole numbers without a fraction, others to one decimal.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let tenths = (value * 10).rounded() / 10
        return tenths.rounded() == tenths && abs(tenths) < 1e15 ? "\(Int(tenths))" : String(format: "%.1f", tenths)
    }

    /// `2026-11-21 22:10` in the server's time zone.
    package static func timestamp(_ date: Date) -> String { format(date, "yyyy-MM-dd HH:mm") }

    /// `2026-11-21`.
    package static func day(_ date: Date) -> String { format(date, "yyyy-MM-dd") }

    /// `2026-11-21T21:10:03Z`, for `<time datetime>` and for tests.
    static func machine(_ date: Date) -> String { date.formatted(.iso8601) }

    private static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
