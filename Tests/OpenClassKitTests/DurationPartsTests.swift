@testable import OpenClassKit
import Testing
import TestSupport

/// Sessions as shown must add up to the time as shown, each within a unit of its own time.
struct DurationPartsTests {
    /// The seconds a duration's text stands for: `1h 05m`, `4m 02s`, `41m`, `9s`.
    private func seconds(_ text: String) -> Int? {
        var total = 0
        for piece in text.split(separator: " ") {
            guard let unit = piece.last, let value = Int(piece.dropLast()) else { return nil }
            switch unit {
            case "h": total += value * 3600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
        }
        return total
    }

    @Test func theSessionsOfAShowAddUpToItsTime() {
        // The figures `show` gave as "Time: 7s" over "4s" and "2s" (each cut to the second).
        let times = DurationParts([4.95, 2.98], of: 7.93)
        #expect(times.whole == "8s")
        #expect(times.parts == ["5s", "3s"])
        #expect(DurationText.text(7.93) == times.whole)
    }

    @Test func partsAddUpAndStayWithinAUnitOfTheirTimes() throws {
        var generator = SplitMix(seed: 20261129)
        for round in 0..<2000 {
            let scale = [3.0, 90, 1500, 9000][round % 4]
            let values = (0..<Int(generator.next() % 9)).map { _ in Double(generator.next() % 1_000_000) / 1_000_000 * scale }
            let times = DurationParts(values)
            let sum = values.reduce(0, +)
            let whole = try #require(seconds(times.whole), "\(times.whole)")
            let unit = sum.rounded() >= 3600 ? 60.0 : 1
            #expect(times.whole == DurationText.text(sum), "round \(round): \(values)")
            #expect(abs(Double(whole) - sum) <= unit / 2, "round \(round): \(values) → \(times.whole)")
            var added = 0
            for (value, text) in zip(values, times.parts) {
                let part = try #require(seconds(text), "\(text)")
                #expect(part >= 0 && abs(Double(part) - value) < unit, "round \(round): \(value) → \(text)")
                added += part
            }
            #expect(added == whole, "round \(round): \(values) → \(times.parts) ≠ \(times.whole)")
        }
    }

    @Test func fromAnHourOnThePartsAreInMinutes() {
        let times = DurationParts([2400, 2429.4, 20])
        #expect(times.whole == "1h 21m")
        #expect(times.parts == ["40m", "40m", "1m"])
        #expect(DurationText.text(3599.6) == "1h 00m")
        #expect(DurationText.text(59.5) == "1m 00s")
        #expect(DurationText.text(7500.9) == "2h 05m")
    }

    @Test func anOpenTimeBesideItsActiveTimeIsNeverLess() {
        // Each 0.4 s: rounded on its own 0 s, but the second part carries the first's remainder.
        let active = DurationParts([0.4, 0.4])
        #expect(active.parts == ["0s", "1s"])
        #expect(active.text(0.4, notLessThanPart: 1) == "1s")
        #expect(active.text(0.4, notLessThanPart: 0) == "0s")
        #expect(active.text(65, notLessThanPart: 0) == "1m 05s")
        // An open hour beside active seconds reads as any hour does, to the nearest minute.
        #expect(active.text(3719, notLessThanPart: 0) == "1h 02m")
        #expect(active.text(3629.6, notLessThanPart: 0) == DurationText.text(3629.6))
    }

    @Test func aRecordedWholeThePartsDoNotMakeIsWrittenAsRecorded() {
        // Work sent before sessions carried their active time: lengths with pauses in them.
        let times = DurationParts([30, 40], of: 25)
        #expect(times.whole == "25s")
        #expect(times.parts == ["30s", "40s"])
        #expect(DurationParts([], of: 12.4).whole == "12s")
        #expect(DurationParts([]).whole == "0s")
    }

    @Test func whatIsNotANumberIsADashAndNeverATrap() {
        let times = DurationParts([3, .nan, 4])
        #expect(times.whole == "-")
        #expect(times.parts == ["3s", "-", "4s"])
        #expect(times.text(5, notLessThanPart: 0) == "5s")
        #expect(DurationParts([-5, 3]).parts == ["0s", "3s"])
        #expect(DurationParts([.infinity]).whole == "-")
    }
}
