import Classroom
import Foundation
import OpenClassKit

/// `/assignments/{id}/students/{studentID}/replay?step=N`: the student's text as one snapshot of
/// the submitted history holds it, what that snapshot added underlined, with links to the steps
/// around it (no script).
struct ReplayPage {
    var assignment: ClassReport.AssignmentSummary
    var student: ClassReport.StudentRow
    var links: Links
    /// The step asked for, 1-based; out of range shows the nearest.
    var step: Int

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
        let navigation = [("First", 1), ("Previous", shown - 1), ("Next", shown + 1), ("Last", records.count)].map { label, target -> HTML in
            target >= 1 && target <= records.count && target != shown
                ? "<a href=\"\(links.replay(student.studentIdentifier, of: assignment.identifier, step: target))\" id=\"replay-\(label.lowercased())\">\(label)</a>"
                : "<span class=\"muted\">\(label)</span>"
        }
        var figures = ["\(DisplayFormat.timestamp(entry.date))"]
        if let words = entry.words {
            figures.append("\(words) words" + (previous?.words.map { " (\(words - $0 >= 0 ? "+" : "")\(words - $0))" } ?? ""))
        }
        if let pasted = entry.pastedCharacters, pasted > (previous?.pastedCharacters ?? 0) {
            figures.append("pasted \(pasted - (previous?.pastedCharacters ?? 0)) characters")
        }
        let content: HTML = """
            <h1 id="replay-title">\(student.studentName): step \(shown) of \(records.count)</h1>
            <p class="meta" id="replay-figures">\(figures.joined(separator: " · "))\
            \(snapshot.removedBytes > 0 ? " · \(snapshot.removedBytes) bytes removed" : "")</p>
            <nav class="replay-steps">\(navigation.map { HTML(stringLiteral: "\($0) ") })</nav>
            <pre id="replay-text" class="replay">\(text(of: snapshot))</pre>
            <p class="note">\(entry.isSessionStart ? "The text the first session began from." : "Underlined: what this step added.") \
            The text is rebuilt from the snapshots the student's clsfile took at the end of each session; each is checked against its digest.</p>
            """
        return PageLayout(title: "Replay · \(student.studentName) · \(assignment.title)", trail: [
            .init(label: "Class", link: links.home),
            .init(label: assignment.title, link: links.assignment(assignment.identifier)),
            .init(label: student.studentName, link: links.student(student.studentIdentifier, of: assignment.identifier)),
            .init(label: "Replay", link: nil),
        ], content: content, source: links.source).render()
    }

    /// The snapshot's text, what it added in `<ins>`.
    private func text(of snapshot: WritingSnapshot) -> HTML {
        HTML(joining: snapshot.pieces().map { piece in piece.isInserted ? "<ins>\(piece.text)</ins>" : "\(piece.text)" })
    }
}
