import Foundation
import OpenClassKit
import PlainCalls

#if canImport(Glibc)
import Glibc
#endif

/// Formats times, numbers and shares for people.
enum Formatting {
    /// `2h 05m`, `41m 12s`, `9s`.
    static func text(_ seconds: Double) -> String {
        DurationText.text(seconds)
    }

    /// `80%`, `12.5%` (``NumberText/percent(_:)``).
    static func percent(_ share: Double) -> String {
        NumberText.percent(share)
    }

    /// `558`, `7.25`.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        return value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : String(format: "%g", value)
    }

    /// `26.1` (``NumberText/decimal(_:places:)``).
    static func decimal(_ value: Double, places: Int) -> String {
        NumberText.decimal(value, places: places)
    }

    /// Lines of cells as aligned columns (see ``Table``).
    static func columns(_ lines: [[String]], rightAligned: Int = 0) -> [String] {
        Table(lines, rightAligned: rightAligned).lines
    }

    /// Pretty JSON with sorted keys and ISO 8601 dates, for `--json`.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso8601(date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `2025-01-13T09:12:34Z`, or `2025-01-13T09:12:34.250Z` with milliseconds (cut, not rounded),
    /// in UTC: ISO 8601 without Foundation's format styles, which cost microseconds a date, and a
    /// report of a million sessions writes millions of dates.
    static func iso8601(_ date: Date, milliseconds: Bool = false) -> String {
        let thousandths = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard thousandths.isFinite, abs(thousandths) < 1e15 else { return "-" }
        let whole = Int(thousandths)
        var seconds = time_t(whole >= 0 ? whole / 1000 : (whole - 999) / 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil, (0...9999).contains(parts.tm_year + 1900) else { return "-" }
        let fraction = ((whole % 1000) + 1000) % 1000
        // Written digit by digit into one buffer: a report writes millions of dates.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var count = 0
            func put(_ value: Int, digits: Int) {
                var divisor = 1
                for _ in 1..<digits { divisor *= 10 }
                while divisor > 0 {
                    buffer[count] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    count += 1
                    divisor /= 10
                }
            }
            func put(_ character: Unicode.Scalar) {
                buffer[count] = UInt8(ascii: character)
                count += 1
            }
            put(Int(parts.tm_year) + 1900, digits: 4)
            put("-")
            put(Int(parts.tm_mon) + 1, digits: 2)
            put("-")
            put(Int(parts.tm_mday), digits: 2)
            put("T")
            put(Int(parts.tm_hour), digits: 2)
            put(":")
            put(Int(parts.tm_min), digits: 2)
            put(":")
            put(Int(parts.tm_sec), digits: 2)
            if milliseconds {
                put(".")
                put(fraction, digits: 3)
            }
            put("Z")
            return count
        }
    }

    /// `2026-11-21` in local time.
    static func day(_ date: Date) -> String { format(date, "%Y-%m-%d") }

    /// `2026-11-21 22:10:03` in local time.
    static func timestamp(_ date: Date) -> String { format(date, "%Y-%m-%d %H:%M:%S") }

    /// `22:51:15` in local time.
    static func clock(_ date: Date) -> String { format(date, "%H:%M:%S") }

    /// The C library's `localtime_r` and `strftime` (numbers only, so no locale enters): a
    /// `DateFormatter` costs tens of microseconds to make, which a report of 100,000 files pays
    /// 100,000 times.
    private static func format(_ date: Date, _ pattern: String) -> String {
        guard date.timeIntervalSince1970.isFinite, abs(date.timeIntervalSince1970) < 1e12 else { return "-" }
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "-" }
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
