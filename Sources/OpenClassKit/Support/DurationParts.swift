/// Durations that make up one whole — the sessions of a file and its time — written so that the
/// parts as shown add up to the whole as shown: `Time: 8s` over sessions of `5s` and `3s`, where
/// rounding each on its own could show `7s` over `4s` and `2s`.
///
/// The whole is written as ``DurationText/text(_:)`` writes it, and the parts in its unit (so
/// under a whole of hours, a session of 41 minutes reads `41m`). Each part is the difference of
/// the rounded running sums before and after it, so it is off by less than one unit, never
/// negative, and the parts' sum is the whole's.
package struct DurationParts: Sendable {
    /// The sum of the parts as people read it.
    package let whole: String
    /// Each part as people read it, in the order given.
    package let parts: [String]
    /// The seconds of the unit the parts are written in (1 or 60); 0 when one was not a number.
    private let unit: Int
    /// Each part in units.
    private let units: [Int]

    /// - Parameters:
    ///   - seconds: The parts in seconds; a negative one counts as none.
    ///   - recorded: The whole as recorded, when there is one: it is written as recorded when the
    ///     parts do not add up to it (none given, or work sent before sessions carried their
    ///     active time), and as their sum when they do.
    package init(_ seconds: [Double], of recorded: Double? = nil) {
        let total = seconds.reduce(0) { $0 + ($1 < 0 ? 0 : $1) }
        let unit = seconds.allSatisfy(\.isFinite) && total < 1e15 ? DurationText.unit(of: total) : 0
        var (sum, shown) = (0.0, 0)
        var units: [Int] = []
        if unit > 0 {
            units.reserveCapacity(seconds.count)
            for part in seconds {
                sum += max(0, part)
                let upToHere = Int((sum / Double(unit)).rounded())
                units.append(upToHere - shown)
                shown = upToHere
            }
        }
        self.unit = unit
        self.units = units
        // Nothing adds up when a corrupt store holds what is not a number: each on its own.
        parts = unit > 0 ? units.map { DurationText.text(units: $0, of: unit) } : seconds.map(DurationText.text)
        if let recorded, seconds.isEmpty || !(abs(total - recorded) < 0.01) {
            whole = DurationText.text(recorded)
        } else {
            whole = unit > 0 ? DurationText.text(units: shown, of: unit) : DurationText.text(total)
        }
    }

    /// A duration written beside part `index` — a session's open time beside its active time — in
    /// the parts' unit and never less than that part as shown, so that a row never reads as more
    /// active than open after rounding. The duration itself must not be less than the part.
    package func text(_ seconds: Double, notLessThanPart index: Int) -> String {
        guard unit > 0, units.indices.contains(index), seconds.isFinite, seconds < 1e15 else {
            return DurationText.text(seconds)
        }
        let shown = max(units[index], Int((max(0, seconds) / Double(unit)).rounded()))
        // An hour or more beside parts in seconds (all under an hour): to the nearest minute, once.
        return unit == 1 && shown >= 3600 ? DurationText.text(seconds) : DurationText.text(units: shown, of: unit)
    }
}
