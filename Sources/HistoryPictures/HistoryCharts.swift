import Foundation
import OpenClassKit

/// Pictures of a writing history as inline SVG, drawn on the server (no script), readable in
/// black and white, each with a title, a description and a table of its numbers for screen
/// readers. The dashboard's student page and `clsfile show --html` draw the same ones.
///
/// ```swift
/// let charts = HistoryCharts(history: try await store.writingHistory(for: essay))
/// let markup = charts.wordsOverTime() + charts.sessionBars() + (charts.typedAgainstPasted() ?? "")
/// ```
public struct HistoryCharts: Sendable {
    /// The history drawn.
    public let history: WritingHistory
    /// The sessions, oldest first, at most ``shownSessions`` of the newest.
    let sessions: [WritingHistory.Session]
    /// How many of the newest sessions the bar charts show.
    public static let shownSessions = 60

    static let width = 640, height = 200
    static let margin = (left: 56.0, right: 12.0, top: 14.0, bottom: 34.0)

    /// Whether the table gives the progress: false when it measures nothing (no target).
    public let showsProgress: Bool

    /// Pictures of a history.
    /// - Parameters:
    ///   - history: The history drawn.
    ///   - showsProgress: False when the document's progress measures nothing.
    public init(history: WritingHistory, showsProgress: Bool = true) {
        self.history = history
        self.showsProgress = showsProgress
        sessions = Array(history.sessions.suffix(Self.shownSessions))
    }

    private static var plot: (width: Double, height: Double) {
        (Double(width) - margin.left - margin.right, Double(height) - margin.top - margin.bottom)
    }

    /// The word count at every row, as a line over the time of the rows; nil without word counts.
    public func wordsOverTime(id: String = "words-over-time") -> String? {
        // At the moment the figures are of: the session's end, or the row's time while it ran.
        let points = Self.thinned(
            history.entries.compactMap { entry in
                entry.words.map { (date: entry.sessionEnd ?? entry.date, words: Double($0)) }
            })
        guard let first = points.first, let last = points.last else { return nil }
        let top = SVG.niceMaximum(points.map(\.words).max() ?? 0)
        let span = max(1, last.date.timeIntervalSince(first.date))
        let plot = Self.plot
        let x = { (date: Date) in
            Self.margin.left + (points.count == 1 ? plot.width / 2 : date.timeIntervalSince(first.date) / span * plot.width)
        }
        let y = { (value: Double) in Self.margin.top + plot.height - value / top * plot.height }
        let line = points.map { "\(SVG.number(x($0.date))),\(SVG.number(y($0.words)))" }.joined(separator: " ")
        let dots = points.map {
            "<circle cx=\"\(SVG.number(x($0.date)))\" cy=\"\(SVG.number(y($0.words)))\" r=\"2.5\" fill=\"black\"/>"
        }.joined()
        let ends = Self.axisLabels(first.date, last.date)
        let content =
            axes(top: top, unit: "words")
            + "<polyline points=\"\(line)\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>" + dots
            + label(ends.first, x: Self.margin.left, anchor: "start")
            + (points.count > 1 ? label(ends.last, x: Self.margin.left + plot.width, anchor: "end") : "")
        let description =
            "\(points.count) measurements from \(Self.day(first.date)) to \(Self.day(last.date)): from \(Int(first.words)) to \(Int(last.words)) words, the most \(Int(points.map(\.words).max() ?? 0))."
        return SVG.frame(
            id: id, width: Self.width, height: Self.height, title: "Words over time",
            description: description, content: content)
    }

