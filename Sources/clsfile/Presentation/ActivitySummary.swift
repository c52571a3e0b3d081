import CommandSupport
import Foundation
import OpenClassKit
import PlainCalls
import ProgramBasics
import SessionRecorder

/// What `show` and `list` print about one file's activity, as text or JSON.
struct ActivitySummary: Sendable {
    struct Item: Sendable {
        var identifier: String
        var title: String
        var kind: String
        var quantity: Double?
        var score: Double?
        var maxScore: Double?
        var value: Bool?
        var valueType: String?

        init(_ item: CLSActivityItem) {
            identifier = item.identifier
            title = item.title
            switch item {
            case let quantityItem as CLSQuantityItem:
                kind = ItemKind.quantity.rawValue
                quantity = quantityItem.quantity
            case let scoreItem as CLSScoreItem:
                kind = ItemKind.score.rawValue
                (score, maxScore) = (scoreItem.score, scoreItem.maxScore)
            case let binaryItem as CLSBinaryItem:
                kind = ItemKind.binary.rawValue
                value = binaryItem.value
                valueType = "\(binaryItem.valueType)"
            default:
                kind = "item"
            }
        }

        /// The value as people read it: `558`, `7.2 / 18`, `yes`; open time as a duration.
        var displayValue: String {
            if ItemIdentifier.durations.contains(identifier), let quantity { return Formatting.text(quantity) }
            if identifier == ItemIdentifier.timingSource, let source = quantity.flatMap(TimingSource.init(code:)) { return source.name }
            if let quantity { return Formatting.number(quantity) }
            if let score, let maxScore { return "\(Formatting.number(score)) / \(Formatting.number(maxScore))" }
            if let value, let valueType,
                let type = CLSBinaryValueType.allCases.first(where: { "\($0)" == valueType })
            {
                return value ? type.labels.whenTrue : type.labels.whenFalse
            }
            return ""
        }
    }

    struct Span: Sendable {
        var start: Date
        var end: Date?
        var lastPulse: Date
        var seconds: Double
    }

    var path: String
    /// The context's identifier path, for a course's document (see ``place(of:)``).
    var contextPath: [String]?
    var recorded: Bool
    var durationSeconds: Double = 0
    var isStarted = false
    var progress: Double = 0
    /// What the progress measures (see ``ProgressSummary``).
    var progressBasis: ProgressBasis?
    var progressBasisName: String?
    var progressRanges: [[Double]] = []
    var primaryItem: Item?
    var additionalItems: [Item] = []
    /// Every span; empty when made without them.
    var spans: [Span] = []
    /// The spans joined where they touch: the sessions a person sees; empty when made without them.
    var sessions: [Span] = []
    var sessionCount = 0
    /// Whether ``spans`` and ``sessions`` were made: `show` gives them, `list` only counts sessions.
    var hasSpans = true
    var created: Date?
    var modified = Date.distantPast
    /// How the document grew (``CLSDataStore/writingHistory(for:)``): `show` gives it, `list` does not.
    var history: WritingHistory?
    /// The identifiers of the history's sessions written by dictation or an input method, whose
    /// input counts as typed: the text says so beside each, so that "pasted 0" has its reason.
    var dictatedSessions: Set<String> = []

    /// - Parameter withSpans: False to count the sessions only, as `list` does.
    init(_ activity: CLSActivity, withSpans: Bool = true) {
        (path, contextPath) = Self.place(of: activity)
        recorded = true
        // A running session counts to its last pulse, so idle minutes never show and then vanish.
        durationSeconds = activity.recordedDuration()
        isStarted = activity.isStarted
        progress = activity.progress
        let summary = ProgressSummary(activity)
        (progressBasis, progressBasisName) = (summary.basis, summary.basisName)
        progressRanges = activity.progressRanges.map { [$0.lowerBound, $0.upperBound] }
        primaryItem = activity.primaryActivityItem.map(Item.init)
        additionalItems = activity.additionalActivityItems.map(Item.init)
        let span = { (span: TimeSpan) in
            Span(
                start: span.start, end: span.end, lastPulse: span.lastPulse,
                seconds: max(0, (span.end ?? span.lastPulse).timeIntervalSince(span.start)))
        }
        let workSessions = activity.workSessions
        sessionCount = workSessions.count
        hasSpans = withSpans
        if withSpans {
            spans = activity.timeSpans.map(span)
            sessions = workSessions.map {
                Span(start: $0.start, end: $0.end, lastPulse: $0.lastPulse, seconds: $0.activeTime)
            }
        }
        created = activity.dateCreated
        modified = activity.dateLastModified
    }

    init(unrecordedFile url: URL) {
        // As `place(of:)` writes a recorded file's path: bytes that are not UTF-8 as `\xNN`.
        path = url.displayPath
        recorded = false
    }

