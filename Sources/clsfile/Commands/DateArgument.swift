import ArgumentParser
import Foundation

/// Reads the dates options take: a day, a local date and time, or ISO 8601 with a zone.
enum DateArgument {
    /// Where in a day given alone the date falls.
    enum DayTime {
        case start
        case end
    }

    /// Reads `YYYY-MM-DD` (local time, at the day's start or end), `YYYY-MM-DD HH:MM[:SS]` (local
    /// time; a `T` may stand for the space), or an ISO 8601 date and time with its zone.
    /// - Throws: `ValidationError` naming the option and the forms it takes.
    static func date(_ text: String, option: String, day: DayTime) throws -> Date {
        // With fractional seconds first: the plain style would parse them away, a moment early.
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let spaced = text.replacingOccurrences(of: "T", with: " ")
        let parts = spaced.split(separator: " ")
        var candidate: String?
        if parts.count == 1 {
            candidate = spaced + (day == .start ? " 00:00:00" : " 23:59:59")
        } else if parts.count == 2 {
            candidate = parts[1].split(separator: ":").count == 2 ? spaced + ":00" : spaced
        }
        guard let candidate, let date = formatter.date(from: candidate) else {
            throw ValidationError(
                "\(option) takes a day as YYYY-MM-DD, a local time as 'YYYY-MM-DD HH:MM', or an ISO 8601 date and time, not '\(text)'.")
        }
        return date
    }

    /// The last moment a date names, to the unit it is given in: `2026-11-20 18:00` names the
    /// minute up to 18:00:59.999…, `2026-11-20T18:00:05.316Z` its millisecond, a day its end; so
    /// that a date copied from `show --json`, whose milliseconds are cut, still names what it shows.
    static func lastMoment(_ text: String, option: String) throws -> Date {
        let date = try date(text, option: option, day: .end)
        let time = text.split(whereSeparator: { $0 == " " || $0 == "T" }).dropFirst().first.map(String.init) ?? ""
        let clock = time.prefix { $0.isNumber || $0 == ":" || $0 == "." }
        let unit: TimeInterval
        if let dot = clock.firstIndex(of: ".") {
            unit = pow(10, -Double(clock.distance(from: clock.index(after: dot), to: clock.endIndex)))
        } else {
            // A day alone ends at 23:59:59, whose second runs on to the next day.
            unit = clock.isEmpty || clock.split(separator: ":").count == 3 ? 1 : 60
        }
        return date.addingTimeInterval(unit - 1e-6)
    }
}
