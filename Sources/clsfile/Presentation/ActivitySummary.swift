import Foundation
import OpenClassKit
import SessionRecorder

/// What `show` and `list` print about one file's activity, as text or JSON.
struct ActivitySummary: Encodable, Sendable {
    struct Item: Encodable, Sendable {
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
            if let quantity { return Formatting.number(quantity) }
            if let score, let maxScore { return "\(Formatting.number(score)) / \(Formatting.number(maxScore))" }
            if let value, let valueType,
               let type = CLSBinaryValueType.allCases.first(where: { "\($0)" == valueType }) {
                return value ? type.labels.whenTrue : type.labels.whenFalse
            }
            return ""
        }
    }

    struct Span: Encodable, Sendable {
        var start: Date
        var end: Date?
        var lastPulse: Date
        var seconds: Double
    }

    var path: String
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
    var spans: [Span] = []
    /// The spans joined where they touch: the sessions a person sees.
    var sessions: [Span] = []
    var created: Date?
    var modified = Date.distantPast

    init(_ activity: CLSActivity) {
        path = Self.path(of: activity)
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
            Span(start: span.start, end: span.end, lastPulse: span.lastPulse,
                 seconds: max(0, (span.end ?? span.lastPulse).timeIntervalSince(span.start)))
        }
        spans = activity.timeSpans.map(span)
        sessions = activity.workSessions.map(span)
        created = activity.dateCreated
        modified = activity.dateLastModified
    }

    init(unrecordedFile url: URL) {
        path = Self.path(of: url)
        recorded = false
    }

    /// The path of an activity's file, as people read it.
    static func path(of activity: CLSActivity) -> String {
        activity.context.fileURL.map(path(of:)) ?? activity.context.identifier
    }

    /// The path with percent-escapes decoded where they make valid UTF-8.
    private static func path(of url: URL) -> String {
        url.path(percentEncoded: false)
    }

    // MARK: Text

    private var progressSummary: ProgressSummary {
        ProgressSummary(value: progressBasis?.measuresProgress == false ? nil : progress,
                        basis: progressBasis, basisName: progressBasisName)
    }

    func text() -> String {
        guard recorded else { return "No activity recorded for \(path)." }
        var lines = ["File:       \(path)"]
        let count = sessions.count == 1 ? "1 session" : "\(sessions.count) sessions"
        lines.append("Time:       \(Formatting.text(durationSeconds)) in \(count)\(isStarted ? ", running" : "")")
        let ranges = progressRanges.count > 1 || progressRanges.first?.first ?? 0 > 0
            ? " (" + progressRanges.map { "\(Formatting.percent($0[0]))–\(Formatting.percent($0[1]))" }.joined(separator: ", ") + ")"
            : ""
        lines.append("Progress:   \(progressSummary.text)\(progressBasis == .viewedShare ? ranges : "")")
        lines.append("Primary:    " + (primaryItem.map { "\($0.title): \($0.displayValue)" } ?? "none"))
        if additionalItems.isEmpty {
            lines.append("Additional: none")
        } else {
            for (index, item) in additionalItems.enumerated() {
                lines.append((index == 0 ? "Additional: " : "            ") + "\(item.title): \(item.displayValue)")
            }
        }
        for (index, span) in sessions.enumerated() {
            let end = span.end.map(Formatting.clock) ?? "running"
            lines.append((index == 0 ? "Sessions:   " : "            ")
                         + "\(Formatting.timestamp(span.start)) – \(end)  \(Formatting.text(span.seconds))")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: JSON

    func json() throws -> String { try Self.encode(self) }

    /// Summaries as elements of a JSON array, without its brackets: lists printed a batch at a
    /// time, joined with commas, read as one encoded whole.
    static func jsonElements(_ summaries: [ActivitySummary]) throws -> String {
        let array = try encode(summaries)
        // "[\n" + elements + "\n]"
        return String(array.dropFirst(2).dropLast(2))
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Formatting.iso8601(date, milliseconds: true))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
