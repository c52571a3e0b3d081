import ContentDetectors
import Foundation
import OpenClassKit

/// Records editing sessions: turns editor events into activity time, progress and items.
///
/// A session is what an editor does to a file between open and close. Its active time comes from
/// input only: edits and saves, an event's `inputAt` (the last input the editor saw), and the views
/// of a file being read. It begins at the session's first input and ends at its last; a pause
/// between two inputs counts when it is no longer than the idle timeout (thinking is work). An
/// open, a close and a view of a file being written are not input: the time before the first
/// input (the editor starting) and after the last is open time, and a session without input has
/// no active time. On save and close the file's content is measured: its word count becomes the primary item,
/// readability and other figures additional items, and the progress the detectors estimate is
/// added. Every event is idempotent and tolerates order faults (an edit without an open, two
/// closes).
///
/// ```swift
/// let recorder = SessionRecorder(store: .shared)
/// try await recorder.record(SessionEvent(kind: .open, file: url))
/// try await recorder.record(SessionEvent(kind: .close, file: url))
/// ```
public struct SessionRecorder: Sendable {
    /// Settings of a recorder.
    public struct Configuration: Sendable {
        /// The longest gap between pulses that still counts as work; 5 minutes by default.
        public var idleTimeout: TimeInterval
        /// A word count to measure progress toward; remembered per file once given.
        public var targetWords: Int?
        /// True when files are being read: progress is then the share of their lines viewed;
        /// remembered per file once given.
        public var isReading: Bool
        /// True when the sessions recorded are written by dictation or an input method, false
        /// when not; nil (the default) leaves it to the store's setting (`clsfile settings
        /// --dictation`). Such sessions are marked, and their input counts as typed, never as pasted.
        public var isDictated: Bool?

        /// Creates settings.
        public init(idleTimeout: TimeInterval = 300, targetWords: Int? = nil, isReading: Bool = false, isDictated: Bool? = nil) {
            self.idleTimeout = idleTimeout
            self.targetWords = targetWords
            self.isReading = isReading
            self.isDictated = isDictated
        }

        /// The rule that decides what counts, in words, for summaries and reports.
        public var idleRule: String {
            "gaps over \(Self.describe(idleTimeout)) without input are not counted"
        }

        static func describe(_ seconds: TimeInterval) -> String {
            seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0
                ? "\(Int(seconds / 60)) min" : "\(Int(seconds)) s"
        }
    }

    /// The store events are recorded in.
    public let store: CLSDataStore
    /// The recorder's settings.
    public let configuration: Configuration

    /// Creates a recorder.
    public init(store: CLSDataStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
    }

    /// What recording measured.
    public struct Measurement: Sendable {
        /// The detectors' report at the last save or close; nil when nothing was measured.
        public var report: DocumentReport?
        /// Why a file could not be measured (its time is recorded all the same).
        public var problems: [DetectorError] = []
    }

    /// Applies events in date order and saves once.
    /// - Returns: What was measured at saves and closes.
    /// - Throws: `CLSError` when a file is not a regular file or the store fails; nothing is then saved.
    @discardableResult
    public func record(_ events: [SessionEvent]) async throws -> Measurement {
        var refused: [(event: SessionEvent, error: CLSError)] = []
        let measurement = try await record(events, refused: &refused, recordingTheOthers: false)
        if let first = refused.first { throw first.error }
        return measurement
    }

    /// Applies in date order the events whose files can be recorded and saves once; the others
    /// are refused with their error, before any event changed an activity.
    /// - Parameters:
    ///   - refused: Receives each event whose file cannot be recorded (it is not a regular file, say).
    ///   - recordingTheOthers: Whether the other events are recorded when one is refused; if not,
    ///     nothing is applied or saved then.
    /// - Throws: `CLSError` when the store fails; nothing is then saved.
    func record(
        _ events: [SessionEvent], refused: inout [(event: SessionEvent, error: CLSError)], recordingTheOthers: Bool
    ) async throws -> Measurement {
        var measurement = Measurement()
        // The store's dictation setting, read once, for the first open or close that leaves it to the setting.
        var isDictating: Bool?
        // Each file's activity fetched once, before any event is applied: fetched again with changes
        // unsaved, it would be read again whole, history and all, for every event of a batch; and an
        // event refused after others were applied would leave their changes unsaved in memory.
        var fetched: [[UInt8]: (activity: CLSActivity, fileExists: Bool)] = [:]
        var ready: [(event: SessionEvent, activity: CLSActivity, fileExists: Bool)] = []
        for event in events.sorted(by: { $0.date < $1.date }) {
            let found: (activity: CLSActivity, fileExists: Bool)
            if let held = fetched[event.file.fileSystemPathBytes] {
                found = held
            } else {
                do {
                    found = try await activity(for: event)
                } catch let error as CLSError where error.code == .invalidArgument {
                    refused.append((event, error))
                    continue
                }
                fetched[event.file.fileSystemPathBytes] = found
            }
            ready.append((event, found.activity, found.fileExists))
        }
        guard !ready.isEmpty, refused.isEmpty || recordingTheOthers else { return measurement }
        for (var event, activity, fileExists) in ready {
            // An accepted handout's target or reading applies to plugins' events as to `clsfile open`.
            let assignment = event.kind == .edit || event.kind == .view || !fileExists ? nil : try await store.assignment(for: event.file)
            if event.kind == .open || event.kind == .close || event.input != nil {
                let given = event.isDictated ?? configuration.isDictated
                if given == nil, isDictating == nil { isDictating = try await store.isDictating() }
                if given ?? isDictating ?? false {
                    // Marked in the save that writes the session's span; its input is typed, that
                    // of a close and that which an edit or a save brings before it.
                    activity.markSessionDictated()
                    event.input = event.input?.countedAsTyped
                }
            }
            do {
                if let report = try apply(event, assignment: assignment, to: activity) { measurement.report = report }
            } catch let problem as DetectorError {
                measurement.problems.append(problem)
            }
        }
        try await store.save()
        return measurement
    }

