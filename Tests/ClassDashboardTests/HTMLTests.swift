@testable import ClassDashboard
@testable import Classroom
import Foundation
import OpenClassKit
import Testing

struct HTMLTests {
    static let hostile = #"<script>alert('x')</script> & "quoted" <img src=x onerror=alert(1)>"#
    static let escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; &lt;img src=x onerror=alert(1)&gt;"

    @Test func interpolatedTextIsEscapedAndMarkupIsNot() {
        let name = Self.hostile
        let inner: HTML = "<em>\(name)</em>"
        let html: HTML = "<td title=\"\(name)\">\(inner)</td>"
        #expect(html.rendered == "<td title=\"\(Self.escaped)\"><em>\(Self.escaped)</em></td>")
    }

    @Test func everyPageEscapesWhatStudentsAndTeachersTyped() throws {
        let hostile = Self.hostile
        let item = StudentWork.Item(kind: "quantity", identifier: hostile, title: hostile, value: 3, maxScore: nil)
        let other = StudentWork.Item(kind: "score", identifier: "quiz", title: hostile, value: 1, maxScore: 2)
        let work = StudentWork(
            assignmentIdentifier: hostile, documentName: hostile, activeSeconds: 60,
            sessions: [.init(start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 60))],
            progress: 0.5, primaryItem: item, additionalItems: [item, other], completedAt: nil)
        let row = ClassReport.StudentRow(
            studentIdentifier: hostile, studentName: hostile, submittedAt: Date(timeIntervalSince1970: 0), work: work)
        var scored = row
        scored.work.primaryItem = other
        let assignment = AssignmentFixture.make(title: hostile, className: hostile)
        let summary = ClassReport.summary(of: assignment, rows: [row, scored])
        #expect(summary.warning != nil)
        let report = ClassReport(assignments: [summary])
        let links = Links(token: nil)
        let pages = [
            ClassPage(report: report, links: links).render(),
            AssignmentPage(assignment: summary, links: links).render(),
            StudentPage(assignment: summary, student: row, links: links).render(),
            MessagePage(title: hostile, message: hostile, links: links).render()
        ]
        for page in pages.map(\.rendered) {
            #expect(!page.contains("<script") && !page.contains("<img") && !page.contains("\"quoted\""))
            #expect(page.contains(Self.escaped))
        }
    }

    @Test func theClassPageShowsEachAssignedContextWithItsAverages() {
        func work(_ seconds: Double, _ progress: Double, done: Bool) -> StudentWork {
            StudentWork(
                assignmentIdentifier: "a", documentName: "doc.md", activeSeconds: seconds, sessions: [],
                progress: progress, primaryItem: nil, additionalItems: [],
                completedAt: done ? Date(timeIntervalSince1970: 0) : nil)
        }
        func row(_ student: String, _ work: StudentWork) -> ClassReport.StudentRow {
            ClassReport.StudentRow(
                studentIdentifier: student, studentName: student, submittedAt: Date(timeIntervalSince1970: 0), work: work)
        }
        var notes = AssignmentFixture.make(title: "Chapter 1: Notes", className: nil)
        notes.contextPath = [Self.hostile, "ch1"]
        var exercises = notes
        exercises.identifier = "assignment-2"
        let summaries = [
            ClassReport.summary(of: notes, rows: [row("ada", work(600, 1, done: true)), row("bob", work(60, 0.5, done: false))]),
            ClassReport.summary(of: exercises, rows: [row("ada", work(300, 0.5, done: true))])
        ]
        let report = ClassReport(assignments: summaries)
        let context = try! #require(report.contexts.first)
        // Ada: 900 s, (1 + 0.5) / 2; Bob: 60 s, (0.5 + 0) / 2, his missing document counting as none.
        #expect(report.contexts.count == 1 && context.assignmentIdentifiers == ["assignment-1", "assignment-2"])
        #expect(context.studentCount == 2 && context.doneCount == 1)
        #expect(context.averageActiveSeconds == 480 && context.averageProgress == 0.5)
        let page = ClassPage(report: report, links: Links(token: nil)).render().rendered
        #expect(page.contains("<table id=\"contexts\">") && page.contains(">1 of 2</td>") && page.contains("8m 00s"))
        // Assignments that name no class: the page is the class report, not "Class".
        #expect(page.contains("<h1>Class report</h1>"), "\(page.prefix(600))")
        #expect(!page.contains("<script") && page.contains(Self.escaped))
    }

    @Test func linksPercentEncodeIdentifiersAndCarryTheToken() {
        let links = Links(token: "abc-DEF_123.~xyz")
        #expect(links.home == "/?token=abc-DEF_123.~xyz")
        #expect(links.student("a/b?c", of: "x y") == "/assignments/x%20y/students/a%2Fb%3Fc?token=abc-DEF_123.~xyz")
        #expect(Links(token: nil).assignment("id") == "/assignments/id")
    }

    @Test(arguments: [(0.0, "0s"), (59.4, "59s"), (59.9, "1m 00s"), (700, "11m 40s"), (7500, "2h 05m")])
    func durationsReadAsTheCommandWritesThem(seconds: Double, text: String) {
        #expect(DisplayFormat.duration(seconds) == text)
    }

    @Test(arguments: [(0.75, "75%"), (0.625, "62.5%"), (1.0 / 3, "33.3%")])
    func sharesReadAsPercentages(share: Double, text: String) {
        #expect(DisplayFormat.percent(share) == text)
    }

    /// Imported work can hold any number: none may trap the server.
    @Test(arguments: [(Double.nan, "-"), (.infinity, "-"), (-.infinity, "-"), (1e300, "2.77778e+296h"), (-5, "0s")])
    func durationsNeverTrap(seconds: Double, text: String) {
        #expect(DisplayFormat.duration(seconds) == text)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func sharesAndNumbersThatAreNotFiniteReadAsADash(value: Double) {
        #expect(DisplayFormat.percent(value) == "-", "\(value)")
        #expect(DisplayFormat.number(value) == "-", "\(value)")
    }

    /// Past the range of `Int` a share or a number is written out in full to one decimal, neither
    /// trapped on nor put in exponent form: what it reads as is the value.
    @Test(arguments: [1e300, -1e300, 1e15, -2.5e17])
    func finiteExtremesAreWrittenOutInFull(value: Double) throws {
        let number = DisplayFormat.number(value), percent = DisplayFormat.percent(value)
        #expect(number.hasSuffix(".0") && percent.hasSuffix(".0%"), "\(number) \(percent)")
        for text in [number, String(percent.dropLast())] {
            #expect(text.dropFirst(value < 0 ? 1 : 0).allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }, "\(text)")
        }
        let written = try #require(Double(number)), writtenShare = try #require(Double(percent.dropLast()))
        #expect(abs(written - value) <= abs(value) * 1e-15, "\(number)")
        #expect(abs(writtenShare - value * 100) <= abs(value * 100) * 1e-15, "\(percent)")
    }
}