    /// Each session as a pair of bars: its open time (outlined) behind its active time (solid).
    public func sessionBars(id: String = "session-bars") -> String? {
        guard !sessions.isEmpty else { return nil }
        // Minutes, or seconds when every session is shorter than two minutes.
        let longest = sessions.map { max($0.activeTime, $0.openTime ?? 0) }.max() ?? 0
        let (divisor, unit) = longest < 120 ? (1.0, "s") : (60.0, "min")
        let minutes = sessions.map { (active: $0.activeTime / divisor, open: ($0.openTime ?? 0) / divisor) }
        let top = SVG.niceMaximum(minutes.map { max($0.active, $0.open) }.max() ?? 0)
        let plot = Self.plot
        let slot = plot.width / Double(sessions.count)
        let barWidth = max(2, min(28, slot * 0.7))
        var content = axes(top: top, unit: unit)
        for (index, value) in minutes.enumerated() {
            let left = Self.margin.left + Double(index) * slot + (slot - barWidth) / 2
            content += bar(x: left, width: barWidth, value: value.open, top: top, fill: "white", stroke: "black")
            content += bar(x: left + barWidth * 0.25, width: barWidth * 0.5, value: value.active, top: top, fill: "black", stroke: "black")
        }
        content += legend([("black", "black", "active time"), ("white", "black", "open time")])
        content += firstAndLastSession()
        // Written as the table writes them, so that the longest reads as its row and adds up.
        let activeTimes = DurationParts(sessions.map(\.activeTime))
        let longestSession = sessions.indices.max { sessions[$0].activeTime < sessions[$1].activeTime } ?? 0
        let description =
            "\(sessions.count) sessions, \(activeTimes.whole) of active time in all; the longest \(activeTimes.parts[longestSession])."
        return SVG.frame(
            id: id, width: Self.width, height: Self.height, title: "Sessions: active and open time",
            description: description, content: content)
    }

    /// Each session's typed (solid), pasted from outside the document (hatched) and own text moved
    /// (white) characters, stacked; nil when nothing counted them.
    public func typedAgainstPasted(id: String = "typed-pasted") -> String? {
        let counted = sessions.map {
            (typed: Double($0.typedCharacters ?? 0), pasted: Double($0.pastedCharacters ?? 0), moved: Double($0.movedCharacters ?? 0))
        }
        guard sessions.contains(where: { $0.typedCharacters != nil || $0.pastedCharacters != nil }) else { return nil }
        let top = SVG.niceMaximum(counted.map { $0.typed + $0.pasted + $0.moved }.max() ?? 0)
        let plot = Self.plot
        let slot = plot.width / Double(sessions.count)
        let barWidth = max(2, min(28, slot * 0.7))
        let pattern = "\(id)-hatch"
        var content = SVG.hatch(id: pattern) + axes(top: top, unit: "chars")
        for (index, value) in counted.enumerated() {
            let left = Self.margin.left + Double(index) * slot + (slot - barWidth) / 2
            content += bar(x: left, width: barWidth, value: value.typed, top: top, fill: "black", stroke: "black")
            content += bar(
                x: left, width: barWidth, value: value.pasted, base: value.typed, top: top, fill: "url(#\(pattern))", stroke: "black")
            content += bar(
                x: left, width: barWidth, value: value.moved, base: value.typed + value.pasted, top: top, fill: "white", stroke: "black")
        }
        let moves = counted.contains { $0.moved > 0 }
        content += legend(
            [("black", "black", "typed"), ("url(#\(pattern))", "black", "pasted")] + (moves ? [("white", "black", "moved (own text)")] : [])
        )
        content += firstAndLastSession()
        let typed = counted.reduce(0) { $0 + $1.typed }, pasted = counted.reduce(0) { $0 + $1.pasted }
        let moved = counted.reduce(0) { $0 + $1.moved }
        let share = typed + pasted + moved > 0 ? Int((pasted / (typed + pasted + moved) * 100).rounded()) : 0
        let description =
            "\(Int(typed)) characters typed and \(Int(pasted)) pasted from outside the document"
            + (moves ? ", \(Int(moved)) of the writer's own text moved or copied," : "")
            + " over \(sessions.count) sessions (\(share)% pasted)."
        return SVG.frame(
            id: id, width: Self.width, height: Self.height, title: "Typed and pasted characters per session",
            description: description, content: content)
    }

