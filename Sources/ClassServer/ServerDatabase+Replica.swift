import Foundation
import Logging
internal import PostgresNIO

/// Teachers' reads from a streaming replica, each account reading its own writes.
///
/// With `--read-database`, the teacher's pages, `/api/class-report.json` and `/api/xapi.json`
/// read from a replica, so that the primary keeps its work for students' syncs. A replica lags
/// the primary by the time it takes to replay the write-ahead log (milliseconds when it keeps
/// up): a teacher who has just assigned a context must still see it on the next page, which
/// any server process behind the proxy may serve.
///
/// So each of a teacher's writes raises a counter of theirs in its own transaction
/// (`account_write`, see ``ServerSchema/version6``), and each read first asks the primary for
/// the counter (one look-up by key), then the replica, in the transaction that reads: while
/// the replica's counter is behind, the replica has not replayed the teacher's last write yet,
/// and the read goes to the primary. The window in which an account's reads are pinned to the
/// primary is kept in the database, not in a process (nor in a cookie, which the command line's
/// reports would not carry): it starts with the write's commit and ends when the replica has
/// replayed it, however long that takes, so no fixed window can be too short. What others wrote
/// (students' syncs) the teacher sees as the replica has it, at most its lag behind.
///
/// A replica that cannot be used (down, slow to answer, or a query it cancels while replaying)
/// sends the read to the primary, with a warning in the log, and the reads of the next 10
/// seconds with it (``ReplicaReader``).
extension ServerDatabase {
    /// Runs a read in a transaction as `account` on the replica when it holds the account's
    /// every write, else on the primary (as ``asAccount(_:_:)``). Without a replica, or while it
    /// fails (``ReplicaReader``), on the primary.
    func asReader<Result: Sendable>(_ account: UUID, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        guard let reader, !reader.isResting else { return try await asAccount(account, body) }
        let written = try await translating("a read of the account \(account)") {
            try await client.query("SELECT clsfile.write_generation(\(account))", logger: logger).decode(Int64.self).collected().first ?? 0
        }
        do {
            // The replica's count of the account's writes only grows: once it has caught up, the
            // transaction below, which starts later, sees every write of the account.
            let replayed = try await translating("a read of the account \(account) from the replica", on: reader.address) {
                try await reader.replayedWrites(of: account, logger: logger)
            }
            guard let replayed else {
                reader.noteFailure()
                logger.warning(
                    "the replica did not answer within \(ReplicaReader.deadline); reading from the primary",
                    metadata: ["replica": "\(reader.address)"])
                return try await asAccount(account, body)
            }
            if replayed >= written {
                return try await translating("a read of the account \(account) from the replica", on: reader.address) {
                    try await reader.client.withTransaction(logger: logger) { connection in
                        try await connection.run("SELECT set_config('clsfile.account', \(account.uuidString), true)", logger: logger)
                        return try await body(connection)
                    }
                }
            }
        } catch let error as ServerError where error.code == .database {
            reader.noteFailure()
            logger.warning("reading from the replica failed; reading from the primary", metadata: ["error": "\(error)"])
        }
        return try await asAccount(account, body)
    }
}
