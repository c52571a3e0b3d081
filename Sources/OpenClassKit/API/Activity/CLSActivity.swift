import Foundation
import ProgramBasics
internal import NIOConcurrencyHelpers
internal import Synchronization

/// The work a person does on one file: time spent, progress, and the items that measure it.
///
/// Fetch the activity of a file from the data store, change it, and save the store:
///
/// ```swift
/// let activity = try await CLSDataStore.shared.fetchActivity(for: fileURL)
/// activity.start()
/// try await CLSDataStore.shared.save()
/// ```
///
/// Nothing reaches the store until ``CLSDataStore/save()``. Within one data store a file has one
/// activity instance, so changes through any reference are saved together.
///
/// `@unchecked Sendable`: all mutable state sits in `state`, guarded by its lock (`NIOLockedValueBox`).
public final class CLSActivity: CLSObject, @unchecked Sendable {
    /// The context this activity belongs to: a file's, or one of the app's.
    public let context: CLSContext
    /// The root of the context's tree, held so that the context's ancestors (held by their
    /// parents, each context holding its parent weakly) live as long as the activity does.
    private let root: CLSContext
    /// The activity's row; 0 for a new attempt not saved yet.
    private let row: Synchronization.Atomic<Int64>
    /// The tracker of the data store, for an activity read from one; nil for a new attempt, which
    /// uses the tracker of its context's tree (it may join one after it was made).
    private let storeTracker: ChangeTracker?

    var activityID: Int64 { row.load(ordering: .acquiring) }

    private var tracker: ChangeTracker? { storeTracker ?? context.tree?.instances.tracker }

    struct State {
        var spans: [SpanRecord] = []
        /// Set by ClassKit's ``CLSActivity/start()``: each save of the data store counts as a sign
        /// of work on the spans this process runs, until ``CLSActivity/stop()``.
        var pulsesOnSave = false
        var ranges = IntervalSet()
        var progressBasis: ProgressBasis?
        /// The store's `modified_at` when this view last matched it: a save that finds it
        /// unchanged knows no other writer came between, and need not read the activity back.
        var storedModifiedAt = 0.0
        var primary: CLSActivityItem?
        var additional: [CLSActivityItem] = []
        var pending = PendingChanges()
        var sequence = 0

        mutating func nextSequence() -> Int {
            sequence += 1
            return sequence
        }

        /// The spans changed since the last save, oldest first. Searched from the newest, where
        /// changes are, and no further than the last of them: a file with 10,000 sessions does
        /// not hash 10,000 identifiers on every save.
        var changedSpans: [SpanRecord] {
            var remaining = pending.spans.count
            var changed: [SpanRecord] = []
            for span in spans.reversed() {
                guard remaining > 0 else { break }
                if pending.spans[span.id] != nil {
                    changed.append(span)
                    remaining -= 1
                }
            }
            return changed.reversed()
        }
    }

    let state = NIOLockedValueBox(State())

    init(record: ActivityRecord, context: CLSContext, tracker: ChangeTracker) {
        self.context = context
        root = context.root
        row = Atomic(record.activityID)
        storeTracker = tracker
        super.init(created: Date(timeIntervalSince1970: record.createdAt))
        apply(record)
    }

    /// A new attempt of a context, written by the next save (``CLSContext/createNewActivity()``).
    init(newAttemptOf context: CLSContext) {
        self.context = context
        root = context.root
        row = Atomic(0)
        storeTracker = nil
        super.init(created: Date())
        changed()
    }

    /// Whether the activity is a new attempt that no save wrote yet.
    var isUnsaved: Bool { activityID == 0 }

    /// Takes the row a save made for a new attempt.
    func didCreate(_ record: ActivityRecord) {
        row.store(record.activityID, ordering: .releasing)
        apply(record)
    }

    // MARK: Time

    /// Whether a time span is running, started here or in another process.
    public var isStarted: Bool {
        state.withLockedValue { $0.spans.contains { $0.end == nil } }
    }

