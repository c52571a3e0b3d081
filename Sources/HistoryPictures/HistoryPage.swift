import Foundation
import OpenClassKit

/// A single self-contained HTML page of one document's writing history: its figures, the three
/// pictures of ``HistoryCharts`` and the table of every session. No script, no outside file:
/// it opens from the disk as it is (`clsfile show --html essay.txt > essay.html`).
public struct HistoryPage: Sendable {
    /// The document's name, as the heading shows it.
    public var title: String
    /// Figures shown above the pictures, such as ("Time", "1 h 12 min").
    public var figures: [(label: String, value: String)]
    /// The history drawn.
    public var history: WritingHistory
    /// False when the document's progress measures nothing: the table leaves it out.
    public var showsProgress: Bool
    /// Paragraphs shown under the heading, in place of the page's own line on where the history
    /// was recorded: what a submission carries, say, and the student's notes.
    public var lead: [String]
    /// What the page says instead of its pictures when the history has no rows; nil for its own
    /// sentence (none recorded yet).
    public var emptyHistoryNote: String?

    /// A page of a history.
    public init(
        title: String, figures: [(label: String, value: String)], history: WritingHistory, showsProgress: Bool = true,
        lead: [String] = [], emptyHistoryNote: String? = nil
    ) {
        self.title = title
        self.figures = figures
        self.history = history
        self.showsProgress = showsProgress
        self.lead = lead
        self.emptyHistoryNote = emptyHistoryNote
    }

    /// The page's markup.
    public func render() -> String {
        let charts = HistoryCharts(history: history, showsProgress: showsProgress)
        let cards = figures.map {
            "<div class=\"card\"><div class=\"label\">\(SVG.escape($0.label))</div><div class=\"value\">\(SVG.escape($0.value))</div></div>"
        }.joined()
        let pictures = [charts.wordsOverTime(), charts.sessionBars(), charts.typedAgainstPasted()].compactMap { $0 }
        let body =
            history.entries.isEmpty
            ? "<p id=\"no-history\">\(SVG.escape(emptyHistoryNote ?? "No writing history is recorded for this file yet: it begins at the end of its next session."))</p>"
            : pictures.map { HistoryCharts.figure($0) }.joined() + charts.table()
        let shown =
            history.sessions.count > HistoryCharts.shownSessions
            ? "<p class=\"note\">The bars show the newest \(HistoryCharts.shownSessions) of \(history.sessions.count) sessions; the table the newest \(HistoryCharts.tabledSessions).</p>"
            : ""
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(SVG.escape(title)) · writing history</title>
            <style>\(Self.style)</style></head>
            <body><main>
            <h1>\(SVG.escape(title))</h1>
            \(intro)
            <div class="cards">\(cards)</div>
            \(shown)\(body)
            </main></body></html>
            """
    }

    /// The lead paragraphs, or the page's own line.
    private var intro: String {
        guard !lead.isEmpty else {
            return "<p class=\"note\">How this document grew, session by session, as clsfile recorded it on this computer.</p>"
        }
        return lead.map { "<p class=\"note lead\">\(SVG.escape($0))</p>" }.joined(separator: "\n")
    }

    /// The page's and the dashboard's look of the pictures and the table: black on white, so
    /// that they print and read without colour.
    public static let style = """
        body{font-family:system-ui,sans-serif;margin:0;color:#000;background:#fff}
        main{max-width:720px;margin:0 auto;padding:16px}
        h1{font-size:1.4em;margin:.2em 0}
        .note{color:#333;font-size:.9em}
        .cards{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
        .card{border:1px solid #000;padding:6px 10px;min-width:110px}
        .card .label{font-size:.8em}.card .value{font-size:1.2em;font-weight:600}
        figure{margin:16px 0}figcaption{font-size:.9em}
        a{color:#000}a:focus-visible{outline:3px solid #000;outline-offset:2px}
        svg.history-chart{max-width:100%;height:auto;border:1px solid #ccc}
        table{border-collapse:collapse;margin:16px 0;font-size:.9em}
        caption{text-align:left;font-weight:600;margin-bottom:4px}
        th,td{border:1px solid #999;padding:3px 6px}td.num{text-align:right}
        """
}