    /// The progress at every row as a small line (90 × 18), named for screen readers by `name`;
    /// nil when no row has a progress.
    public func progressLine(name: String) -> String? {
        let points = Self.thinned(
            history.entries.compactMap { entry in entry.progress.map { (date: entry.sessionEnd ?? entry.date, value: $0) } },
            to: 90)
        guard let first = points.first, let last = points.last else { return nil }
        let width = 90.0, height = 18.0
        let span = max(1, last.date.timeIntervalSince(first.date))
        let line = points.map { point -> String in
            let x = points.count == 1 ? width / 2 : 2 + point.date.timeIntervalSince(first.date) / span * (width - 4)
            return "\(SVG.number(x)),\(SVG.number(height - 2 - point.value * (height - 4)))"
        }.joined(separator: " ")
        // One point draws nothing as a polyline: it is drawn twice, as a dot.
        let drawn = points.count == 1 ? [line, line].joined(separator: " ") : line
        let sessionCount = history.sessions.count
        let label =
            "\(name): progress from \(Int((first.value * 100).rounded()))% to \(Int((last.value * 100).rounded()))% over \(sessionCount) \(sessionCount == 1 ? "session" : "sessions")"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" class="progress-line" role="img" width="90" height="18" viewBox="0 0 90 18" \
            aria-label="\(SVG.escape(label))"><title>\(SVG.escape(label))</title>\
            <line x1="2" y1="16" x2="88" y2="16" stroke="#999"/>\
            <polyline points="\(drawn)" fill="none" stroke="black" stroke-width="1.5"/></svg>
            """
    }

    /// A picture as a figure whose caption links to the table of its figures (``table(id:)``), so
    /// that a reader who cannot see it, or wants the numbers, goes straight to them.
    /// - Parameters:
    ///   - picture: One of the pictures above.
    ///   - table: The identifier of the table on the same page.
    public static func figure(_ picture: String, table: String = "history-table") -> String {
        "<figure>\(picture)<figcaption><a href=\"#\(SVG.escape(table))\">The figures of every session, in the table below</a></figcaption></figure>"
    }

    /// The most sessions the table lists, the newest.
    public static let tabledSessions = 500

    /// Every session's numbers as an HTML table (the newest ``tabledSessions``), the text the pictures show.
    public func table(id: String = "history-table") -> String {
        let all = history.sessions
        let activeTimes = DurationParts(all.map(\.activeTime))
        var rows =
            all.count > Self.tabledSessions
            ? "<tr><td colspan=\"9\">… \(all.count - Self.tabledSessions) earlier sessions not listed</td></tr>" : ""
        for (index, session) in all.enumerated().suffix(Self.tabledSessions) {
            func cell(_ value: Int?) -> String { value.map { "<td class=\"num\">\($0)</td>" } ?? "<td class=\"num\">–</td>" }
            rows +=
                "<tr><td><time datetime=\"\(Self.machine(session.start))\">\(SVG.escape(Self.timestamp(session.start)))</time></td>"
                + "<td class=\"num\">\(SVG.escape(activeTimes.parts[index]))</td>"
                + "<td class=\"num\">\(SVG.escape(session.openTime.map { activeTimes.text($0, notLessThanPart: index) } ?? "–"))</td>"
                + cell(session.words) + cell(session.addedWords) + cell(session.typedCharacters) + cell(session.pastedCharacters)
                + cell(session.movedCharacters)
                + (showsProgress ? "<td class=\"num\">\(session.progress.map { "\(Int(($0 * 100).rounded()))%" } ?? "–")</td>" : "")
                + "</tr>"
        }
        return """
            <table id="\(SVG.escape(id))"><caption>Every session's figures (pasted: text from outside the document; \
            moved: the writer's own text of this document, cut or copied and pasted in it)</caption><thead><tr><th scope="col">Session</th>\
            <th scope="col">Active</th><th scope="col">Open</th><th scope="col">Words</th><th scope="col">Added</th>\
            <th scope="col">Typed</th><th scope="col">Pasted</th><th scope="col">Moved</th>\(showsProgress ? "<th scope=\"col\">Progress</th>" : "")</tr></thead><tbody>\(rows)</tbody></table>
            """
    }

    // MARK: Pieces

    /// At most `count` of the points, evenly spread, the first and the last kept: a line of a
    /// hundred thousand rows draws as well with a point per pixel.
    static func thinned<Point>(_ points: [Point], to count: Int = 600) -> [Point] {
        guard points.count > count, count >= 2 else { return points }
        return (0..<count).map { points[$0 * (points.count - 1) / (count - 1)] }
    }

    /// The left axis with 0 and the top value, a light middle line, and the base line.
    private func axes(top: Double, unit: String) -> String {
        let plot = Self.plot, left = Self.margin.left, bottom = Self.margin.top + plot.height
        let middle = Self.margin.top + plot.height / 2
        return """
            <line x1="\(SVG.number(left))" y1="\(SVG.number(Self.margin.top))" x2="\(SVG.number(left))" y2="\(SVG.number(bottom))" stroke="black"/>\
            <line x1="\(SVG.number(left))" y1="\(SVG.number(bottom))" x2="\(SVG.number(left + plot.width))" y2="\(SVG.number(bottom))" stroke="black"/>\
            <line x1="\(SVG.number(left))" y1="\(SVG.number(middle))" x2="\(SVG.number(left + plot.width))" y2="\(SVG.number(middle))" stroke="#999" stroke-dasharray="3 3"/>\
            <text x="\(SVG.number(left - 4))" y="\(SVG.number(Self.margin.top + 4))" text-anchor="end">\(SVG.escape(Self.count(top)))</text>\
            <text x="\(SVG.number(left - 4))" y="\(SVG.number(middle + 4))" text-anchor="end">\(SVG.escape(Self.count(top / 2)))</text>\
            <text x="\(SVG.number(left - 4))" y="\(SVG.number(bottom + 4))" text-anchor="end">0 \(SVG.escape(unit))</text>
            """
    }

    private func bar(x: Double, width: Double, value: Double, base: Double = 0, top: Double, fill: String, stroke: String) -> String {
        guard value > 0 else { return "" }
        let plot = Self.plot
        let height = value / top * plot.height
        let y = Self.margin.top + plot.height - (base / top * plot.height) - height
        return
            "<rect x=\"\(SVG.number(x))\" y=\"\(SVG.number(y))\" width=\"\(SVG.number(width))\" height=\"\(SVG.number(max(1, height)))\" fill=\"\(fill)\" stroke=\"\(stroke)\"/>"
    }

    private func legend(_ entries: [(fill: String, stroke: String, text: String)]) -> String {
        var x = Self.margin.left + 8
        var result = ""
        for entry in entries {
            result +=
                "<rect x=\"\(SVG.number(x))\" y=\"2\" width=\"10\" height=\"10\" fill=\"\(entry.fill)\" stroke=\"\(entry.stroke)\"/>"
                + "<text x=\"\(SVG.number(x + 14))\" y=\"11\">\(SVG.escape(entry.text))</text>"
            x += 24 + Double(entry.text.count) * 6.5
        }
        return result
    }

    private func firstAndLastSession() -> String {
        guard let first = sessions.first, let last = sessions.last else { return "" }
        let ends = Self.axisLabels(first.start, last.start)
        return label(ends.first, x: Self.margin.left, anchor: "start")
            + (sessions.count > 1 ? label(ends.last, x: Self.margin.left + Self.plot.width, anchor: "end") : "")
    }

    private func label(_ text: String, x: Double, anchor: String) -> String {
        "<text x=\"\(SVG.number(x))\" y=\"\(SVG.number(Double(Self.height) - 12))\" text-anchor=\"\(anchor)\">\(SVG.escape(text))</text>"
    }

    // MARK: Formats

    static func count(_ value: Double) -> String {
        value >= 10_000 ? "\(Int((value / 1000).rounded()))k" : "\(Int(value.rounded()))"
    }

    static func day(_ date: Date) -> String { format(date, "%Y-%m-%d") }

    /// The labels of an axis's ends: their days, or with their times when both are on one day.
    static func axisLabels(_ first: Date, _ last: Date) -> (first: String, last: String) {
        day(first) == day(last) ? (timestamp(first), format(last, "%H:%M")) : (day(first), day(last))
    }
    static func timestamp(_ date: Date) -> String { format(date, "%Y-%m-%d %H:%M") }

    static func machine(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    /// Local time, as the reader's clock shows it.
    private static func format(_ date: Date, _ pattern: String) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
