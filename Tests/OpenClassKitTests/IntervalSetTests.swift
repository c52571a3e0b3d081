@testable import OpenClassKit
import Testing
import TestSupport

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
}
