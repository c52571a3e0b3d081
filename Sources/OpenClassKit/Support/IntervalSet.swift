/// A union of closed intervals on the real line, kept sorted and disjoint.
///
/// Time spans and progress ranges are both measured as a union: overlapping or repeated intervals
/// count once. This one type serves both.
struct IntervalSet: Sendable, Equatable {
    private(set) var intervals: [ClosedRange<Double>] = []

    init() {}

    /// The union of the ranges, sorted then merged in one sweep.
    init<S: Sequence>(_ ranges: S) where S.Element == ClosedRange<Double> {
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = intervals.last, range.lowerBound <= last.upperBound {
                if range.upperBound > last.upperBound { intervals[intervals.count - 1] = last.lowerBound...range.upperBound }
            } else {
                intervals.append(range)
            }
        }
    }

    /// Adds an interval, merging it with every interval it touches.
    mutating func insert(_ range: ClosedRange<Double>) {
        var lower = range.lowerBound
        var upper = range.upperBound
        // First interval whose end reaches the new one's start.
        var first = intervals.count
        var low = 0, high = intervals.count
        while low < high {
            let mid = (low + high) / 2
            if intervals[mid].upperBound < lower { low = mid + 1 } else { high = mid }
        }
        first = low
        var last = first
        while last < intervals.count, intervals[last].lowerBound <= upper {
            lower = min(lower, intervals[last].lowerBound)
            upper = max(upper, intervals[last].upperBound)
            last += 1
        }
        intervals.replaceSubrange(first..<last, with: [lower...upper])
    }

    /// The total length covered by the union.
    var measure: Double {
        intervals.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    }
}
