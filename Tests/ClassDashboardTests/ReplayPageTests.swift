@testable import ClassDashboard
@testable import Classroom
import Foundation
@testable import OpenClassKit
import Testing

/// The replay page shows a step of any submission in bounded parts: never megabytes of markup,
/// however many changes the step holds and however long its text is.
struct ReplayPageTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// A student's work whose snapshots are `records`, as a report row.
    static func row(_ records: [WritingSnapshotRecord]) throws -> (ClassReport.AssignmentSummary, ClassReport.StudentRow) {
        var work = StudentWork(
            assignmentIdentifier: "assignment-1", documentName: "essay.txt", activeSeconds: 60, sessions: [],
            progress: 0.5, primaryItem: nil, additionalItems: [], completedAt: nil)
        work.history = records.map(\.entry)
        work.snapshots = records
        // What a collected submission would have to pass.
        try work.validate(at: start.addingTimeInterval(86_400), file: URL(fileURLWithPath: "/crafted.clsfile"))
        let row = ClassReport.StudentRow(studentIdentifier: "student-ada", studentName: "Ada", submittedAt: start, work: work)
        return (ClassReport.summary(of: AssignmentFixture.make(title: "Essay", className: nil), rows: [row]), row)
    }

    static func entry(_ minutes: Double, isSessionStart: Bool = false) -> WritingHistoryEntry {
        WritingHistoryEntry(
            date: start.addingTimeInterval(minutes * 60), sessionStart: start, activeTime: minutes * 60,
            sessionIdentifier: "session-1", isSessionStart: isSessionStart)
    }

    /// A delta record made of the given operations, from `base`.
    static func record(_ operations: [ContentDelta.Operation], from base: [UInt8], at minutes: Double) throws -> (
        WritingSnapshotRecord, [UInt8]
    ) {
        let delta = ContentDelta(operations: operations)
        let content = try delta.applied(to: base).content
        return (
            WritingSnapshotRecord(
                entry: entry(minutes), delta: delta.encoded(), digest: HistoryTable.digest(of: content),
                isKeyframe: false), content
        )
    }

    static func render(_ records: [WritingSnapshotRecord], step: Int, from: Int = 0) throws -> String {
        let (assignment, row) = try row(records)
        let page = try ReplayPage(assignment: assignment, student: row, links: Links(token: nil), step: step, from: from).render()
        return try #require(page).rendered
    }

    /// The text a page shows, its marks and character references undone.
    static func shownText(_ page: String) throws -> String {
        let open = try #require(page.range(of: "<pre id=\"replay-text\" class=\"replay\">"))
        let close = try #require(page.range(of: "</pre>", range: open.upperBound..<page.endIndex))
        return String(page[open.upperBound..<close.lowerBound])
            .replacingOccurrences(of: "<ins>", with: "").replacingOccurrences(of: "</ins>", with: "")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Where the page's "more" link goes on from, if it has one.
    static func nextPart(_ page: String) -> Int? {
        guard let link = page.range(of: #"id="replay-more" href="[^"]*from=[0-9]+"#, options: .regularExpression) else { return nil }
        return Int(page[link].split(separator: "=").last ?? "")
    }

    static func count(_ needle: String, in page: String) -> Int {
        page.components(separatedBy: needle).count - 1
    }

    /// 600,000 one-byte additions, each after a copy of the one byte of the text before, in a
    /// delta that deflates to a few kilobytes: a step once rendered as 7.8 MB of markup with an
    /// `<ins>` each.
    @Test func aStepOfManySmallAdditionsMarksABoundedNumberAPage() throws {
        let base = Array("a".utf8), additions = 600_000
        let keyframe = WritingSnapshotRecord(keyframeOf: base, entry: Self.entry(0, isSessionStart: true))
        let operations = (0..<additions).flatMap { _ -> [ContentDelta.Operation] in
            [.copy(offset: 0, count: 1), .insert(Array("b".utf8))]
        }
        let (crafted, content) = try Self.record(operations, from: base, at: 5)
        #expect(crafted.delta.count < 100_000 && content.count == 2 * additions)
        let records = [keyframe, crafted]

        let page = try Self.render(records, step: 2)
        #expect(page.utf8.count < 1_000_000, "\(page.utf8.count) bytes")
        #expect(Self.count("<ins>", in: page) == ReplayPage.mostMarked)
        let first = try Self.shownText(page)
        #expect(first == String(repeating: "ab", count: ReplayPage.mostMarked))
        #expect(page.contains("id=\"replay-part\""))
        let next = try #require(Self.nextPart(page))
        #expect(next == first.utf8.count)
        #expect(page.contains("\(additions - ReplayPage.mostMarked) more changes"), "the page says how many changes follow")

        // The next part goes on where the first stopped, marking the next changes.
        let second = try Self.render(records, step: 2, from: next)
        #expect(second.utf8.count < 1_000_000 && Self.count("<ins>", in: second) == ReplayPage.mostMarked)
        #expect(try Self.shownText(second) == String(repeating: "ab", count: ReplayPage.mostMarked))
        #expect(Self.nextPart(second) == 2 * next)
        #expect(second.contains("id=\"replay-start\""), "a later part links back to the start of the text")
    }

    /// A long text with no marks is shown a bounded number of bytes a page, cut at line ends,
    /// and the parts read in order make the whole text.
    @Test func aLongTextIsShownInPartsThatMakeTheWholeText() throws {
        let line = #"<p class="x">Rivers & "lakes" aren't markup.</p>"# + "\n"
        let text = String(repeating: line, count: 20_000)
        let records = [WritingSnapshotRecord(keyframeOf: Array(text.utf8), entry: Self.entry(0))]
        var shown = "", from = 0, parts = 0
        while true {
            let page = try Self.render(records, step: 1, from: from)
            #expect(page.utf8.count < 1_000_000, "\(page.utf8.count) bytes")
            #expect(Self.count("<ins>", in: page) == 1, "a keyframe's text is one addition")
            let part = try Self.shownText(page)
            #expect(part.hasSuffix("\n"), "a part ends at a line's end")
            #expect(part.utf8.count <= ReplayPage.longestPart)
            shown += part
            parts += 1
            guard let next = Self.nextPart(page) else { break }
            #expect(next == from + part.utf8.count)
            from = next
        }
        #expect(shown == text)
        #expect(parts > text.utf8.count / ReplayPage.longestPart)
    }

    /// A step of an ordinary essay is shown whole, as before: no parts, every addition marked.
    @Test func anOrdinaryStepIsShownWhole() throws {
        let before = Array("The river rises in the hills.\n".utf8)
        let records = [WritingSnapshotRecord(keyframeOf: before, entry: Self.entry(0, isSessionStart: true))]
        let (added, _) = try Self.record(
            [.copy(offset: 0, count: before.count), .insert(Array("It runs to the sea.\n".utf8))],
            from: before, at: 5)
        let page = try Self.render(records + [added], step: 2)
        #expect(
            page.contains("<pre id=\"replay-text\" class=\"replay\">The river rises in the hills.\n<ins>It runs to the sea.\n</ins></pre>"))
        #expect(!page.contains("replay-part") && !page.contains("replay-more"))
        // A part asked for past the end of the text shows it from the start.
        #expect(try Self.render(records + [added], step: 2, from: 10_000) == page)
    }
}
