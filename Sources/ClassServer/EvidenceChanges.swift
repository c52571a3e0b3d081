import OpenClassKit

/// What a sync's operations change of the process evidence of a student's work on one
/// assignment: the history rows written and removed, and whether the rows held go first.
///
/// The operations count as ``OpenClassKit/WorkState/apply(_:)`` counts them: one of an earlier
/// attempt changes nothing, and one of a later attempt or a snapshot of the work
/// (``OpenClassKit/SyncOperation/replacesWork``) starts the evidence again, as it does the work.
struct EvidenceChanges: Sendable, Equatable {
    /// True when the rows held are dropped before the others apply.
    var clearsHeld = false
    /// Ids of held rows removed.
    var removed: Set<Int64> = []
    /// The rows written, by id: of two of one id, the later.
    var rows: [Int64: SyncOperation.HistoryRow] = [:]

    /// Whether it changes nothing.
    var isEmpty: Bool { !clearsHeld && removed.isEmpty && rows.isEmpty }

    /// The changes of operations on one assignment, in the order they were made.
    /// - Parameter attempt: The attempt of the work held; nil when none is.
    init(_ operations: [SyncOperation], heldAttempt attempt: Int?) {
        var current = attempt ?? operations.first?.attempt ?? 0
        for operation in operations {
            if operation.replacesWork || operation.attempt > current {
                current = operation.attempt
                self = EvidenceChanges()
                clearsHeld = true
            } else if operation.attempt < current {
                continue
            }
            for id in operation.removedHistoryRows ?? [] {
                rows[id] = nil
                removed.insert(id)
            }
            for row in operation.historyRows ?? [] { rows[row.id] = row }
        }
    }

    /// The changes of a sync's operations, by assignment, for those with any.
    /// - Parameter attempts: The attempt of the work held on each assignment.
    static func of(_ operations: [String: [SyncOperation]], heldAttempts attempts: [String: Int]) -> [String: EvidenceChanges] {
        operations.reduce(into: [:]) { changes, pair in
            let change = EvidenceChanges(pair.value, heldAttempt: attempts[pair.key])
            if !change.isEmpty { changes[pair.key] = change }
        }
    }

    private init() {}
}
