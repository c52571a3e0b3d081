import Foundation
import OpenClassKit
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

    /// What ``pruneExpiredEvidence()`` did.
    public struct ExpiredEvidence: Sendable, Equatable {
        /// How many students' work on an assignment lost its history rows.
        public var works: Int
        /// How many history rows (with their snapshots) were deleted.
        public var rows: Int
    }

    /// Deletes the process evidence (history rows and snapshots) of work unchanged for longer
    /// than its registered handout keeps it (`keptEvidenceDays`, else
    /// `ProcessEvidence/defaultKeptDays`), and records when in `evidence_expiry`, which the
    /// teacher's student page shows; the work's figures stay. One transaction.
    ///
    /// Run as the role that owns the schema (`clsfile-server prune`); the app role may not.
    /// - Throws: ``ServerError`` `.database` when the database cannot be used.
    public func pruneExpiredEvidence() async throws -> ExpiredEvidence {
        try await translating("deleting the expired process evidence on \(address)") {
            let defaultDays = ProcessEvidence.defaultKeptDays
            let counts = try await client.query(
                """
                WITH due AS (
                    SELECT w.class_id, w.student_id, w.assignment_id, k.kept_days
                    FROM clsfile.work w
                    JOIN clsfile.handout h ON h.class_id = w.class_id AND h.assignment_id = w.assignment_id
                    CROSS JOIN LATERAL (SELECT coalesce((h.detail->>'keptEvidenceDays')::integer, \(defaultDays)) AS kept_days) k
                    WHERE w.updated_at < now() - k.kept_days * interval '1 day'
                      AND EXISTS (SELECT 1 FROM clsfile.work_history x
                                  WHERE x.class_id = w.class_id AND x.student_id = w.student_id AND x.assignment_id = w.assignment_id)),
                deleted AS (
                    DELETE FROM clsfile.work_history x USING due d
                    WHERE x.class_id = d.class_id AND x.student_id = d.student_id AND x.assignment_id = d.assignment_id
                    RETURNING 1),
                marked AS (
                    INSERT INTO clsfile.evidence_expiry (class_id, student_id, assignment_id, kept_days)
                    SELECT class_id, student_id, assignment_id, kept_days FROM due
                    ON CONFLICT (class_id, student_id, assignment_id) DO UPDATE SET expired_at = now(), kept_days = excluded.kept_days
                    RETURNING 1)
                SELECT (SELECT count(*) FROM marked), (SELECT count(*) FROM deleted)
                """, logger: logger
            ).decode((Int64, Int64).self).collected().first
            return ExpiredEvidence(works: Int(counts?.0 ?? 0), rows: Int(counts?.1 ?? 0))
        }
    }
}