    /// Where an activity is, as people read it: the path of its file (canonical, bytes that are
    /// not UTF-8 written as `\xNN`), and the identifier path below the main app context of a
    /// course's or an app's context (nil for a plain file's). An app's context without a file
    /// gives its identifier path as the path.
    static func place(of activity: CLSActivity) -> (path: String, contextPath: [String]?) {
        let context = activity.context
        guard let file = context.filePath else {
            let below = Array(context.identifierPath.dropFirst())
            return (below.joined(separator: "/"), below)
        }
        if context.identifier == file, context.parent?.parent == nil { return (file, nil) }
        return (file, Array(context.identifierPath.dropFirst()))
    }

    /// What timed the last `clsfile open` session, if one recorded it.
    var timingSource: TimingSource? {
        additionalItems.first { $0.identifier == ItemIdentifier.timingSource }?.quantity.flatMap(TimingSource.init(code:))
    }

    // MARK: Text

    private var progressSummary: ProgressSummary {
        ProgressSummary(
            value: progressBasis?.measuresProgress == false ? nil : progress,
            basis: progressBasis, basisName: progressBasisName)
    }

    func text() -> String {
        guard recorded else { return "No activity recorded for \(TerminalText.escaped(path))." }
        var lines = ["File:       \(TerminalText.escaped(path))"]
        if let contextPath {
            lines.append("Context:    \(TerminalText.escaped(contextPath.joined(separator: " › ")))")
        }
        let count = sessionCount == 1 ? "1 session" : "\(sessionCount) sessions"
        let sessionTimes = DurationParts(sessions.map(\.seconds), of: durationSeconds)
        lines.append("Time:       \(sessionTimes.whole) in \(count)\(isStarted ? ", running" : "")")
        if let statement = timingSource?.statement { lines.append("            last session: \(statement)") }
        let ranges =
            progressRanges.count > 1 || progressRanges.first?.first ?? 0 > 0
            ? " (" + progressRanges.map { "\(Formatting.percent($0[0]))–\(Formatting.percent($0[1]))" }.joined(separator: ", ") + ")"
            : ""
        lines.append("Progress:   \(progressSummary.text)\(progressBasis == .viewedShare ? ranges : "")")
        lines.append("Primary:    " + (primaryItem.map { "\(TerminalText.escaped($0.title)): \($0.displayValue)" } ?? "none"))
        if additionalItems.isEmpty {
            lines.append("Additional: none")
        } else {
            for (index, item) in additionalItems.enumerated() {
                lines.append((index == 0 ? "Additional: " : "            ") + "\(TerminalText.escaped(item.title)): \(item.displayValue)")
            }
        }
        for (index, span) in sessions.enumerated() {
            let end = span.end.map(Formatting.clock) ?? "running"
            lines.append(
                (index == 0 ? "Sessions:   " : "            ")
                    + "\(Formatting.timestamp(span.start)) – \(end)  \(sessionTimes.parts[index])")
        }
        if let history, !history.entries.isEmpty {
            lines.append("History:    (each editor session's figures; `clsfile replay` shows the text)")
            let showsProgress = progressBasis?.measuresProgress != false
            let activeTimes = DurationParts(history.sessions.map(\.activeTime))
            lines += Formatting.columns(
                history.sessions.enumerated().map { index, session in
                    Self.historyColumns(
                        session, showsProgress: showsProgress, times: activeTimes, index: index,
                        isDictated: session.entry.sessionIdentifier.map(dictatedSessions.contains) ?? false)
                }
            )
            .map { ("  " + $0).replacingOccurrences(of: " +$", with: "", options: .regularExpression) }
            if history.sessions.contains(where: { $0.pastedCharacters != nil || $0.movedCharacters != nil }) {
                lines.append("  \(Self.pasteMeaning)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One session of the history as columns: when, how long (active, of its open time), the
    /// words it added, the progress after it (when the progress measures something), its typing
    /// and pasting, and whether it was written by dictation (all of its input counted as typed).
    /// - Parameters:
    ///   - times: The active times of all the history's sessions, which add up as shown.
    ///   - index: The session's place among them.
    static func historyColumns(
        _ session: WritingHistory.Session, showsProgress: Bool, times: DurationParts, index: Int, isDictated: Bool = false
    ) -> [String] {
        var input = ""
        if let typed = session.typedCharacters, let pasted = session.pastedCharacters {
            input = "typed \(typed), pasted \(pasted)"
            if pasted > 0, let largest = session.entry.largestPaste { input += " (largest paste so far \(largest))" }
            if let moved = session.movedCharacters { input += ", moved \(moved)" }
        }
        if isDictated { input += input.isEmpty ? "dictation: input counted as typed" : " · dictation: input counted as typed" }
        let words =
            session.words.map { words in
                "\(words) words" + (session.addedWords.map { $0 >= 0 ? " (+\($0))" : " (\($0))" } ?? "")
            } ?? ""
        return [
            Formatting.timestamp(session.start) + (session.end == nil ? " (running)" : ""),
            times.parts[index] + (session.openTime.map { " of \(times.text($0, notLessThanPart: index)) open" } ?? ""), words,
            showsProgress ? session.progress.map { "progress \(Formatting.percent($0))" } ?? "" : "", input
        ]
    }

    /// What "pasted" and "moved" count, said once under the figures that use them.
    static let pasteMeaning =
        "pasted: text from outside the document (another file or program); moved: the writer's own text of this document, cut or copied and pasted in it"

    /// The figures a history page shows above its pictures; its sessions are the history's, one
    /// per editor session, as the page's table lists them.
    var historyFigures: [(label: String, value: String)] {
        guard recorded else { return [] }
        var result = [("Time", Formatting.text(durationSeconds)), ("Sessions", "\(history?.sessions.count ?? sessionCount)")]
        if let words = primaryItem, words.identifier == ItemIdentifier.wordCount { result.append(("Words", words.displayValue)) }
        if progressBasis?.measuresProgress != false { result.append(("Progress", Formatting.percent(progress))) }
        return result
    }

    // MARK: JSON

    func json() -> String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// Writes the summary as a JSON object, keys sorted as `JSONEncoder` sorts them; without
    /// spans it has `sessionCount` in place of `sessions` and `spans`.
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("additionalItems")
        json.beginArray()
        additionalItems.forEach { $0.write(to: &json) }
        json.endArray()
        json.member("contextPath", contextPath)
        json.member("created", created.map(Self.date))
        json.member("durationSeconds", durationSeconds)
        if let history {
            json.key("history")
            json.beginArray()
            history.entries.forEach { $0.write(to: &json) }
            json.endArray()
        }
        json.member("isStarted", isStarted)
        // A file never recorded has no date of change: left out, not the year 0.
        json.member("modified", recorded ? Self.date(modified) : nil)
        json.member("path", path)
        if let primaryItem {
            json.key("primaryItem")
            primaryItem.write(to: &json)
        }
        json.member("progress", progress)
        json.member("progressBasis", progressBasis?.rawValue)
        json.member("progressBasisName", progressBasisName)
        json.key("progressRanges")
        json.beginArray()
        for range in progressRanges {
            json.beginArray()
            range.forEach { json.value($0) }
            json.endArray()
        }
        json.endArray()
        json.member("recorded", recorded)
        if hasSpans {
            for (name, list) in [("sessions", sessions), ("spans", spans)] {
                json.key(name)
                json.beginArray()
                list.forEach { $0.write(to: &json) }
                json.endArray()
            }
        } else {
            json.member("sessionCount", sessionCount)
        }
        json.endObject()
    }

    private static func date(_ date: Date) -> String {
        Formatting.iso8601(date, milliseconds: true)
    }
}

extension ActivitySummary.Item {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("identifier", identifier)
        json.member("kind", kind)
        json.member("maxScore", maxScore)
        json.member("quantity", quantity)
        json.member("score", score)
        json.member("title", title)
        json.member("value", value)
        json.member("valueType", valueType)
        json.endObject()
    }
}

extension ActivitySummary.Span {
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("end", end.map { Formatting.iso8601($0, milliseconds: true) })
        json.member("lastPulse", Formatting.iso8601(lastPulse, milliseconds: true))
        json.member("seconds", seconds)
        json.member("start", Formatting.iso8601(start, milliseconds: true))
        json.endObject()
    }
}

extension WritingHistoryEntry {
    /// The row as `show --json` gives it: the figures are the activity's whole up to the row.
    func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("activeSeconds", activeTime)
        json.member("characters", characters.map(Double.init))
        json.member("date", Formatting.iso8601(date, milliseconds: true))
        json.member("isSessionStart", isSessionStart)
        json.member("largestPaste", largestPaste.map(Double.init))
        json.member("movedCharacters", movedCharacters.map(Double.init))
        json.member("openSeconds", openTime)
        json.member("pastedCharacters", pastedCharacters.map(Double.init))
        json.member("progress", progress)
        json.member("sessionEnd", sessionEnd.map { Formatting.iso8601($0, milliseconds: true) })
        json.member("sessionStart", Formatting.iso8601(sessionStart, milliseconds: true))
        json.member("snapshotBytes", snapshotSize.map(Double.init))
        json.member("typedCharacters", typedCharacters.map(Double.init))
        json.member("words", words.map(Double.init))
        json.endObject()
    }
}
