import OpenClassKit

/// The class server's merge of operations as it was written first — each span and item looked
/// for one by one, the ranges united and the items sorted after every operation: quadratic, and
/// plainly right. What tests check ``OpenClassKit/WorkState/apply(contentsOf:)`` against, and what
/// `WorkLimitsBenchmark` times beside it.
package struct PlainWorkMerge: Sendable {
    package private(set) var spans: [SyncOperation.Span] = []
    package private(set) var basis: String?
    package private(set) var ranges: [SyncOperation.Range] = []
    package private(set) var items: [SyncOperation.Item] = []
    package private(set) var attempt: Int
    package private(set) var completedAt: Double?

    /// Work with nothing recorded, of an attempt.
    package init(attempt: Int) {
        self.attempt = attempt
    }

    /// Work as a ``OpenClassKit/WorkState`` holds it.
    package init(_ work: WorkState) {
        (spans, basis, ranges, items, attempt, completedAt) = (
            work.spans, work.progressBasis, work.ranges, work.items, work.attempt, work.completedAt
        )
    }

    package mutating func apply(_ operation: SyncOperation) {
        if operation.replacesWork || operation.attempt > attempt {
            self = PlainWorkMerge(attempt: operation.attempt)
        } else if operation.attempt < attempt {
            return
        }
        spans.removeAll { operation.discardedSpans.contains($0.id) }
        for span in operation.spans {
            if let index = spans.firstIndex(where: { $0.id == span.id }) {
                // A stop is never undone; the later stop and the later pulse win; the start stays.
                let held = spans[index]
                spans[index] = .init(
                    id: span.id, start: held.start, end: held.end.map { max($0, span.end ?? $0) } ?? span.end,
                    lastPulse: max(held.lastPulse, span.lastPulse), session: held.session ?? span.session)
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
            var united: [SyncOperation.Range] = []
            for range in (ranges + operation.ranges).sorted(by: { ($0.lower, $0.upper) < ($1.lower, $1.upper) }) {
                if let last = united.last, range.lower <= last.upper {
                    united[united.count - 1].upper = max(last.upper, range.upper)
                } else {
                    united.append(range)
                }
            }
            ranges = united
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
