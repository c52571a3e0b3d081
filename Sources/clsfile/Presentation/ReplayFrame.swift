import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// One step of `clsfile replay`: a header with the snapshot's figures, then the lines it changed,
/// with what it added marked.
struct ReplayFrame {
    let snapshot: WritingSnapshot
    /// The row of the snapshot before, whose figures this one's are counted from.
    let previous: WritingHistoryEntry?
    let step: Int
    let total: Int
    /// Reverse video for added text; otherwise `{+` … `+}`.
    let styled: Bool
    /// False when the file's progress measures nothing (no target): the header leaves it out.
    let showsProgress: Bool

    /// The most changed lines one step shows.
    static let shownLines = 40

    init(snapshot: WritingSnapshot, previous: WritingHistoryEntry?, step: Int, of total: Int, styled: Bool, showsProgress: Bool) {
        self.snapshot = snapshot
        self.previous = previous
        self.step = step
        self.total = total
        self.styled = styled
        self.showsProgress = showsProgress
    }

    func text() -> String {
        var lines = [header()]
        let entry = snapshot.entry
        if snapshot.skippedBefore > 0 {
            lines.append("  (\(snapshot.skippedBefore) damaged snapshots before this step were skipped: what they added shows here)")
        }
        if entry.isSessionStart {
            lines.append(
                snapshot.content.isEmpty
                    ? "  the first session began from an empty file"
                    : "  the text the first session began from (\(snapshot.content.count) bytes)")
            let text = snapshot.lines
            lines += text.prefix(Self.shownLines).map { "  " + render($0) }
            if text.count > Self.shownLines { lines.append("  … and \(text.count - Self.shownLines) more lines") }
            return lines.joined(separator: "\n")
        }
        if let pasted = entry.gain(of: \.pastedCharacters, since: previous) {
            let largest = entry.largestPaste.map { ", the largest paste so far \($0)" } ?? ""
            lines.append("  pasted: \(pasted) characters from outside the document arrived as pastes \(when)\(largest)")
        }
        if let moved = entry.gain(of: \.movedCharacters, since: previous) {
            lines.append("  moved: \(moved) characters of the document's own text were cut or copied and pasted \(when)")
        }
        if snapshot.inserted.isEmpty && snapshot.removedBytes == 0 {
            lines.append("  (the text did not change)")
        } else {
            if snapshot.removedBytes > 0 { lines.append("  \(snapshot.removedBytes) bytes removed") }
            lines += changedLines()
        }
        return lines.joined(separator: "\n")
    }

    /// Where a step's gains (``WritingHistoryEntry/gain(of:since:)``) happened, in words.
    private var when: String { previous == nil ? "by this step" : "in this step" }

    /// The step's figures, counted from the snapshot before; the first step gives its own
    /// session's time and the figures as they stand, since what came before it is not known.
    private func header() -> String {
        let entry = snapshot.entry
        var parts = ["Step \(step) of \(total)", Formatting.timestamp(entry.date)]
        if entry.isSessionStart {
            // The text before any work: no time of its own.
            parts.append("session started \(Formatting.clock(entry.sessionStart))")
        } else {
            // A row written while its session ran (a save, or every few minutes) says how far it had come.
            let session =
                Formatting.clock(entry.sessionStart) + "–" + Formatting.clock(entry.sessionEnd ?? entry.date)
                + (entry.sessionEnd == nil ? " (saved while it ran)" : "")
            let time =
                previous.map { entry.activeTime - $0.activeTime }
                ?? (entry.sessionEnd ?? entry.date).timeIntervalSince(entry.sessionStart)
            parts.append("session \(session), \(Formatting.text(max(0, time)))")
        }
        if let words = entry.words {
            let added = previous?.words.map { words - $0 }
            parts.append("\(words) words" + (added.map { " (\($0 >= 0 ? "+" : "")\($0))" } ?? ""))
        }
        if let typed = entry.typedCharacters, let before = previous?.typedCharacters {
            parts.append("typed \(typed - min(typed, before))")
        }
        if showsProgress, let progress = entry.progress { parts.append("progress \(Formatting.percent(progress))") }
        let line = "── " + parts.joined(separator: " · ")
        return styled ? "\u{1B}[1m\(line)\u{1B}[0m" : line
    }

    /// The lines that hold added text, with one line around each run of them, added text marked.
    private func changedLines() -> [String] {
        let lineRanges = snapshot.lines
        guard !lineRanges.isEmpty else { return [] }
        // The lines each insertion touches, widened by a line of context.
        var shown = IndexSet()
        for inserted in snapshot.inserted where !inserted.isEmpty {
            let first = Self.line(containing: inserted.lowerBound, in: lineRanges)
            let last = Self.line(containing: inserted.upperBound - 1, in: lineRanges)
            shown.insert(integersIn: max(0, first - 1)...min(lineRanges.count - 1, last + 1))
        }
        var result: [String] = []
        var previousLine = -1
        for index in shown {
            if result.count >= Self.shownLines {
                result.append("  … and \(shown.count - Self.shownLines) more lines")
                break
            }
            if previousLine >= 0, index > previousLine + 1 { result.append("  …") }
            result.append("  " + render(lineRanges[index]))
            previousLine = index
        }
        return result
    }

    /// A line without its line feed, what the step added marked, control characters escaped.
    private func render(_ line: Range<Int>) -> String {
        let end = snapshot.content[line].last == 0x0A ? line.upperBound - 1 : line.upperBound
        return snapshot.pieces(of: line.lowerBound..<end).map { piece in
            let text = TerminalText.escaped(piece.text)
            guard piece.isInserted else { return text }
            return styled ? "\u{1B}[7m" + text + "\u{1B}[0m" : "{+" + text + "+}"
        }.joined()
    }

    private static func line(containing offset: Int, in lines: [Range<Int>]) -> Int {
        var low = 0, high = lines.count - 1
        while low < high {
            let mid = (low + high) / 2
            if lines[mid].upperBound <= offset { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
