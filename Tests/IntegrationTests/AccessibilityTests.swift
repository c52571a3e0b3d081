import Foundation
import HistoryPictures
import OpenClassKit
import Testing
import TestSupport

/// `clsfile show --html`'s page passes axe-core's WCAG 2.1 AA rules in Chromium and works with
/// the keyboard alone: with a history of a few sessions, of more sessions than the bars show,
/// and with none yet.
struct AccessibilityTests {
    /// `count` daily sessions of an essay, every third with a paste, as rows of its history.
    static func history(sessions count: Int) -> WritingHistory {
        let first = Date(timeIntervalSince1970: 1_795_000_000)
        let entries = (0..<count).flatMap { index -> [WritingHistoryEntry] in
            let start = first.addingTimeInterval(Double(index) * 86_400), end = start.addingTimeInterval(1_500)
            let session = "session-\(index)"
            return [
                WritingHistoryEntry(
                    date: start, sessionStart: start, activeTime: 0, words: 40 * index, sessionIdentifier: session, isSessionStart: true),
                WritingHistoryEntry(
                    date: end, sessionStart: start, sessionEnd: end, activeTime: Double(600 + 60 * (index % 7)), openTime: 1_500,
                    words: 40 * (index + 1), typedCharacters: 220, pastedCharacters: index % 3 == 2 ? 180 : 0,
                    progress: min(1, Double(index + 1) / Double(count)), sessionIdentifier: session)
            ]
        }
        return WritingHistory(entries: entries)
    }

    @Test func theHistoryPagePassesAxeAndTheKeyboard() async throws {
        let scratch = try Scratch()
        let figures = [("Time", "4 h 10 min"), ("Sessions", "5"), ("Word Count", "200"), ("Pasted", "18%")].map { (label: $0, value: $1) }
        let pages = [
            ("history.html", HistoryPage(title: "river <essay>.txt", figures: figures, history: Self.history(sessions: 5))),
            ("long-history.html", HistoryPage(title: "novel.md", figures: figures, history: Self.history(sessions: 75))),
            (
                "no-progress.html",
                HistoryPage(title: "notes.txt", figures: figures, history: Self.history(sessions: 3), showsProgress: false)
            ),
            ("empty-history.html", HistoryPage(title: "new.txt", figures: figures, history: WritingHistory(entries: [])))
        ]
        var files: [String] = []
        for (name, page) in pages {
            let file = scratch.url.appendingPathComponent(name)
            try Data(page.render().utf8).write(to: file)
            files.append(file.absoluteString)
        }
        try await AxeCheck.expectNoViolations(files, in: scratch.url)
    }
}
