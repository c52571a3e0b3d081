import Foundation
import OpenClassKit

/// What one student's work may hold on a class server, checked before any merge work, so that
/// nothing a student sends can make a record, a request or a teacher's page grow without bound.
///
/// The limits are far above what a person writing makes (a year of daily sessions with pauses is a
/// few thousand spans; ClassKit's activities hold a handful of items and ranges), and they keep the
/// cost of one request bounded: a record at its limits is merged, encoded and written in a few
/// tens of milliseconds (`swift run -c release WorkLimitsBenchmark`).
public enum WorkLimits {
    /// The most time spans one assignment's work may hold.
    public static let maximumSpans = 5_000
    /// The most progress ranges one assignment's work may hold, united.
    public static let maximumRanges = 1_000
    /// The most activity items one assignment's work may hold.
    public static let maximumItems = 1_000
    /// The most assignments a student's work in one class may name.
    public static let maximumAssignments = 500
    /// The most bytes a student's work in one class may take in the database (PostgreSQL's
    /// stored size of the rows' `detail`, after compression).
    public static let budgetBytes = 16 << 20

    /// The most rows of the writing history one assignment's process evidence may hold, the
    /// most of them with a snapshot of the text, and the most bytes their deltas take (the last
    /// two what a submission may hold, so that a replay costs the teacher's page what a
    /// submission's does). A student's clsfile sends no more: past the snapshots' caps it sends
    /// the rows without them.
    public static let maximumHistoryRows = SyncOperation.maximumHistoryRows
    public static let maximumSnapshots = SyncOperation.maximumSnapshots
    public static let maximumSnapshotBytes = SyncOperation.maximumSnapshotBytes

    /// Checks the process evidence of the work on an assignment, as a sync leaves it (checked
    /// after writing it, in the transaction that a refusal rolls back).
    /// - Throws: ``ServerError`` `.tooLarge`, naming the assignment and the limit.
    static func check(historyRows: Int, snapshots: Int, snapshotBytes: Int, on assignment: String) throws {
        for (count, limit, what) in [
            (historyRows, maximumHistoryRows, "history rows"), (snapshots, maximumSnapshots, "snapshots of the text"),
            (snapshotBytes, maximumSnapshotBytes, "bytes of snapshots")
        ] where count > limit {
            throw ServerError(
                .tooLarge,
                "the work on \(assignment) would hold \(count) \(what), more than the \(limit) one assignment's process evidence may hold; nothing of this request was applied"
            )
        }
    }

    /// Checks that the work on each assignment, merged with its operations, stays within the
    /// limits, counting what it could hold at most (``OpenClassKit/WorkState/size(after:)``).
    /// - Parameters:
    ///   - operations: The operations of the request, by assignment.
    ///   - states: The work stored on the assignments the operations name, by assignment.
    ///   - rows: How many assignments the student's work in the class names today.
    /// - Throws: ``ServerError`` `.tooLarge`, naming the assignment and the limit.
    static func check(
        adding operations: [String: [SyncOperation]], to states: [String: WorkState],
        amongAssignments rows: Int, inClass classID: UUID
    ) throws {
        let added = operations.keys.filter { states[$0] == nil }.count
        guard rows + added <= maximumAssignments else {
            throw ServerError(
                .tooLarge,
                "your work in the class \(classID.uuidString.lowercased()) would name \(rows + added) assignments, more than the \(maximumAssignments) a student may have in a class: ask the teacher"
            )
        }
        for (assignment, changes) in operations {
            let size = (states[assignment] ?? WorkState(startingWith: changes[0])).size(after: changes)
            for (count, limit, what) in [
                (size.spans, maximumSpans, "time spans"), (size.ranges, maximumRanges, "progress ranges"),
                (size.items, maximumItems, "activity items")
            ] where count > limit {
                throw ServerError(
                    .tooLarge,
                    "the work on \(assignment) would hold \(count) \(what), more than the \(limit) one assignment's work may hold; nothing of this request was applied"
                )
            }
        }
    }

    /// Checks the student's work in a class against the byte budget.
    /// - Throws: ``ServerError`` `.tooLarge` saying the budget is reached.
    static func check(storedBytes: Int, inClass classID: UUID) throws {
        guard storedBytes > budgetBytes else { return }
        throw ServerError(
            .tooLarge,
            "your work in the class \(classID.uuidString.lowercased()) would take \(storedBytes) bytes on the server, more than its budget of \(budgetBytes >> 20) MiB a student in a class; nothing of this request was applied: ask the teacher"
        )
    }
}