    /// The activity of an event's file. A close of a file that is gone (deleted or renamed while
    /// open) still ends the session that runs on it; its content cannot be measured.
    /// - Throws: `CLSError` `.invalidArgument` when the file is not a regular file and, for a close,
    ///   no session runs on its path.
    private func activity(for event: SessionEvent) async throws -> (activity: CLSActivity, fileExists: Bool) {
        do {
            return (try await store.fetchActivity(for: event.file), true)
        } catch let error as CLSError where error.code == .invalidArgument && event.kind == .close {
            guard let running = try await store.activityRecorded(at: event.file), running.isStarted else { throw error }
            return (running, false)
        }
    }

    /// Applies one event and saves.
    @discardableResult
    public func record(_ event: SessionEvent) async throws -> Measurement {
        try await record([event])
    }

    private func apply(_ event: SessionEvent, assignment: Assignment?, to activity: CLSActivity) throws -> DocumentReport? {
        let givenTarget = event.targetWords ?? configuration.targetWords ?? assignment?.targetWordCount
        remember(
            targetWords: givenTarget,
            isReading: givenTarget == nil && (event.isReading == true || configuration.isReading || assignment?.isReading == true),
            on: activity)
        switch event.kind {
        case .open:
            // A session is one run of one editor: an open never goes on with another run's session.
            // One still running here whose editor is gone (or unnamed) lost its close: it ended at
            // its last sign of work, and the time since is not counted. An open again from the
            // run that has the session, or while another editor that runs has the file open,
            // changes nothing (an open from no named run neither).
            if let run = event.editorRun, activity.isStarted,
                !activity.runningEditorRuns.contains(where: { $0 == run || $0.map(CLSDataStore.isEditorRunning) == true })
            {
                activity.stop(at: event.date, idleTimeout: 0)
            }
            // An open is not input: the session's time starts at its first input.
            if !activity.isStarted, !happenedInEndedSession(event.date, of: activity) {
                activity.open(at: event.date, inEditorRun: event.editorRun)
            }
            if let inputAt = event.inputAt { keepRunning(activity, at: inputAt, editorRun: event.editorRun) }
            guard activity.primaryActivityItem == nil, !isReading(activity) else { return nil }
            if event.fileWasMissing == true {
                // A new file, recorded once first written: its history begins from nothing, and
                // all its text is what this session added.
                activity.beginHistoryFromNothing()
                activity.primaryActivityItem = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
                activity.setQuantity(0, identifier: ItemIdentifier.characters, title: "Characters")
                return nil
            }
            // A file never measured is measured as it opens: the text its history begins from
            // (a handout's, a draft's) is then counted, and not taken for what the session added.
            return try measure(event.file, into: activity)
        case .edit:
            keepRunning(activity, at: event.workDate, editorRun: event.editorRun)
            // A plugin's figures since those it last sent: kept now, not at a close that a crash
            // of the editor would never send.
            if let input = event.input { record(input, on: activity) }
            return nil
        case .view:
            // A view goes on with a session but starts none: an editor run by `clsfile open` sends
            // views of its file, which that command times, and a view can come in after a close.
            // It is input at the input it carries, and in a file being read (what is shown
            // changed: a page turned) at its own date too; an editor's first view is no input.
            if activity.isStarted, let inputAt = event.inputAt ?? (isReading(activity) ? event.date : nil) {
                keepRunning(activity, at: inputAt, editorRun: event.editorRun)
            }
            if let range = event.viewedRange, isReading(activity), targetWords(of: activity) == nil {
                activity.progressBasis = .viewedShare
                activity.addProgressRange(fromStart: range.start, toEnd: range.end)
            }
            return nil
        case .save:
            keepRunning(activity, at: event.workDate, editorRun: event.editorRun)
            if let input = event.input { record(input, on: activity) }
            // The history keeps each saved text, so that a replay between a save and the close
            // shows what was saved.
            activity.recordHistoryAtNextSave()
            return try measure(event.file, into: activity)
        case .close:
            // The last input is the session's last sign of work: the close is none, and the span
            // ends at that input (a session without input has no time). Stop first: a file that
            // cannot be measured still closes its session.
            if let inputAt = event.inputAt, activity.isStarted {
                activity.recordPulse(at: inputAt, idleTimeout: configuration.idleTimeout)
            }
            // A plugin's own open time, unless it claims a time after the close; else the
            // running session's start (its open).
            let opened =
                event.openedAt.flatMap { $0 <= event.date ? $0 : nil }
                ?? activity.workSessions.last(where: \.isRunning)?.start
            activity.stop(at: event.date, idleTimeout: 0)
            if let opened { addOpenTime(event.date.timeIntervalSince(opened), to: activity) }
            if let input = event.input { record(input, on: activity) }
            if let timing = event.timing {
                activity.setQuantity(timing.code, identifier: ItemIdentifier.timingSource, title: "Timing Source")
            }
            return try measure(event.file, into: activity)
        }
    }

