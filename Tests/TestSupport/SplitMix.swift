import Foundation

/// A small seeded generator (SplitMix64), so that a randomized test or benchmark can be replayed.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed of a randomized test: `CLSFILE_TEST_SEED` replays a failing run; otherwise each run
    /// draws a new one, which the test names in every failure.
    public static func testSeed() -> UInt64 {
        ProcessInfo.processInfo.environment["CLSFILE_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
    }
}
