internal import NIOConcurrencyHelpers

/// Keys looked up lately by their id (device keys, publisher keys), each kept a minute: a key
/// removed from the database stops working within a minute. At most 100,000 are kept; past that
/// the cache starts again.
final class KeyCache<Entry: Sendable>: Sendable {
    private let entries = NIOLockedValueBox<[String: (entry: Entry, until: ContinuousClock.Instant)]>([:])
    static var lifetime: Duration { .seconds(60) }
    static var capacity: Int { 100_000 }

    /// The entry under an id, from the cache or else looked up (and kept when found).
    func entry(named kid: String, lookingUp lookUp: (String) async throws -> Entry?) async throws -> Entry? {
        let now = ContinuousClock.now
        if let kept = entries.withLockedValue({ $0[kid] }), kept.until > now { return kept.entry }
        guard let found = try await lookUp(kid) else { return nil }
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[kid] = (found, now.advanced(by: Self.lifetime))
        }
        return found
    }
}
