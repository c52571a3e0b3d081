import Foundation
import Logging
internal import NIOConcurrencyHelpers
internal import PostgresNIO

/// The streaming replica a server reads teachers' pages and reports from
/// (``ServerDatabase/asReader(_:_:)``), and whether it answers.
///
/// A replica that is down would hold each read while its connection pool tries to connect, so a
/// read asks the replica first with a short deadline; when the replica fails or misses it, the
/// read goes to the primary, and so do the reads of the next 10 seconds, before it is tried again.
final class ReplicaReader: Sendable {
    let client: PostgresClient
    let address: DatabaseAddress
    /// How long the first question to the replica may wait before the read goes to the primary.
    static let deadline: Duration = .seconds(2)
    /// How long after a failure reads go straight to the primary.
    static let rest: Duration = .seconds(10)
    private let restingUntil = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    init(address: DatabaseAddress, backgroundLogger: Logger) {
        self.address = address
        client = PostgresClient(configuration: address.configuration, backgroundLogger: backgroundLogger)
    }

    /// Whether the replica failed in the last ``rest``.
    var isResting: Bool {
        restingUntil.withLockedValue { until in until.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Sends reads to the primary for the next ``rest``.
    func noteFailure() {
        restingUntil.withLockedValue { $0 = ContinuousClock.now.advanced(by: Self.rest) }
    }

    /// How many writes of the account the replica has replayed (`account_write`), or nil when it
    /// did not answer within ``deadline``.
    /// - Throws: What the query throws.
    func replayedWrites(of account: UUID, logger: Logger) async throws -> Int64? {
        let client = self.client
        return try await withThrowingTaskGroup(of: Int64?.self) { group in
            group.addTask {
                try await client.query("SELECT clsfile.write_generation(\(account))", logger: logger).decode(Int64.self).collected().first
                    ?? 0
            }
            group.addTask {
                try await Task.sleep(for: Self.deadline)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