    /// Takes back the start of the running spans this process began: they are removed, as if the
    /// work never started, for a start that turned out to be none (an editor that could not run).
    /// A span already saved is removed from the store by the next save. Not part of ClassKit.
    public func discardStart() {
        let me = ProcessIdentity.current
        let discarded = state.withLockedValue { state -> Bool in
            let running = state.spans.filter { $0.end == nil && $0.owner == me }
            guard !running.isEmpty else { return false }
            state.spans.removeAll { $0.end == nil && $0.owner == me }
            for span in running {
                state.pending.spans[span.id] = nil
                state.pending.discardedSpans[span.id] = state.nextSequence()
            }
            state.pulsesOnSave = false
            return true
        }
        if discarded { changed() }
    }

    /// Makes the writing history begin from no text: the row of its first session's start, which
    /// the next save writes, holds an empty file and no words, for a file that did not exist when
    /// that session began (an editor's new file, recorded once first written). Not part of ClassKit.
    package func beginHistoryFromNothing() {
        state.withLockedValue { $0.pending.beginsHistoryFromNothing = $0.nextSequence() }
        changed()
    }

    /// Makes the next save write a row of the writing history, with a snapshot of the file, even
    /// when none is due: the editor saved the file, and the history keeps each saved text. Not part
    /// of ClassKit.
    package func recordHistoryAtNextSave() {
        state.withLockedValue { $0.pending.recordsHistory = $0.nextSequence() }
        changed()
    }

    /// Marks the session of the spans the next save writes (one started, pulsed or stopped) as
    /// written by dictation or an input method: its input is typed, never pasted. Not part of ClassKit.
    package func markSessionDictated() {
        state.withLockedValue { $0.pending.marksDictation = $0.nextSequence() }
        changed()
    }

    /// Records a pulse now when the activity was started with ``start()`` and runs: what a save
    /// of the data store does to it.
    func pulseForSave() {
        guard state.withLockedValue({ $0.pulsesOnSave && $0.spans.contains { $0.end == nil } }) else { return }
        recordPulse()
    }

    /// The time spent: the measure of the union of all spans, so overlapping spans count once.
    /// A running span counts up to now.
    public var duration: TimeInterval {
        duration(since: .distantPast)
    }

    /// The time spent since a date: the measure of the union of all spans, cut at `date`.
    /// - Parameter date: Where counting begins.
    public func duration(since date: Date) -> TimeInterval {
        measure(since: date, runningSpansEnd: Date().timeIntervalSince1970)
    }

    /// The time recorded since a date: like ``duration(since:)``, but a running span counts up to
    /// its last pulse, not up to now. This is what reports show of a running session: it never
    /// includes idle minutes that a later stop would take back. Not part of ClassKit.
    /// - Parameter date: Where counting begins; the beginning of time by default.
    public func recordedDuration(since date: Date = .distantPast) -> TimeInterval {
        measure(since: date, runningSpansEnd: nil)
    }

    /// The measure of the union of the spans after `date`; running spans end at `runningSpansEnd`,
    /// or at their last pulse when it is nil.
    private func measure(since date: Date, runningSpansEnd: Double?) -> TimeInterval {
        let from = date.timeIntervalSince1970
        return state.withLockedValue { state in
            SpanRecord.measure(of: state.spans, since: from, runningSpansEnd: runningSpansEnd)
        }
    }

    /// The sessions as a person sees them, oldest first: each run of an editor on the file, with
    /// the spans it went on with after pauses longer than the idle timeout. Spans that overlap
    /// (two editors at once, or work recorded before sessions were told apart, when a file opened
    /// again within the idle timeout went on with the span before) are one session too. A running
    /// session ends at nil. Not part of ClassKit.
    public var workSessions: [WorkSession] {
        Self.sessions(of: timeSpans)
    }

