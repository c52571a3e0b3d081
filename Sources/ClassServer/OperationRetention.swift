import Foundation
import OpenClassKit

/// How long the server keeps the ids of applied operations, and why pruning them never lets an
/// operation be applied twice.
///
/// The server applies each operation id once: `applied_operation` records every id applied, and
/// one seen again is counted as repeated. An id comes again only while a student's store holds
/// its operation in the outbox unacknowledged (an answer lost, a server killed mid-request),
/// and the store sends it again unchanged, with the `madeAt` it was made at. So:
///
/// - the server accepts an operation only while it is younger than ``acceptedAge`` (90 days) by
///   its `madeAt`; an older one is refused (`invalidValue`: the student's clsfile sets it aside
///   with the reason, and `clsfile status` counts it; the work stays in their own store);
/// - `clsfile-server prune` deletes the ids applied more than ``keptAge`` (91 days) ago.
///
/// An id pruned was applied more than 91 days before the prune, and its `madeAt` is at most the
/// time it was applied plus the 5 minutes of clock skew `madeAt` may have: more than 90 days
/// before any later request, which is refused for its age before its id is looked up. The day
/// between the two ages covers the clock of a server process and of PostgreSQL (which times the
/// prune) disagreeing by up to 12 hours.
///
/// 90 days is longer than a summer holiday: a student whose laptop stays offline for the holiday
/// still sends the work made before it. The table holds 90 days of operations: at one operation
/// per save of an assigned document, 100,000 students saving 50 times a school day keep about
/// 300 million rows (about 60 bytes each with their index).
public enum OperationRetention {
    /// How old an operation may be, by its `madeAt`, and still be applied: 90 days.
    public static let acceptedAge: TimeInterval = 90 * 86_400
    /// How long after it was applied an operation's id is kept: 91 days.
    public static let keptAge: TimeInterval = acceptedAge + 86_400

    /// Checks that each operation is young enough for its id to be still on record.
    /// - Throws: ``ServerError`` `.invalidValue` naming the first operation older than ``acceptedAge``.
    static func check(_ operations: [SyncOperation], at now: Date = Date()) throws {
        let oldest = now.timeIntervalSince1970 - acceptedAge
        guard let old = operations.first(where: { $0.madeAt < oldest }) else { return }
        let made = Date(timeIntervalSince1970: old.madeAt).formatted(.iso8601.year().month().day())
        throw ServerError(
            .invalidValue,
            "operation \(old.id.uuidString.lowercased()) was made on \(made), more than \(Int(acceptedAge / 86_400)) days ago: the server keeps the ids of applied operations no longer, so it cannot tell whether this one was applied, and does not apply it (the work stays in the student's own store)"
        )
    }
}
