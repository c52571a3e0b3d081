import Foundation
@testable import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// The server's merge of operations (``WorkState/apply(contentsOf:)``), checked against the
/// plain merge it replaced (`PlainWorkMerge`) on seeded random operations, and its size bound
/// against what the merge holds.
struct WorkStateTests {
    /// Random operations on one assignment, drawing ids from small pools so that they collide.
    static func operations(_ count: Int, seed: UInt64) -> [SyncOperation] {
        var random = SplitMix(seed: seed)
        func pick(_ range: Range<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        func chance(_ percent: Int) -> Bool { pick(0..<100) < percent }
        let bases: [String?] = [nil, "words", "pages"]
        return (0..<count).map { index in
            var operation = SyncOperation(
                assignmentIdentifier: "a", attempt: chance(5) ? pick(0..<3) : 1,
                madeAt: 1_700_000_000 + Double(index), assignment: .init(title: "A", documentName: "a.txt"))
            operation.replacesWork = chance(3)
            operation.spans = (0..<pick(0..<4)).map { _ in
                let start = 1_700_000_000 + Double(pick(0..<50) * 10)
                let end: Double? = chance(50) ? start + Double(pick(1..<30)) : nil
                return .init(
                    id: "s\(pick(0..<30))", start: start, end: end, lastPulse: (end ?? start) + Double(pick(0..<5)),
                    session: chance(30) ? "s\(pick(0..<30))" : nil)
            }
            operation.discardedSpans = chance(5) ? (0..<pick(1..<3)).map { _ in "s\(pick(0..<30))" } : []
            if chance(5) { operation.progressBasisChange = .init(basis: bases[pick(0..<3)], restarts: chance(30)) }
            operation.rangesBasis = bases[pick(0..<3)]
            operation.ranges = (0..<pick(0..<3)).map { _ in
                let lower = Double(pick(0..<100)) / 100
                return .init(lower: lower, upper: min(1, lower + Double(pick(0..<20)) / 100))
            }
            operation.removesAllItems = chance(2)
            operation.clearsPrimary = chance(4)
            operation.deletedItems = chance(8) ? ["i\(pick(0..<12))"] : []
            operation.items = (0..<pick(0..<3)).map { _ in
                .init(
                    identifier: "i\(pick(0..<12))", title: "t\(pick(0..<5))", isPrimary: chance(30), kind: "quantity",
                    value: Double(pick(0..<100)), createdAt: 1_700_000_000 + Double(pick(0..<20)), modifiedAt: 1_700_000_000 + Double(index)
                )
            }
            if chance(3) { operation.completedAt = 1_700_000_000 + Double(index) }
            return operation
        }
    }

    @Test(arguments: 0..<40)
    func theLinearMergeHoldsWhatThePlainMergeHolds(seed: UInt64) {
        let operations = Self.operations(120, seed: seed)
        var plain = PlainWorkMerge(attempt: operations[0].attempt)
        var oneByOne = WorkState(startingWith: operations[0])
        var whole = WorkState(startingWith: operations[0])
        var inBatches = WorkState(startingWith: operations[0])
        for (index, operation) in operations.enumerated() {
            let bound = oneByOne.size(after: [operation])
            plain.apply(operation)
            oneByOne.apply(operation)
            #expect(
                oneByOne.spans.count <= bound.spans && oneByOne.ranges.count <= bound.ranges && oneByOne.items.count <= bound.items,
                "size(after:) bounds nothing at operation \(index)")
            #expect(oneByOne.spans == plain.spans, "spans differ at operation \(index)")
            #expect(oneByOne.ranges == plain.ranges, "ranges differ at operation \(index)")
            #expect(oneByOne.items == plain.items, "items differ at operation \(index)")
            #expect(oneByOne.attempt == plain.attempt && oneByOne.completedAt == plain.completedAt)
        }
        whole.apply(contentsOf: operations)
        for batch in stride(from: 0, to: operations.count, by: 17) {
            inBatches.apply(contentsOf: operations[batch..<min(operations.count, batch + 17)])
        }
        #expect(whole == oneByOne)
        #expect(inBatches == oneByOne)
    }

    @Test func operationsOfAnotherAssignmentChangeNothing() {
        var operation = SyncOperation(
            assignmentIdentifier: "a", attempt: 0, madeAt: 1_700_000_000, assignment: .init(title: "A", documentName: "a.txt"))
        var work = WorkState(startingWith: operation)
        operation.assignmentIdentifier = "b"
        operation.spans = [.init(id: "s", start: 1_700_000_000, end: 1_700_000_010, lastPulse: 1_700_000_010)]
        work.apply(contentsOf: [operation])
        #expect(work.spans.isEmpty)
        #expect(work.size(after: [operation]) == WorkState.Size(spans: 0, ranges: 0, items: 0))
    }
}
