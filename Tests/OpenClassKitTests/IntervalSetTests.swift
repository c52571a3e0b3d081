@testable import OpenClassKit
import Testing

/// A union of intervals made in one sorted sweep must equal the same intervals inserted one by one.
struct IntervalSetTests {
    @Test func aSweepEqualsInsertingOneByOne() {
        var generator = SplitMix(seed: 20261124)
        for round in 0..<500 {
            let ranges = (0..<Int(generator.next() % 12)).map { _ -> ClosedRange<Double> in
                let lower = Double(generator.next() % 100)
                return lower...(lower + Double(generator.next() % 15))
            }
            var inserted = IntervalSet()
            ranges.forEach { inserted.insert($0) }
            #expect(IntervalSet(ranges) == inserted, "round \(round): \(ranges)")
        }
    }

    @Test func touchingAndNestedIntervalsCountOnce() {
        let set = IntervalSet([5...8, 0...2, 2...3, 6...7, 10...10])
        #expect(set.intervals == [0...3, 5...8, 10...10])
        #expect(set.measure == 6)
    }

    /// A small seeded generator, so that a failing round can be replayed.
    private struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
