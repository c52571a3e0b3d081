#if canImport(Glibc)
import Glibc
#endif

/// Numbers and shares written for people, without Foundation's `String(format:)` (which costs
/// `clsfile stats` a third of a millisecond).
public enum NumberText {
    /// `80%`, `12.5%`; `-` for a share that is not a number.
    public static func percent(_ share: Double) -> String {
        guard share.isFinite else { return "-" }
        let value = share * 100
        return value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))%" : decimal(value, places: 1) + "%"
    }

    /// `26.1`: a value with a fixed number of decimal places. The value is scaled, then rounded
    /// half to even, so on a tie it can differ from `%.1f` in the last place (0.35 gives 0.4, where
    /// `%.1f` rounds the binary value just below 0.35 down), and no `-0.0` is printed. A value too
    /// large for that (1e15 and more once scaled), or not a number, is written as `%.Nf` writes it.
    public static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * Double(scale)).rounded(.toNearestOrEven)
        guard scaled.isFinite, abs(scaled) < 1e15 else {
            var text = [CChar](repeating: 0, count: 400)
            _ = withVaList([value]) { vsnprintf(&text, text.count, "%.\(places)f", $0) }
            return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        let units = Int(abs(scaled))
        let sign = scaled < 0 ? "-" : ""
        guard places > 0 else { return sign + "\(units)" }
        let fraction = String(units % scale)
        return sign + "\(units / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
