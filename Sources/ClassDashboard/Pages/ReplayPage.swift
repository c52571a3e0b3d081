import Classroom
import Foundation
import OpenClassKit

/// `/assignments/{id}/students/{studentID}/replay?step=N&from=BYTE`: the student's text as one
/// snapshot of the submitted history holds it, what that snapshot added underlined, with links to
/// the steps around it (no script).
///
/// A step is shown in parts of at most ``longestPart`` bytes of text and ``mostMarked`` marked
/// additions, each linking to the next: a submission's snapshots may hold two megabytes of text
/// changed in a million places, which whole would be tens of megabytes of markup.
struct ReplayPage {
    /// The most bytes of the text one part shows: escaped, at most six times as many in markup.
    static let longestPart = 128 << 10
    /// The most additions one part marks; the part ends after the last it marks.
    static let mostMarked = 1_000

    var assignment: ClassReport.AssignmentSummary
    var student: ClassReport.StudentRow
    var links: Links
    /// The step asked for, 1-based; out of range shows the nearest.
    var step: Int
    /// The byte of the step's text the part shown starts at; past the end shows the first part.
    var from = 0

    /// The page, or nil when the work holds no snapshots.
    /// - Throws: ``CLSError`` when the snapshots do not rebuild (damaged).
    func render() throws -> HTML? {
        guard let records = student.work.snapshots, !records.isEmpty else { return nil }
        let shown = min(max(1, step), records.count)
        // From the last keyframe at or before the step, one snapshot in memory at a time.
        let start = records[..<shown].lastIndex(where: \.isKeyframe) ?? 0
        var snapshot: WritingSnapshot?
        try WritingSnapshotRecord.rebuild(Array(records[start..<shown])) { snapshot = $0 }
        guard let snapshot else { return nil }
        let previous = shown >= 2 ? records[shown - 2].entry : nil
        let entry = snapshot.entry
        let navigation = [("First", 1), ("Previous", shown - 1), ("Next", shown + 1), ("Last", records.count)].map {
            label, target -> HTML in
            target >= 1 && target <= records.count && target != shown
                ? "<a href=\"\(links.replay(student.studentIdentifier, of: assignment.identifier, step: target))\" id=\"replay-\(label.lowercased())\">\(label)</a>"
                : "<span class=\"muted\">\(label)</span>"
        }
        var figures = ["\(DisplayFormat.timestamp(entry.date))"]
        if let words = entry.words {
            figures.append("\(words) words" + (previous?.words.map { " (\(words - $0 >= 0 ? "+" : "")\(words - $0))" } ?? ""))
        }
        if let pasted = entry.gain(of: \.pastedCharacters, since: previous) {
            figures.append("pasted \(pasted) characters from outside the document")
        }
        if let moved = entry.gain(of: \.movedCharacters, since: previous) {
            figures.append("moved \(moved) characters of the student's own text")
        }
        let part = self.part(of: snapshot)
        let content: HTML = """
            <h1 id="replay-title">\(student.studentName): step \(shown) of \(records.count)</h1>
            <p class="meta" id="replay-figures">\(figures.joined(separator: " · "))\
            \(snapshot.removedBytes > 0 ? " · \(snapshot.removedBytes) bytes removed" : "")</p>
            <nav class="replay-steps">\(navigation.map { HTML(stringLiteral: "\($0) ") })</nav>
            \(partNote(part, of: snapshot, step: shown))\
            <pre id="replay-text" class="replay">\(text(of: snapshot, in: part))</pre>
            <p class="note">\(entry.isSessionStart ? "The text the first session began from." : "Underlined: what this step added.") \
            The text is rebuilt from the snapshots the student's clsfile took at the end of each session; each is checked against its digest.</p>
            """
        return PageLayout(
            title: "Replay · \(student.studentName) · \(assignment.title)",
            trail: [
                .init(label: "Class", link: links.home),
                .init(label: assignment.title, link: links.assignment(assignment.identifier)),
                .init(label: student.studentName, link: links.student(student.studentIdentifier, of: assignment.identifier)),
                .init(label: "Replay", link: nil)
            ], content: content, source: links.source
        ).render()
    }

    /// The snapshot's text in a byte range, what it added in `<ins>`.
    private func text(of snapshot: WritingSnapshot, in part: Range<Int>) -> HTML {
        HTML(joining: snapshot.pieces(of: part).map { piece in piece.isInserted ? "<ins>\(piece.text)</ins>" : "\(piece.text)" })
    }

    /// The bytes of the text shown: from ``from`` (back to the start of its character) at most
    /// ``longestPart`` on, ended at a line's end when one is in the part's second half, and just
    /// after the ``mostMarked``th addition when there are more; whole characters.
    private func part(of snapshot: WritingSnapshot) -> Range<Int> {
        let content = snapshot.content
        func isContinuation(_ offset: Int) -> Bool { offset < content.count && content[offset] & 0xC0 == 0x80 }
        var start = from > 0 && from < content.count ? from : 0
        while start > 0, isContinuation(start) { start -= 1 }
        var end = min(content.count, start + Self.longestPart)
        if end < content.count, let lineEnd = content[(start + Self.longestPart / 2)..<end].lastIndex(of: UInt8(ascii: "\n")) {
            end = lineEnd + 1
        }
        let last = snapshot.insertionIndex(after: start) + Self.mostMarked - 1
        if !snapshot.entry.isSessionStart, last + 1 < snapshot.inserted.count, snapshot.inserted[last + 1].lowerBound < end {
            end = snapshot.inserted[last].upperBound
        }
        while end < content.count, isContinuation(end) { end += 1 }
        return start..<end
    }

    /// What part of a long or much changed text is shown, with links to the next part and the
    /// start; nothing when the text is shown whole.
    private func partNote(_ part: Range<Int>, of snapshot: WritingSnapshot, step: Int) -> HTML {
        let total = snapshot.content.count
        guard part.count < total else { return "" }
        let after = snapshot.entry.isSessionStart ? 0 : snapshot.inserted.count - snapshot.insertionIndex(after: part.upperBound)
        let link = { (offset: Int) in links.replay(student.studentIdentifier, of: assignment.identifier, step: step, from: offset) }
        let more: HTML =
            part.upperBound < total
            ? " <a id=\"replay-more\" href=\"\(link(part.upperBound))\">Next part</a>\(after > 0 ? " (\(after) more \(after == 1 ? "change" : "changes"))" : "")"
            : ""
        let back: HTML = part.lowerBound > 0 ? " <a id=\"replay-start\" href=\"\(link(0))\">Back to the start</a>" : ""
        return """
            <p class="note" id="replay-part">Bytes \(part.lowerBound + 1)–\(part.upperBound) of \(total): the text is shown in parts \
            of at most \(Self.longestPart / 1024) KiB and \(Self.mostMarked) marked additions.\(more)\(back)</p>

            """
    }
}
