/// The changes made to an activity since its last save, each stamped with a sequence number.
///
/// A save writes everything up to some sequence number; changes made while the save runs get higher
/// numbers and stay pending, and a failed save leaves everything pending.
struct PendingChanges: Sendable {
    /// Span id → sequence number of its last local change.
    var spans: [String: Int] = [:]
    var ranges: [(range: ClosedRange<Double>, sequence: Int)] = []
    /// A new progress basis and the sequence number of its change.
    var progressBasis: (change: ProgressBasisChange, sequence: Int)?
    var removesAllItems: Int?
    var clearsPrimary: Int?
    /// Item identifier → sequence number of its last local change.
    var upserts: [String: Int] = [:]
    var deletions: [String: Int] = [:]
    /// Saved spans to remove (``CLSActivity/discardStart()``), by id, with their sequence numbers.
    var discardedSpans: [String: Int] = [:]
    /// Set by ``CLSActivity/beginHistoryFromNothing()``, with its sequence number.
    var beginsHistoryFromNothing: Int?
    /// Set by ``CLSActivity/recordHistoryAtNextSave()``, with its sequence number.
    var recordsHistory: Int?
    /// Set by ``CLSActivity/markSessionDictated()``, with its sequence number.
    var marksDictation: Int?
    /// A bad value given to a setter that cannot throw; the next save throws it.
    var error: CLSError?

    var isEmpty: Bool {
        spans.isEmpty && ranges.isEmpty && progressBasis == nil && removesAllItems == nil && clearsPrimary == nil
            && upserts.isEmpty && deletions.isEmpty && discardedSpans.isEmpty && beginsHistoryFromNothing == nil
            && recordsHistory == nil && marksDictation == nil && error == nil
    }

    /// Forgets every change a save has written.
    mutating func prune(through sequence: Int) {
        spans = spans.filter { $0.value > sequence }
        ranges.removeAll { $0.sequence <= sequence }
        if let stamp = progressBasis?.sequence, stamp <= sequence { progressBasis = nil }
        if let stamp = removesAllItems, stamp <= sequence { removesAllItems = nil }
        if let stamp = clearsPrimary, stamp <= sequence { clearsPrimary = nil }
        upserts = upserts.filter { $0.value > sequence }
        deletions = deletions.filter { $0.value > sequence }
        discardedSpans = discardedSpans.filter { $0.value > sequence }
        if let stamp = beginsHistoryFromNothing, stamp <= sequence { beginsHistoryFromNothing = nil }
        if let stamp = recordsHistory, stamp <= sequence { recordsHistory = nil }
        if let stamp = marksDictation, stamp <= sequence { marksDictation = nil }
    }
}
