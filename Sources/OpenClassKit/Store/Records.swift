import Foundation
import ProgramBasics

/// Which slot of an activity an item fills.
enum ItemRole: String, Sendable {
    case primary
    case additional
}

/// The value of an activity item, one case per subclass.
enum ItemValue: Sendable, Equatable {
    case quantity(Double)
    case score(Double, maxScore: Double)
    case binary(Bool, CLSBinaryValueType)

    /// The name stored in the `kind` column and shown to people.
    var kind: String { itemKind.rawValue }

    var itemKind: ItemKind {
        switch self {
        case .quantity: .quantity
        case .score: .score
        case .binary: .binary
        }
    }
}

/// One activity item as stored.
struct ItemRecord: Sendable, Equatable {
    var identifier: String
    var title: String
    var role: ItemRole
    var value: ItemValue
    var createdAt: Double
    var modifiedAt: Double
}

/// One time span as stored. Times are seconds since 1970.
struct SpanRecord: Sendable, Equatable {
    var id: String
    var start: Double
    var end: Double?
    var lastPulse: Double
    /// The process that runs the span; nil once the span has ended or was handed over.
    var owner: ProcessIdentity?
    /// The session the span goes on with after a pause (the identifier of that session's first
    /// span); nil for a span that begins a session.
    var session: String? = nil
    /// The editor run that began the span (``CLSDataStore/parentEditorRun``), when one was named:
    /// a later open from the same run goes on with its session.
    var editorRun: String? = nil
    /// True for the span an editor's open began, until the session's first input: a session's
    /// time counts from its first input, so the span ends where it began when input comes (a
    /// span from the input goes on with its session) or when the session closes without any.
    var awaitsInput = false

    /// Combines two versions of one span the way concurrent saves must: a stop is never undone,
    /// the later stop and the later pulse win, and input once seen stays seen.
    func merged(with other: SpanRecord) -> SpanRecord {
        var result = self
        switch (end, other.end) {
        case (nil, let theirs): result.end = theirs
        case (let mine?, let theirs?): result.end = max(mine, theirs)
        case (_, nil): break
        }
        result.lastPulse = max(lastPulse, other.lastPulse)
        result.owner = result.end == nil ? (other.owner ?? owner) : nil
        result.session = session ?? other.session
        result.editorRun = editorRun ?? other.editorRun
        result.awaitsInput = awaitsInput && other.awaitsInput
        return result
    }

    /// The measure of the union of some spans after `from` (seconds since 1970); running spans
    /// end at `runningSpansEnd`, or at their last pulse when it is nil, and one that awaits its
    /// session's first input where it began.
    static func measure(of spans: some Sequence<SpanRecord>, since from: Double = -.infinity, runningSpansEnd: Double? = nil) -> Double {
        IntervalSet(
            spans.compactMap { span -> ClosedRange<Double>? in
                let runningEnd = span.awaitsInput ? span.start : runningSpansEnd ?? span.lastPulse
                let end = max(span.start, span.end ?? runningEnd)
                return end > from ? max(span.start, from)...end : nil
            }
        ).measure
    }
}

extension SpanRecord {
    /// A span to measure, from the form ``CLSActivity/timeSpans`` gives.
    init(_ span: TimeSpan) {
        self.init(
            id: "", start: span.start.timeIntervalSince1970, end: span.end?.timeIntervalSince1970,
            lastPulse: span.lastPulse.timeIntervalSince1970, owner: nil)
    }
}

/// An activity and everything it holds, read from the store in one transaction.
struct ActivityRecord: Sendable {
    var activityID: Int64
    var contextID: Int64
    /// The parent of the activity's context; nil for the main app context.
    var contextParentID: Int64?
    /// The file of a document context made from a file; nil for the app's own contexts.
    var file: FileIdentity?
    /// The title of the file's context, when read (a single activity's load reads it; views do not).
    var contextTitle: String? = nil
    /// The activity's context and its ancestors, root first, for every context but a plain file
    /// context under the main app context (for those it is empty: their place is known).
    var contextChain: [ContextRecord] = []
    var createdAt: Double
    var modifiedAt: Double
    /// What the progress ranges measure; nil when unnamed.
    var progressBasis: String?
    var spans: [SpanRecord]
    var ranges: [ClosedRange<Double>]
    var items: [ItemRecord]
}

/// What one save writes for one activity.
struct ActivityChanges: Sendable {
    var activityID: Int64
    var spans: [SpanRecord] = []
    /// A new basis for the progress: the stored ranges go unless they already measure it.
    var progressBasis: ProgressBasisChange?
    var ranges: [ClosedRange<Double>] = []
    /// What `ranges` measure: they are dropped when the stored basis became another meanwhile.
    var rangesBasis: ProgressBasis?
    /// The activity's `modified_at` the changes were made on; when the store still has it, no
    /// other writer came between.
    var expectedModifiedAt = 0.0
    var removesAllItems = false
    var clearsPrimary = false
    var deletions: [String] = []
    var upserts: [ItemRecord] = []
    /// Ids of spans to remove.
    var discardedSpans: [String] = []
    /// True when the history's start, if this save writes it, holds no text (the file did not
    /// exist when its first session began).
    var beginsHistoryFromNothing = false
    /// True when the save writes a history row of the running session whether or not one is due
    /// (the file was saved: its text is kept as saved).
    var recordsHistory = false
    /// True when the sessions of the spans this save writes were recorded with dictation.
    var marksDictation = false

    var isEmpty: Bool {
        spans.isEmpty && progressBasis == nil && ranges.isEmpty && !removesAllItems && !clearsPrimary && deletions.isEmpty
            && upserts.isEmpty && discardedSpans.isEmpty && !beginsHistoryFromNothing && !recordsHistory && !marksDictation
    }
}

/// A change of what an activity's progress measures.
struct ProgressBasisChange: Sendable, Equatable {
    var basis: ProgressBasis?
    /// True when the stored ranges go even if they measure the same basis.
    var restarts = false

    /// Whether the ranges measured under `storedBasis` go: a restart or another basis starts the
    /// progress again. The store and a class server's copy of the work (``WorkState``) both ask.
    func clearsRanges(measuredUnder storedBasis: String?) -> Bool {
        restarts || storedBasis != basis?.rawValue
    }
}