    /// Spans, oldest first, gathered into sessions: a span that continues a session joins the one
    /// before it, and so does a span that begins before the one before it ends. What
    /// ``workSessions`` and a class server's copy of the work (``WorkState``) both show.
    static func sessions(of spans: [TimeSpan]) -> [WorkSession] {
        sessionGroups(of: spans).map { range in
            let group = Array(spans[range])
            let runs = group.contains { $0.end == nil }
            return WorkSession(
                start: group[0].start, end: runs ? nil : group.compactMap(\.end).max(),
                lastPulse: group.map(\.lastPulse).max() ?? group[0].start,
                activeTime: SpanRecord.measure(of: group.map(SpanRecord.init)),
                spanCount: group.count)
        }
    }

    /// Where each session of ``sessions(of:)`` is among the spans, oldest first.
    private static func sessionGroups(of spans: [TimeSpan]) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        // The end of the last group; nil while one of its spans runs.
        var lastEnd: Date?
        for (index, span) in spans.enumerated() {
            if let last = groups.last, span.continuesSession || lastEnd.map({ span.start <= $0 }) == true {
                groups[groups.count - 1] = last.lowerBound..<index + 1
                // A group that runs stays running; an ended one ends at its latest end.
                let groupRuns = lastEnd == nil || span.end == nil
                lastEnd = groupRuns ? nil : lastEnd.map { max($0, span.end ?? $0) }
            } else {
                groups.append(index..<index + 1)
                lastEnd = span.end
            }
        }
        return groups
    }

    /// The identifier of each of ``workSessions``, in their order: the session of its first span,
    /// as the writing history (``WritingHistoryEntry/sessionIdentifier``) and the dictation marks
    /// name it. Not part of ClassKit.
    package var workSessionIdentifiers: [String] {
        Self.sessionIdentifiers(ofSorted: state.withLockedValue { $0.spans.sorted { ($0.start, $0.id) < ($1.start, $1.id) } })
    }

    /// The identifier of each session of spans sorted by start and id: the session of its
    /// first span, or that span's id.
    static func sessionIdentifiers(ofSorted sorted: [SpanRecord]) -> [String] {
        sessionGroups(of: sorted.map(timeSpan)).map { sorted[$0.lowerBound].session ?? sorted[$0.lowerBound].id }
    }

    /// The editor runs of the running spans (nil for a span no editor run began), for a recorder
    /// that tells an open of another run from one of the run that has the session. Not part of ClassKit.
    package var runningEditorRuns: [String?] {
        state.withLockedValue { $0.spans.filter { $0.end == nil }.map(\.editorRun) }
    }

    /// Every time span, oldest first.
    public var timeSpans: [TimeSpan] {
        state.withLockedValue { state in
            // Ties broken by id, as a class server's copy sorts them (``WorkState``).
            state.spans.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.map(Self.timeSpan)
        }
    }

    static func timeSpan(_ span: SpanRecord) -> TimeSpan {
        TimeSpan(
            start: Date(timeIntervalSince1970: span.start),
            end: span.end.map(Date.init(timeIntervalSince1970:)),
            lastPulse: Date(timeIntervalSince1970: span.lastPulse),
            continuesSession: span.session != nil)
    }

    /// Starts a time span. Does nothing when this process already runs one for this activity.
    ///
    /// Until ``stop()``, every save of the data store counts as a sign of work (a pulse, see
    /// ``recordPulse(at:idleTimeout:)``), so that when the process dies without stopping, the
    /// time is kept up to its last save rather than lost.
    public func start() {
        beginSpan(at: Date(), joiningWithin: nil, pulsesOnSave: true)
    }

    /// Starts a session at `date`: a time span that goes on with no earlier one, however recently
    /// that ended, since a session is one run of one editor and the time between two runs is
    /// never work. When `editorRun` names the editor run whose session on this file was the last
    /// (a buffer left and entered again in one editor), the span goes on with that session
    /// instead; the time between is not counted either way. Does nothing when this process
    /// already runs a span for this activity. Not part of ClassKit.
    /// - Parameters:
    ///   - date: When the work starts.
    ///   - editorRun: Names the running editor process (see ``CLSDataStore/parentEditorRun``);
    ///     nil for a session of its own.
    public func start(at date: Date, inEditorRun editorRun: String? = nil) {
        beginSpan(at: date, joiningWithin: nil, editorRun: editorRun, pulsesOnSave: false)
    }

    /// Starts a time span at `date`, or, when the latest span ended at most `idleTimeout` before
    /// `date`, at that span's end, in the same session, so that work resumed within the idle
    /// timeout is one unbroken stretch. Does nothing when this process already runs a span for
    /// this activity. Not part of ClassKit.
    /// - Parameters:
    ///   - date: When the work starts again.
    ///   - idleTimeout: The longest gap between two stretches of work that still joins them.
    public func start(at date: Date, continuingWithin idleTimeout: TimeInterval) {
        beginSpan(at: date, joiningWithin: idleTimeout, editorRun: nil, pulsesOnSave: false)
    }

    /// Opens a session at `date` whose time counts from its first input: as
    /// ``start(at:inEditorRun:)``, but the span begun here counts nothing until a pulse (see
    /// ``recordPulse(at:idleTimeout:)``) brings the first input, and the time from there on is
    /// the session's. A session closed before any input has no time. What an editor's open is:
    /// the editor starting, and the person reading the screen before the first key, are not work.
    /// Not part of ClassKit.
    /// - Parameters:
    ///   - date: When the file was opened.
    ///   - editorRun: Names the running editor process, as for ``start(at:inEditorRun:)``.
    package func open(at date: Date, inEditorRun editorRun: String?) {
        beginSpan(at: date, joiningWithin: nil, editorRun: editorRun, pulsesOnSave: false, awaitingInput: true)
    }

    private func beginSpan(
        at date: Date, joiningWithin idleTimeout: TimeInterval?, editorRun: String? = nil, pulsesOnSave: Bool,
        awaitingInput: Bool = false
    ) {
        let time = date.timeIntervalSince1970
        let me = ProcessIdentity.current
        let started = state.withLockedValue { state -> Bool in
            state.pulsesOnSave = pulsesOnSave
            guard !state.spans.contains(where: { $0.end == nil && $0.owner == me }) else { return false }
            var start = time, session: String?
            // The span that ended last by then, found in one pass: a long history holds thousands.
            var last: (span: SpanRecord, end: Double)?
            for span in state.spans {
                if let end = span.end, end <= time, end > last?.end ?? -.infinity { last = (span, end) }
            }
            if let idleTimeout, let last, time - last.end <= idleTimeout {
                (start, session) = (last.end, last.span.session ?? last.span.id)
            } else if let editorRun, let last = state.spans.max(by: { ($0.start, $0.id) < ($1.start, $1.id) }),
                last.editorRun == editorRun, last.end != nil
            {
                session = last.session ?? last.id
            }
            let span = SpanRecord(
                id: UUID().uuidString, start: start, end: nil, lastPulse: time, owner: me, session: session,
                editorRun: editorRun, awaitsInput: awaitingInput)
            state.spans.append(span)
            state.pending.spans[span.id] = state.nextSequence()
            return true
        }
        tracker?.markStarted(self)
        if started { changed() }
    }

    /// Stops the spans this process started; when it runs none, stops the running spans that no
    /// live process owns, so a start saved by one process can be stopped by another.
    public func stop() {
        stop(idleTimeout: nil)
    }

    /// Stops like ``stop()``, at a given time, except that a span idle for longer than `idleTimeout`
    /// ends at its last pulse, so idle time before the stop is not counted.
    /// - Parameters:
    ///   - date: When the work stopped; now by default.
    ///   - idleTimeout: The longest gap between pulses that still counts as work; nil counts every
    ///     second up to `date`.
    public func stop(at date: Date = Date(), idleTimeout: TimeInterval?) {
        let now = date.timeIntervalSince1970
        let stopped = state.withLockedValue { state -> Bool in
            state.pulsesOnSave = false
            let targets = Self.spansToDrive(in: state)
            for index in targets {
                var span = state.spans[index]
                if span.awaitsInput {
                    // No input came: the session has no time.
                    span.end = span.start
                    span.awaitsInput = false
                } else if let idleTimeout, now - span.lastPulse > idleTimeout {
                    span.end = span.lastPulse
                } else {
                    span.end = max(now, span.start)
                    span.lastPulse = max(span.lastPulse, now)
                }
                span.owner = nil
                state.spans[index] = span
                state.pending.spans[span.id] = state.nextSequence()
            }
            return !targets.isEmpty
        }
        if stopped { changed() }
    }

    /// Records a sign of work (a keystroke, a change on disk, an editor event) on the running spans
    /// this process owns, or, when it owns none, on the running spans handed over by processes that
    /// exited. If the process dies, its spans end at their last pulse, not at the crash.
    ///
    /// With an idle timeout, a pulse that comes after a longer gap ends the span at its previous
    /// pulse and starts a new one now: the idle time between is not counted. The first pulse of a
    /// session opened with `open(at:inEditorRun:)` (a recorder's open, not part of ClassKit) does the same whatever the gap: its time
    /// starts at that input (a pulse dated before the open is not the session's, and does
    /// nothing). A pulse on an activity that is not started does nothing. The pulse reaches the
    /// store with the next save.
    /// - Parameters:
    ///   - date: When the work happened; now by default.
    ///   - idleTimeout: The longest gap between pulses that still counts as work; nil for no limit.
    public func recordPulse(at date: Date = Date(), idleTimeout: TimeInterval? = nil) {
        let time = date.timeIntervalSince1970
        let pulsed = state.withLockedValue { state -> Bool in
            let targets = Self.spansToDrive(in: state)
            var resumes = false
            var session: String?, editorRun: String?
            // Spans that waited for input in a session begun before them (a buffer entered again):
            // of no length, they add nothing to a session that already has its start.
            var discarded: [Int] = []
            for index in targets {
                let awaitsInput = state.spans[index].awaitsInput
                if awaitsInput, time < state.spans[index].start { continue }
                if awaitsInput, let continued = state.spans[index].session {
                    discarded.append(index)
                    resumes = true
                    session = session ?? continued
                    editorRun = editorRun ?? state.spans[index].editorRun
                    continue
                }
                if awaitsInput || idleTimeout.map({ time - state.spans[index].lastPulse > $0 }) == true {
                    state.spans[index].end = state.spans[index].lastPulse
                    state.spans[index].awaitsInput = false
                    state.spans[index].owner = nil
                    resumes = true
                    session = session ?? state.spans[index].session ?? state.spans[index].id
                    editorRun = editorRun ?? state.spans[index].editorRun
                } else {
                    state.spans[index].lastPulse = max(state.spans[index].lastPulse, time)
                }
                state.pending.spans[state.spans[index].id] = state.nextSequence()
            }
            for index in discarded.sorted(by: >) {
                let span = state.spans.remove(at: index)
                state.pending.spans[span.id] = nil
                state.pending.discardedSpans[span.id] = state.nextSequence()
            }
            if resumes {
                // The same session goes on after the pause: the pause is not counted.
                let span = SpanRecord(
                    id: UUID().uuidString, start: time, end: nil, lastPulse: time,
                    owner: ProcessIdentity.current, session: session, editorRun: editorRun)
                state.spans.append(span)
                state.pending.spans[span.id] = state.nextSequence()
            }
            return !targets.isEmpty
        }
        if pulsed { changed() }
    }

    /// The running spans a stop or a pulse from this process acts on: its own, else the ones no
    /// process owns any more.
    private static func spansToDrive(in state: State) -> [Int] {
        let me = ProcessIdentity.current
        let running = state.spans.indices.filter { state.spans[$0].end == nil }
        let mine = running.filter { state.spans[$0].owner == me }
        return mine.isEmpty ? running.filter { state.spans[$0].owner == nil } : mine
    }

    // MARK: Progress

    /// How far the work has come, from 0 to 1: the measure of the union of all progress ranges.
    ///
    /// Setting a value adds the range from 0 to that value, so progress set lower than before does
    /// not take back what was reached. Values outside 0…1 are clamped; NaN makes the next save
    /// throw `.invalidArgument`.
    public var progress: Double {
        get { state.withLockedValue { min(1, max(0, $0.ranges.measure)) } }
        set { addRange(lower: 0, upper: newValue, label: "progress") }
    }

    /// Every progress range, merged where they overlap.
    public var progressRanges: [ClosedRange<Double>] {
        state.withLockedValue { $0.ranges.intervals }
    }

    /// What the progress measures, such as a target word count or the share of a document read;
    /// nil when unnamed, as progress set through ClassKit's API is.
    ///
    /// Progress only grows, so estimates of different kinds must not be united: setting a basis
    /// other than the current one clears the progress, and the ranges added afterwards measure
    /// the new basis. Setting the current basis again changes nothing. Not part of ClassKit.
    ///
    /// ```swift
    /// activity.progressBasis = .targetWords
    /// activity.progress = 0.62
    /// ```
    public var progressBasis: ProgressBasis? {
        get { state.withLockedValue { $0.progressBasis } }
        set { changeProgressBasis(to: newValue, restarting: false) }
    }

    /// Clears the progress and names what it measures from now on, even when the basis stays the
    /// same: a new target word count, say, makes the progress toward the old one void. Not part of
    /// ClassKit.
    /// - Parameter basis: What the ranges added afterwards measure.
    public func restartProgress(measuring basis: ProgressBasis?) {
        changeProgressBasis(to: basis, restarting: true)
    }

    private func changeProgressBasis(to basis: ProgressBasis?, restarting: Bool) {
        let changed = state.withLockedValue { state -> Bool in
            guard restarting || state.progressBasis != basis else { return false }
            // A basis changed and changed back before a save still voids the stored ranges.
            let restarts = restarting || state.pending.progressBasis != nil
            state.progressBasis = basis
            state.ranges = IntervalSet()
            state.pending.ranges = []
            state.pending.progressBasis = (ProgressBasisChange(basis: basis, restarts: restarts), state.nextSequence())
            return true
        }
        if changed { self.changed() }
    }

    /// Adds a range of progress, for example the part of a document a person has read.
    ///
    /// Overlapping or repeated ranges count once. Bounds outside 0…1 are clamped; a start after the
    /// end, or NaN, makes the next save throw `.invalidArgument`.
    /// - Parameters:
    ///   - start: Where the range begins, from 0 to 1.
    ///   - end: Where the range ends, from 0 to 1.
    public func addProgressRange(fromStart start: Double, toEnd end: Double) {
        addRange(lower: start, upper: end, label: "progress range")
    }

    private func addRange(lower: Double, upper: Double, label: String) {
        let added = state.withLockedValue { state -> Bool in
            guard !lower.isNaN, !upper.isNaN else {
                state.pending.error = CLSError(
                    .invalidArgument,
                    "\(label) \(lower)…\(upper) for \(context.identifier) is not a number: give values from 0 to 1")
                return true
            }
            let low = min(1, max(0, lower)), high = min(1, max(0, upper))
            guard low <= high else {
                state.pending.error = CLSError(
                    .invalidArgument,
                    "\(label) starts at \(lower) after its end \(upper) for \(context.identifier): give start ≤ end")
                return true
            }
            guard low < high else { return false }
            state.ranges.insert(low...high)
            state.pending.ranges.append((low...high, state.nextSequence()))
            return true
        }
        if added { changed() }
    }

    // MARK: Items

    /// The item that matters most, such as the word count of an essay.
    ///
    /// Once saved, the primary item keeps its subclass: saving a primary item of another subclass
    /// throws `.invalidModification`.
    public var primaryActivityItem: CLSActivityItem? {
        get { state.withLockedValue { $0.primary } }
        set {
            newValue?.attach(to: self)
            state.withLockedValue { state in
                let stamp = state.nextSequence()
                if let item = newValue {
                    state.additional.removeAll { $0.identifier == item.identifier }
                    if let old = state.primary, old.identifier != item.identifier {
                        state.pending.upserts[old.identifier] = nil
                    }
                    state.primary = item
                    state.pending.upserts[item.identifier] = stamp
                    state.pending.deletions[item.identifier] = nil
                } else {
                    if let old = state.primary { state.pending.upserts[old.identifier] = nil }
                    state.primary = nil
                    state.pending.clearsPrimary = stamp
                }
            }
            changed()
        }
    }

    /// The other items, unique by identifier.
    public var additionalActivityItems: [CLSActivityItem] {
        state.withLockedValue { $0.additional }
    }

    /// Adds an item; an item with the same identifier is replaced, so a session that runs twice never
    /// adds the same measurement twice.
    /// - Parameter activityItem: The item to add.
    public func addAdditionalActivityItem(_ activityItem: CLSActivityItem) {
        activityItem.attach(to: self)
        state.withLockedValue { state in
            if state.primary?.identifier == activityItem.identifier { state.primary = nil }
            if let index = state.additional.firstIndex(where: { $0.identifier == activityItem.identifier }) {
                state.additional[index] = activityItem
            } else {
                state.additional.append(activityItem)
            }
            state.pending.upserts[activityItem.identifier] = state.nextSequence()
            state.pending.deletions[activityItem.identifier] = nil
        }
        changed()
    }

    /// Removes the additional item with this identifier, if there is one. Takes effect at the next
    /// save. Not part of ClassKit.
    /// - Parameter identifier: The item's identifier.
    public func removeAdditionalActivityItem(identifier: String) {
        let removed = state.withLockedValue { state -> Bool in
            guard let index = state.additional.firstIndex(where: { $0.identifier == identifier }) else { return false }
            state.additional.remove(at: index)
            state.pending.upserts[identifier] = nil
            state.pending.deletions[identifier] = state.nextSequence()
            return true
        }
        if removed { changed() }
    }

    /// Removes the primary item and every additional item. Takes effect at the next save.
    public func removeAllActivityItems() {
        state.withLockedValue { state in
            state.primary = nil
            state.additional = []
            state.pending.upserts = [:]
            state.pending.deletions = [:]
            state.pending.clearsPrimary = nil
            state.pending.removesAllItems = state.nextSequence()
        }
        changed()
    }

    func itemDidChange(_ item: CLSActivityItem) {
        let belongs = state.withLockedValue { state -> Bool in
            guard state.primary === item || state.additional.contains(where: { $0 === item }) else { return false }
            state.pending.upserts[item.identifier] = state.nextSequence()
            return true
        }
        if belongs { changed() }
    }

    // MARK: Saving

    private func changed() {
        setDates(modified: Date())
        tracker?.markChanged(self)
    }

    /// Hands a new attempt's changes to the tree its context joined after it was made.
    func contextJoined(_ tree: ContextTree) {
        if isUnsaved || hasUnsavedChanges { tree.instances.tracker.markChanged(self) }
    }

    var hasUnsavedChanges: Bool { state.withLockedValue { !$0.pending.isEmpty } || isUnsaved }

    /// The changes to write, and the sequence number they reach; nil when nothing is pending.
    /// - Throws: The bad value a setter recorded, or an item whose value breaks its rules.
    func changesToSave() throws -> (changes: ActivityChanges, sequence: Int)? {
        try state.withLockedValue { state in
            if let error = state.pending.error {
                state.pending.error = nil
                throw error
            }
            guard !state.pending.isEmpty else { return nil }
            var changes = ActivityChanges(activityID: activityID)
            let pending = state.pending
            changes.spans = state.changedSpans
            changes.progressBasis = pending.progressBasis?.change
            changes.expectedModifiedAt = state.storedModifiedAt
            changes.ranges = pending.ranges.map(\.range)
            changes.rangesBasis = state.progressBasis
            changes.removesAllItems = pending.removesAllItems != nil
            changes.clearsPrimary = pending.clearsPrimary != nil
            changes.deletions = Array(pending.deletions.keys)
            changes.discardedSpans = Array(pending.discardedSpans.keys)
            changes.beginsHistoryFromNothing = pending.beginsHistoryFromNothing != nil
            changes.recordsHistory = pending.recordsHistory != nil
            changes.marksDictation = pending.marksDictation != nil
            if let primary = state.primary, pending.upserts[primary.identifier] != nil {
                if let error = primary.validationError { throw error.about(primary) }
                changes.upserts.append(primary.record(role: .primary))
            }
            for item in state.additional where pending.upserts[item.identifier] != nil {
                if let error = item.validationError { throw error.about(item) }
                changes.upserts.append(item.record(role: .additional))
            }
            return (changes, state.sequence)
        }
    }

    /// Takes in what the store holds after a save that wrote everything up to `sequence`; nil
    /// when no other writer came between, so that the store holds this view, stamped `savedAt`.
    func didSave(_ record: ActivityRecord?, through sequence: Int, savedAt: Double) {
        guard let record else {
            state.withLockedValue {
                $0.pending.prune(through: sequence)
                $0.storedModifiedAt = savedAt
            }
            setDates(modified: Date(timeIntervalSince1970: savedAt))
            return
        }
        state.withLockedValue { $0.pending.prune(through: sequence) }
        apply(record)
    }

    /// Drops the changes no save wrote. The view shows them until it is read from the store again,
    /// which the next fetch does: it matches no stored version now.
    func discardUnsavedChanges() {
        state.withLockedValue { state in
            state.pending = PendingChanges()
            state.storedModifiedAt = .nan
        }
    }

    /// Whether this view matches the store's activity as last modified at `modifiedAt`, with
    /// nothing waiting to be saved.
    func matches(storedModifiedAt modifiedAt: Double) -> Bool {
        state.withLockedValue { $0.storedModifiedAt == modifiedAt && $0.pending.isEmpty }
    }

    /// Replaces the view with what the store holds, then lays the still-unsaved changes on top.
    func apply(_ record: ActivityRecord) {
        setDates(modified: Date(timeIntervalSince1970: record.modifiedAt))
        state.withLockedValue { state in
            state.storedModifiedAt = record.modifiedAt
            let pending = state.pending
            var known: [String: CLSActivityItem] = [:]
            if let primary = state.primary { known[primary.identifier] = primary }
            for item in state.additional { known[item.identifier] = item }

            // Spans: stored ones, with local unsaved changes merged in.
            var spans = record.spans
            for local in state.changedSpans {
                if let index = spans.firstIndex(where: { $0.id == local.id }) {
                    spans[index] = spans[index].merged(with: local)
                } else {
                    spans.append(local)
                }
            }
            state.spans = spans

            // A basis changed here and not yet saved makes the stored ranges of another basis void.
            let basis = pending.progressBasis.map(\.change.basis) ?? record.progressBasis.map(ProgressBasis.init(rawValue:))
            let keepsStored = basis?.rawValue == record.progressBasis && pending.progressBasis?.change.restarts != true
            var ranges = IntervalSet(keepsStored ? record.ranges : [])
            for entry in pending.ranges { ranges.insert(entry.range) }
            state.ranges = ranges
            state.progressBasis = basis

            // Items: stored ones (reusing the instances callers hold), then local unsaved changes.
            var primary: CLSActivityItem?
            var additional: [CLSActivityItem] = []
            if pending.removesAllItems == nil {
                for stored in record.items where pending.deletions[stored.identifier] == nil {
                    if stored.role == .primary, pending.clearsPrimary != nil { continue }
                    let item: CLSActivityItem
                    if let existing = known[stored.identifier], existing.itemValue.kind == stored.value.kind {
                        if pending.upserts[stored.identifier] == nil { existing.load(stored) }
                        item = existing
                    } else {
                        item = CLSActivityItem.make(from: stored)
                        item.attach(to: self)
                    }
                    if stored.role == .primary { primary = item } else { additional.append(item) }
                }
            }
            for (identifier, _) in pending.upserts.sorted(by: { $0.value < $1.value }) {
                guard let item = known[identifier] else { continue }
                additional.removeAll { $0.identifier == identifier }
                if primary?.identifier == identifier { primary = nil }
                if state.primary === item { primary = item } else { additional.append(item) }
            }
            state.primary = primary
            state.additional = additional
        }
    }

    public override var description: String {
        "<CLSActivity \(context.identifier) progress=\(progress) duration=\(Int(duration))s>"
    }
}