    /// Extends the running session with a pulse, or starts a new one, which goes on with the last
    /// session when the same editor run had it (a buffer left and entered again): time with the
    /// file closed is never work, however short.
    private func keepRunning(_ activity: CLSActivity, at date: Date, editorRun: String?) {
        if activity.isStarted {
            activity.recordPulse(at: date, idleTimeout: configuration.idleTimeout)
        } else if !happenedInEndedSession(date, of: activity) {
            activity.start(at: date, inEditorRun: editorRun)
        }
    }

    /// Whether an event that comes in after its session closed (a late hook, a spooled event)
    /// happened in time already recorded: it then starts nothing.
    private func happenedInEndedSession(_ date: Date, of activity: CLSActivity) -> Bool {
        activity.timeSpans.compactMap(\.end).max().map { date <= $0 } ?? false
    }

    /// Keeps a target word count or the reading flag on the file, for later sessions; the newest
    /// one given wins, and a new target starts the progress over.
    private func remember(targetWords: Int?, isReading: Bool, on activity: CLSActivity) {
        if let targetWords, targetWords > 0, activity.quantity(of: ItemIdentifier.targetWords) != Double(targetWords) {
            if activity.quantity(of: ItemIdentifier.targetWords) != nil { activity.restartProgress(measuring: .targetWords) }
            activity.setQuantity(Double(targetWords), identifier: ItemIdentifier.targetWords, title: "Target Words")
            setReading(false, on: activity)
        }
        if isReading, !self.isReading(activity) {
            activity.removeAdditionalActivityItem(identifier: ItemIdentifier.targetWords)
            setReading(true, on: activity)
        }
    }

    private func setReading(_ value: Bool, on activity: CLSActivity) {
        guard self.isReading(activity) != value else { return }
        let reading = CLSBinaryItem(identifier: ItemIdentifier.reading, title: "Reading", type: .yesNo)
        reading.value = value
        activity.addAdditionalActivityItem(reading)
    }

    private func isReading(_ activity: CLSActivity) -> Bool {
        (activity.additionalActivityItems.first { $0.identifier == ItemIdentifier.reading } as? CLSBinaryItem)?.value == true
    }

    /// Adds what a session's plugin or terminal relay counted to the file's items.
    private func record(_ input: SessionEvent.InputFigures, on activity: CLSActivity) {
        if let typed = input.typed {
            activity.addToQuantity(Double(typed), identifier: ItemIdentifier.typedCharacters, title: "Typed Characters")
        }
        if let pasted = input.pasted {
            activity.addToQuantity(Double(pasted), identifier: ItemIdentifier.pastedCharacters, title: "Pasted Characters")
        }
        if let moved = input.moved {
            activity.addToQuantity(Double(moved), identifier: ItemIdentifier.movedCharacters, title: "Moved Characters (own text)")
        }
        if let keys = input.keysPressed {
            activity.addToQuantity(Double(keys), identifier: ItemIdentifier.keysPressed, title: "Keys Pressed (commands included)")
        }
        if let largestPaste = input.largestPaste, largestPaste > 0 {
            activity.setQuantity(
                max(activity.quantity(of: ItemIdentifier.largestPaste) ?? 0, Double(largestPaste)),
                identifier: ItemIdentifier.largestPaste, title: "Largest Paste (characters)")
        }
        if let growth = input.largestGrowth {
            activity.setQuantity(
                max(activity.quantity(of: ItemIdentifier.largestGrowth) ?? 0, Double(growth)),
                identifier: ItemIdentifier.largestGrowth, title: "Largest Growth of the File between Saves (bytes)")
        }
    }

