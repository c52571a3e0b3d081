import Foundation

/// How xAPI writes times: timestamps in ISO 8601 with a time zone, durations in the ISO 8601
/// duration format (xAPI 1.0.3, Data §4.5 and §4.6).
public enum XAPIFormat {
    /// A timestamp in UTC to the second: `2025-03-01T09:30:05Z`. Fractions are cut, not rounded,
    /// the way submissions store dates, so a student's export and the teacher's export of the same
    /// work write the same instants.
    public static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second],
            from: Date(timeIntervalSince1970: seconds))
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
            parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// A duration in hours, minutes and seconds to the hundredth, the finest precision xAPI keeps:
    /// `PT1H2M3.5S`, `PT45S`, `PT0S`. Hours are not folded into days, whose length ISO 8601 leaves
    /// to the calendar. Negative or non-finite values are written as `PT0S`.
    public static func duration(seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "PT0S" }
        // Past what 64-bit hundredths hold (some 2.9 billion years), whole hours are written.
        guard seconds < 9e16 else { return "PT" + String(format: "%.0f", (seconds / 3600).rounded(.down)) + "H" }
        // The small addition keeps 0.29 s from becoming 0.28 s through binary rounding; beyond the
        // hundredth the value is cut, as an LRS would cut it.
        let hundredths = Int64((seconds * 100 + 1e-6).rounded(.down))
        let hours = hundredths / 360_000
        let minutes = hundredths / 6_000 % 60
        let rest = hundredths % 6_000
        var text = "PT"
        if hours > 0 { text += "\(hours)H" }
        if minutes > 0 { text += "\(minutes)M" }
        if rest > 0 || text == "PT" {
            text += "\(rest / 100)"
            let fraction = rest % 100
            if fraction > 0 {
                var digits = String(format: "%02d", fraction)
                if digits.hasSuffix("0") { digits.removeLast() }
                text += ".\(digits)"
            }
            text += "S"
        }
        return text
    }
}
