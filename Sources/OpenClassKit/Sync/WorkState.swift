import Foundation

/// A student's work on one assignment as a class server holds it: the sum of the
/// ``SyncOperation``s applied. Not part of ClassKit.
///
/// Operations merge by the store's own rules, with the same code: spans by id (a stop is never
/// undone; the later stop and pulse win), progress ranges united under one basis (a new basis
/// starts them again), items last-writer-wins in the order the store committed them, the done
/// date set once; a snapshot replaces everything. So the server's numbers are the student's own.
/// A server applies each operation id once (a snapshot sent again would undo what followed it).
public struct WorkState: Sendable, Equatable, Codable {
    public var assignmentIdentifier: String
    public var assignment: SyncOperation.AssignmentInfo
    public var attempt: Int
    /// The spans, by start.
    public private(set) var spans: [SyncOperation.Span] = []
    public private(set) var progressBasis: String?
    /// The progress ranges, united.
    public private(set) var ranges: [SyncOperation.Range] = []
    /// The items, in the order they were made.
    public private(set) var items: [SyncOperation.Item] = []
    public private(set) var completedAt: Double?
    /// The latest `madeAt` applied.
    public private(set) var updatedAt: Double

    /// Work with nothing recorded, for the operation's assignment and attempt.
    public init(startingWith operation: SyncOperation) {
        assignmentIdentifier = operation.assignmentIdentifier
        assignment = operation.assignment
        attempt = operation.attempt
        updatedAt = operation.madeAt
    }

    /// Merges an operation in. One for an earlier attempt changes nothing; one for a later attempt
    /// starts the work again (the student started the document over), as does a snapshot
    /// (``SyncOperation/replacesWork``), which then holds all there is.
    public mutating func apply(_ operation: SyncOperation) {
        guard operation.assignmentIdentifier == assignmentIdentifier else { return }
        if operation.replacesWork || operation.attempt > attempt {
            self = WorkState(startingWith: operation)
        } else if operation.attempt < attempt {
            return
        }
        assignment = operation.assignment
        updatedAt = max(updatedAt, operation.madeAt)
        mergeSpans(of: operation)
        mergeProgress(of: operation)
        mergeItems(of: operation)
        if let date = operation.completedAt { completedAt = min(completedAt ?? date, date) }
    }

    /// Merges spans by id. The spans stay sorted by start; an operation touches a few, most
    /// often the latest, so each is looked for from the end.
    private mutating func mergeSpans(of operation: SyncOperation) {
        if !operation.discardedSpans.isEmpty {
            let discarded = Set(operation.discardedSpans)
            spans.removeAll { discarded.contains($0.id) }
        }
        for span in operation.spans {
            if let index = spans.lastIndex(where: { $0.id == span.id }) {
                let merged = SpanRecord(spans[index]).merged(with: SpanRecord(span))
                spans[index] = SyncOperation.Span(id: merged.id, start: spans[index].start, end: merged.end, lastPulse: merged.lastPulse,
                                                  session: merged.session)
            } else {
                let place = spans.lastIndex { ($0.start, $0.id) <= (span.start, span.id) }.map { $0 + 1 } ?? 0
                spans.insert(span, at: place)
            }
        }
    }

    private mutating func mergeProgress(of operation: SyncOperation) {
        if let change = operation.progressBasisChange {
            let basisChange = ProgressBasisChange(basis: change.basis.map(ProgressBasis.init(rawValue:)), restarts: change.restarts)
            if basisChange.clearsRanges(measuredUnder: progressBasis) {
                ranges = []
                progressBasis = change.basis
            }
        }
        guard !operation.ranges.isEmpty, progressBasis == operation.rangesBasis else { return }
        let union = IntervalSet((ranges + operation.ranges).map { $0.lower...max($0.lower, $0.upper) })
        ranges = union.intervals.map { SyncOperation.Range(lower: $0.lowerBound, upper: $0.upperBound) }
    }

    /// Removals first, as a save writes them, then the items added or changed, each replacing the
    /// one held: operations come in the order the store committed them, so the last writer wins
    /// as it does in the store.
    private mutating func mergeItems(of operation: SyncOperation) {
        if operation.removesAllItems { items = [] }
        if operation.clearsPrimary { items.removeAll { $0.isPrimary } }
        if !operation.deletedItems.isEmpty {
            let deleted = Set(operation.deletedItems)
            items.removeAll { deleted.contains($0.identifier) }
        }
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
    }

    // MARK: What people see

    /// Active seconds: the union of the spans, a running span up to its last pulse, as the
    /// student's own report counts it (``CLSActivity/recordedDuration(since:)``).
    public var activeSeconds: Double { SpanRecord.measure(of: spans.map(SpanRecord.init)) }

    /// Progress, 0…1: the measure of the united ranges, as ``CLSActivity/progress``.
    public var progress: Double { min(1, max(0, ranges.reduce(0) { $0 + ($1.upper - $1.lower) })) }

    /// The sessions a person sees, joined as ``CLSActivity/workSessions`` joins them.
    public var sessions: [WorkSession] {
        CLSActivity.sessions(of: spans.map {
            TimeSpan(start: Date(timeIntervalSince1970: $0.start), end: $0.end.map(Date.init(timeIntervalSince1970:)),
                     lastPulse: Date(timeIntervalSince1970: $0.lastPulse), continuesSession: $0.session != nil)
        })
    }
}

extension SpanRecord {
    init(_ span: SyncOperation.Span) {
        self.init(id: span.id, start: span.start, end: span.end, lastPulse: span.lastPulse, owner: nil, session: span.session)
    }
}
