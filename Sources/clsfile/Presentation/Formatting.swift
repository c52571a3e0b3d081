import Foundation

/// Formats times, numbers and shares for people.
enum Formatting {
    /// `2h 05m`, `41m 12s`, `9s`.
    static func text(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        if hours > 0 { return String(format: "%dh %02dm", hours, minutes) }
        if minutes > 0 { return String(format: "%dm %02ds", minutes, rest) }
        return "\(rest)s"
    }

    /// `80%`, `12.5%`.
    static func percent(_ share: Double) -> String {
        let value = share * 100
        return value.rounded() == value ? "\(Int(value))%" : String(format: "%.1f%%", value)
    }

    /// `558`, `7.25`.
    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : String(format: "%g", value)
    }

    /// Lines of cells as aligned columns, two spaces apart; the last column is not padded.
    static func columns(_ lines: [[String]]) -> [String] {
        let count = lines.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in lines.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return lines.map { line in
            line.enumerated().map { column, cell in
                column == line.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// Pretty JSON with sorted keys and ISO 8601 dates, for `--json`.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `2026-11-21` in local time.
    static func day(_ date: Date) -> String { format(date, "yyyy-MM-dd") }

    /// `2026-11-21 22:10:03` in local time.
    static func timestamp(_ date: Date) -> String { format(date, "yyyy-MM-dd HH:mm:ss") }

    /// `22:51:15` in local time.
    static func clock(_ date: Date) -> String { format(date, "HH:mm:ss") }

    private static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}
