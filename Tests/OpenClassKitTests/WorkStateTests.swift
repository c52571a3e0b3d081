import Foundation
@testable import OpenClassKit
import Testing
import TestSupport

/// The server's merge of operations (``WorkState/apply(contentsOf:)``), checked against the
/// plain merge it replaced — each span and item looked for one by one, ranges united and items
/// sorted after every operation — on seeded random operations, and its size bound against what
/// the merge holds.
struct WorkStateTests {
    /// The merge as it was written first: quadratic, obviously right.
    struct PlainMerge {
        var spans: [SyncOperation.Span] = []
        var basis: String?
        var ranges: [SyncOperation.Range] = []
        var items: [SyncOperation.Item] = []
        var attempt: Int
        var completedAt: Double?

        mutating func apply(_ operation: SyncOperation) {
            if operation.replacesWork || operation.attempt > attempt {
                self = PlainMerge(attempt: operation.attempt)
            } else if operation.attempt < attempt {
                return
            }
            spans.removeAll { operation.discardedSpans.contains($0.id) }
            for span in operation.spans {
                if let index = spans.firstIndex(where: { $0.id == span.id }) {
                    let merged = SpanRecord(spans[index]).merged(with: SpanRecord(span))
                    spans[index] = .init(id: span.id, start: spans[index].start, end: merged.end, lastPulse: merged.lastPulse, session: merged.session)
                } else {
                    spans.append(span)
                }
            }
            spans.sort { ($0.start, $0.id) < ($1.start, $1.id) }
            if let change = operation.progressBasisChange, change.restarts || change.basis != basis {
                ranges = []
                basis = change.basis
            }
            if !operation.ranges.isEmpty, basis == operation.rangesBasis {
                ranges = IntervalSet((ranges + operation.ranges).map { $0.lower...$0.upper }).intervals.map { .init(lower: $0.lowerBound, upper: $0.upperBound) }
            }
            if operation.removesAllItems { items = [] }
            if operation.clearsPrimary { items.removeAll(where: \.isPrimary) }
            items.removeAll { operation.deletedItems.contains($0.identifier) }
            for item in operation.items {
                if let index = items.firstIndex(where: { $0.identifier == item.identifier }) {
                    var newer = item
                    newer.createdAt = items[index].createdAt
                    items[index] = newer
                } else {
                    items.append(item)
                }
                if item.isPrimary { items.removeAll { $0.isPrimary && $0.identifier != item.identifier } }
            }
            items.sort { ($0.createdAt, $0.identifier) < ($1.createdAt, $1.identifier) }
            if let date = operation.completedAt { completedAt = min(completedAt ?? date, date) }
        }
    }

    /// Random operations on one assignment, drawing ids from small pools so that they collide.
    static func operations(_ count: Int, seed: UInt64) -> [SyncOperation] {
        var random = SplitMix(seed: seed)
        func pick(_ range: Range<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        func chance(_ percent: Int) -> Bool { pick(0..<100) < percent }
        let bases: [String?] = [nil, "words", "pages"]
        return (0..<count).map { index in
            var operation = SyncOperation(assignmentIdentifier: "a", attempt: chance(5) ? pick(0..<3) : 1,
                                          madeAt: 1_700_000_000 + Double(index), assignment: .init(title: "A", documentName: "a.txt"))
            operation.replacesWork = chance(3)
            operation.spans = (0..<pick(0..<4)).map { _ in
                let start = 1_700_000_000 + Double(pick(0..<50) * 10)
                let end: Double? = chance(50) ? start + Double(pick(1..<30)) : nil
                return .init(id: "s\(pick(0..<30))", start: start, end: end, lastPulse: (end ?? start) + Double(pick(0..<5)),
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
                .init(identifier: "i\(pick(0..<12))", title: "t\(pick(0..<5))", isPrimary: chance(30), kind: "quantity",
                      value: Double(pick(0..<100)), createdAt: 1_700_000_000 + Double(pick(0..<20)), modifiedAt: 1_700_000_000 + Double(index))
            }
            if chance(3) { operation.completedAt = 1_700_000_000 + Double(index) }
            return operation
        }
    }

    @Test(arguments: 0..<40)
    func theLinearMergeHoldsWhatThePlainMergeHolds(seed: UInt64) {
        let operations = Self.operations(120, seed: seed)
        var plain = PlainMerge(attempt: operations[0].attempt)
        var oneByOne = WorkState(startingWith: operations[0])
        var whole = WorkState(startingWith: operations[0])
        var inBatches = WorkState(startingWith: operations[0])
        for (index, operation) in operations.enumerated() {
            let bound = oneByOne.size(after: [operation])
            plain.apply(operation)
            oneByOne.apply(operation)
            #expect(oneByOne.spans.count <= bound.spans && oneByOne.ranges.count <= bound.ranges && oneByOne.items.count <= bound.items,
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
        var operation = SyncOperation(assignmentIdentifier: "a", attempt: 0, madeAt: 1_700_000_000, assignment: .init(title: "A", documentName: "a.txt"))
        var work = WorkState(startingWith: operation)
        operation.assignmentIdentifier = "b"
        operation.spans = [.init(id: "s", start: 1_700_000_000, end: 1_700_000_010, lastPulse: 1_700_000_010)]
        work.apply(contentsOf: [operation])
        #expect(work.spans.isEmpty)
        #expect(work.size(after: [operation]) == WorkState.Size(spans: 0, ranges: 0, items: 0))
    }
}
