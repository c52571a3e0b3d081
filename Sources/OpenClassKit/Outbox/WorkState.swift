import Foundation

/// A student's work on one assignment as a class server holds it: the sum of the
/// ``SyncOperation``s applied. Not part of ClassKit.
///
/// Operations merge by the store's own rules, with the same code: spans by id (a stop is never
/// undone; the later stop and pulse win), progress ranges united under one basis (a new basis
/// starts them again), items last-writer-wins in the order the store committed them, the done
/// date set once; a snapshot replaces everything. So the server's numbers are the student's own.
/// A server applies each operation id once (a snapshot sent again would undo what followed it).
package struct WorkState: Sendable, Equatable, Codable {
    package var assignmentIdentifier: String
    package var assignment: SyncOperation.AssignmentInfo
    package var attempt: Int
    /// The spans, by start.
    package private(set) var spans: [SyncOperation.Span] = []
    package private(set) var progressBasis: String?
    /// The progress ranges, united.
    package private(set) var ranges: [SyncOperation.Range] = []
    /// The items, in the order they were made.
    package private(set) var items: [SyncOperation.Item] = []
    package private(set) var completedAt: Double?
    /// The student's statement of AI use: the one stated last, whatever the attempt.
    package private(set) var aiStatement: SyncOperation.AIStatementRecord?
    /// When the student withdrew the process evidence not yet sent: the first date, until a
    /// snapshot of the work says otherwise (the student took the withdrawal back).
    package private(set) var evidenceWithdrawnAt: Double?
    /// The student's notes on the work, as they last sent them; nil while they sent none.
    package private(set) var notes: [SyncOperation.NoteRecord]?
    /// The sessions written by dictation or an input method, by the student's store's names, sorted.
    package private(set) var dictatedSessions: [String]?
    /// The latest `madeAt` applied.
    package private(set) var updatedAt: Double

    /// Work with nothing recorded, for the operation's assignment and attempt.
    package init(startingWith operation: SyncOperation) {
        assignmentIdentifier = operation.assignmentIdentifier
        assignment = operation.assignment
        attempt = operation.attempt
        updatedAt = operation.madeAt
    }

    /// Merges an operation in. One for an earlier attempt changes nothing; one for a later attempt
    /// starts the work again (the student started the document over), as does a snapshot
    /// (``SyncOperation/replacesWork``), which then holds all there is.
    package mutating func apply(_ operation: SyncOperation) {
        apply(contentsOf: CollectionOfOne(operation))
    }

    /// Merges operations in, in order, as ``apply(_:)`` one at a time would, in time linear in
    /// the work held and the operations: spans and items are found by id, the ranges united once.
    /// Operations of another assignment change nothing.
    package mutating func apply(contentsOf operations: some Sequence<SyncOperation>) {
        var merging = Merging(self)
        for operation in operations where operation.assignmentIdentifier == assignmentIdentifier {
            merging.apply(operation)
        }
        self = merging.finished()
    }

    /// How many spans, progress ranges and items a piece of work holds.
    package struct Size: Sendable, Equatable {
        package var spans: Int
        package var ranges: Int
        package var items: Int
    }

    /// The most the work could hold after `operations`, counted without merging them, so that a
    /// server can refuse work past its limits before doing any: spans and items by their ids (in
    /// time linear in the work and the operations), ranges by the union of those held and sent
    /// under the basis they would be measured by (a sort of them).
    package func size(after operations: some Sequence<SyncOperation>) -> Size {
        var attempt = self.attempt
        var spanIDs = Set(spans.map(\.id))
        var itemIDs = Set(items.map(\.identifier))
        var ranges = self.ranges
        var basis = progressBasis
        for operation in operations where operation.assignmentIdentifier == assignmentIdentifier {
            if operation.replacesWork || operation.attempt > attempt {
                attempt = operation.attempt
                spanIDs = []
                itemIDs = []
                ranges = []
                basis = nil
            } else if operation.attempt < attempt {
                continue
            }
            if let change = operation.progressBasisChange,
                ProgressBasisChange(basis: change.basis.map(ProgressBasis.init(rawValue:)), restarts: change.restarts)
                    .clearsRanges(measuredUnder: basis)
            {
                ranges = []
                basis = change.basis
            }
            for id in operation.discardedSpans { spanIDs.remove(id) }
            for span in operation.spans { spanIDs.insert(span.id) }
            if basis == operation.rangesBasis { ranges += operation.ranges }
            if operation.removesAllItems { itemIDs = [] }
            for identifier in operation.deletedItems { itemIDs.remove(identifier) }
            for item in operation.items { itemIDs.insert(item.identifier) }
        }
        let united = IntervalSet(ranges.map { $0.lower...max($0.lower, $0.upper) }).intervals.count
        return Size(spans: spanIDs.count, ranges: united, items: itemIDs.count)
    }

    /// Work being merged: spans and items by id, ranges gathered to be united at the end.
    private struct Merging {
        var work: WorkState
        var spans: [String: SyncOperation.Span]
        var ranges: [SyncOperation.Range]
        var items: [String: SyncOperation.Item]
        /// The identifiers of the primary items held (one, unless the stored work held more).
        var primaries: Set<String>

        init(_ work: WorkState) {
            self.work = work
            spans = Dictionary(work.spans.map { ($0.id, $0) }, uniquingKeysWith: { _, later in later })
            ranges = work.ranges
            items = Dictionary(work.items.map { ($0.identifier, $0) }, uniquingKeysWith: { _, later in later })
            primaries = Set(work.items.filter(\.isPrimary).map(\.identifier))
        }

        mutating func apply(_ operation: SyncOperation) {
            // The statement is of the assignment, not of an attempt's work: it outlives a new
            // start, and the later one stands.
            var statement = work.aiStatement
            if let stated = operation.aiStatement, stated.statedAt >= statement?.statedAt ?? -.infinity { statement = stated }
            defer { work.aiStatement = statement }
            if operation.replacesWork || operation.attempt > work.attempt {
                self = Merging(WorkState(startingWith: operation))
            } else if operation.attempt < work.attempt {
                return
            }
            work.assignment = operation.assignment
            work.updatedAt = max(work.updatedAt, operation.madeAt)
            mergeSpans(of: operation)
            mergeProgress(of: operation)
            mergeItems(of: operation)
            if let date = operation.completedAt { work.completedAt = min(work.completedAt ?? date, date) }
            if let date = operation.evidenceWithdrawnAt { work.evidenceWithdrawnAt = min(work.evidenceWithdrawnAt ?? date, date) }
            if let notes = operation.notes { work.notes = notes }
            if let dictated = operation.dictatedSessions, !dictated.isEmpty {
                work.dictatedSessions = Set((work.dictatedSessions ?? []) + dictated).sorted()
            }
        }

        /// Spans by id: a stop is never undone; the later stop and pulse win; the start stays.
        private mutating func mergeSpans(of operation: SyncOperation) {
            for id in operation.discardedSpans { spans[id] = nil }
            for span in operation.spans {
                guard let held = spans[span.id] else {
                    spans[span.id] = span
                    continue
                }
                let merged = SpanRecord(held).merged(with: SpanRecord(span))
                spans[span.id] = SyncOperation.Span(
                    id: merged.id, start: held.start, end: merged.end, lastPulse: merged.lastPulse,
                    session: merged.session)
            }
        }

        private mutating func mergeProgress(of operation: SyncOperation) {
            if let change = operation.progressBasisChange {
                let basisChange = ProgressBasisChange(basis: change.basis.map(ProgressBasis.init(rawValue:)), restarts: change.restarts)
                if basisChange.clearsRanges(measuredUnder: work.progressBasis) {
                    ranges = []
                    work.progressBasis = change.basis
                }
            }
            guard !operation.ranges.isEmpty, work.progressBasis == operation.rangesBasis else { return }
            ranges += operation.ranges
        }

        /// Removals first, as a save writes them, then the items added or changed, each replacing
        /// the one held: operations come in the order the store committed them, so the last writer
        /// wins as it does in the store.
        private mutating func mergeItems(of operation: SyncOperation) {
            if operation.removesAllItems {
                items = [:]
                primaries = []
            }
            if operation.clearsPrimary {
                for identifier in primaries { items[identifier] = nil }
                primaries = []
            }
            for identifier in operation.deletedItems {
                items[identifier] = nil
                primaries.remove(identifier)
            }
            for item in operation.items {
                var newer = item
                if let held = items[item.identifier] { newer.createdAt = held.createdAt }
                items[item.identifier] = newer
                if item.isPrimary {
                    for identifier in primaries where identifier != item.identifier { items[identifier] = nil }
                    primaries = [item.identifier]
                } else {
                    primaries.remove(item.identifier)
                }
            }
        }

        /// The work, its spans sorted by start, its ranges united, its items in the order made.
        func finished() -> WorkState {
            var work = work
            work.spans = spans.values.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
            work.ranges = IntervalSet(ranges.map { $0.lower...max($0.lower, $0.upper) }).intervals
                .map { SyncOperation.Range(lower: $0.lowerBound, upper: $0.upperBound) }
            work.items = items.values.sorted { ($0.createdAt, $0.identifier) < ($1.createdAt, $1.identifier) }
            return work
        }
    }

    // MARK: What people see

    /// Active seconds: the union of the spans, a running span up to its last pulse, as the
    /// student's own report counts it (``CLSActivity/recordedDuration(since:)``).
    package var activeSeconds: Double { SpanRecord.measure(of: spans.map(SpanRecord.init)) }

    /// Progress, 0…1: the measure of the united ranges, as ``CLSActivity/progress``.
    package var progress: Double { min(1, max(0, ranges.reduce(0) { $0 + ($1.upper - $1.lower) })) }

    /// The sessions a person sees, joined as ``CLSActivity/workSessions`` joins them.
    package var sessions: [WorkSession] {
        CLSActivity.sessions(of: spans.map { CLSActivity.timeSpan(SpanRecord($0)) })
    }

    /// The identifier of each of ``sessions``, as the student's store names it
    /// (``CLSActivity/workSessionIdentifiers``): what notes and dictation marks name.
    package var sessionIdentifiers: [String] {
        CLSActivity.sessionIdentifiers(ofSorted: spans.map(SpanRecord.init))
    }
}

extension SpanRecord {
    init(_ span: SyncOperation.Span) {
        self.init(id: span.id, start: span.start, end: span.end, lastPulse: span.lastPulse, owner: nil, session: span.session)
    }
}
