import Foundation
internal import PostgresNIO

extension ServerDatabase {
    /// What ``pruneAppliedOperations(batchSize:)`` did.
    public struct Pruned: Sendable, Equatable {
        /// How many operation ids were deleted.
        public var count: Int
        /// The ids applied before this time were deleted (the database's clock).
        public var appliedBefore: Date
    }

    /// Deletes the ids of operations applied more than ``OperationRetention/keptAge`` (91 days)
    /// ago, which no client can send again unrefused (``OperationRetention`` says why), in
    /// batches of `batchSize`, each its own transaction, so that syncs never wait long behind it.
    ///
    /// Run as the role that owns the schema (`clsfile-server prune`, daily from a timer: see
    /// `Samples/class-server`); the app role may not delete ids. Safe to run at any time and from
    /// two places at once.
    /// - Throws: ``ServerError`` `.database` when the database cannot be used, `.unsafeRole` for
    ///   a role that may not delete from `applied_operation`.
    public func pruneAppliedOperations(batchSize: Int = 50_000) async throws -> Pruned {
        try await translating("pruning the applied operations on \(address)") {
            let keptSeconds = Int(OperationRetention.keptAge)
            guard
                let cutoff = try await client.query(
                    """
                    SELECT now() - \(keptSeconds) * interval '1 second'
                    """, logger: logger
                ).decode(Date.self).collected().first
            else {
                throw ServerError(.database, "the database \(address) did not say what time it is")
            }
            var count = 0
            while true {
                let deleted = Int(
                    try await client.query(
                        """
                        WITH deleted AS (
                            DELETE FROM clsfile.applied_operation WHERE ctid IN (
                                SELECT ctid FROM clsfile.applied_operation WHERE applied_at < \(cutoff) LIMIT \(batchSize))
                            RETURNING 1)
                        SELECT count(*) FROM deleted
                        """, logger: logger
                    ).decode(Int64.self).collected().first ?? 0)
                count += deleted
                if deleted < batchSize { break }
            }
            return Pruned(count: count, appliedBefore: cutoff)
        }
    }
}