    /// Counts the file and records the figures and the progress they show.
    /// - Throws: `DetectorError` when the file cannot be measured; its time is kept.
    private func measure(_ file: URL, into activity: CLSActivity) throws -> DocumentReport {
        let report = try DocumentAnalyzer().analyze(fileSystemPath: file.fileSystemPathBytes)
        let statistics = report.statistics
        let words =
            activity.primaryActivityItem as? CLSQuantityItem
            ?? CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
        words.quantity = Double(statistics.words)
        activity.primaryActivityItem = words

        // Very plain text scores below grade 0; no one reads at a negative grade.
        activity.setQuantity(
            (max(0, statistics.fleschKincaidGrade) * 10).rounded() / 10, identifier: ItemIdentifier.readabilityGrade,
            title: "Readability Grade")
        activity.setQuantity(Double(statistics.characters), identifier: ItemIdentifier.characters, title: "Characters")
        activity.setQuantity(Double(statistics.sentences), identifier: ItemIdentifier.sentences, title: "Sentences")
        if report.checklist.total > 0 {
            activity.addAdditionalActivityItem(
                CLSScoreItem(
                    identifier: ItemIdentifier.checklist, title: "Checklist",
                    score: Double(report.checklist.done), maxScore: Double(report.checklist.total)))
        }
        if let cells = report.notebookCells, cells.code > 0 {
            activity.addAdditionalActivityItem(
                CLSScoreItem(
                    identifier: ItemIdentifier.codeCells, title: "Executed Code Cells",
                    score: Double(cells.executed), maxScore: Double(cells.code)))
        }
        if report.codeLines > 0 {
            activity.setQuantity(Double(report.codeLines), identifier: ItemIdentifier.codeLines, title: "Code Lines")
        }
        let target = targetWords(of: activity)
        let basis = Self.basis(of: report, targetWords: target, isReading: isReading(activity))
        activity.progressBasis = basis
        if basis != .viewedShare, let estimate = Self.progress(of: report, targetWords: target) {
            activity.progress = estimate.value
        }
        return report
    }

    /// The basis of a file's progress: a target word count, else reading, else the document's
    /// checklist or notebook cells, else none.
    public static func basis(of report: DocumentReport, targetWords: Int?, isReading: Bool) -> ProgressBasis {
        if let targetWords, targetWords > 0 { return .targetWords }
        if isReading { return .viewedShare }
        if report.checklist.total > 0 { return .checklist }
        if let cells = report.notebookCells, cells.code > 0 { return .executedCells }
        return .noTarget
    }

    /// Adds to the time the file was open, idle time included: the "Open Time" item, in seconds.
    public func addOpenTime(_ seconds: TimeInterval, to activity: CLSActivity) {
        guard seconds != 0, seconds.isFinite else { return }
        activity.addToQuantity(seconds, identifier: ItemIdentifier.openTime, title: "Open Time")
    }

    /// The target given now, else the one remembered for the file.
    private func targetWords(of activity: CLSActivity) -> Int? {
        if let target = configuration.targetWords { return target }
        return activity.targetWordCount
    }

    /// The progress the content shows: toward the target word count, else checklist completion,
    /// else executed notebook cells; nil when none applies.
    public static func progress(of report: DocumentReport, targetWords: Int?) -> ProgressEstimate? {
        if let targetWords, targetWords > 0 { return ProgressEstimator.targetWordCount(targetWords).estimate(report) }
        if report.checklist.total > 0 { return ProgressEstimator.checklist.estimate(report) }
        if let cells = report.notebookCells, cells.code > 0 { return ProgressEstimator.executedCells.estimate(report) }
        return nil
    }
}

extension SessionRecorder {
    /// Makes every store this process opens measure the file of a session a dead process left
    /// (a killed `clsfile open`), so that the session keeps the figures of the text last saved:
    /// see `measureFilesOfAbandonedSessions(with:)`. A file that cannot be
    /// measured keeps the figures it had.
    public static func measureFilesOfAbandonedSessions() {
        CLSDataStore.measureFilesOfAbandonedSessions { file in
            guard let statistics = try? DocumentAnalyzer().analyze(fileSystemPath: file.fileSystemPathBytes).statistics else {
                return nil
            }
            return CLSDataStore.FileFigures(words: statistics.words, characters: statistics.characters)
        }
    }
}
