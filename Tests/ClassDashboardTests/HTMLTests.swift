@testable import ClassDashboard
@testable import Classroom
import Foundation
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
        let work = StudentWork(assignmentIdentifier: hostile, documentName: hostile, activeSeconds: 60,
                               sessions: [.init(start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 60))],
                               progress: 0.5, primaryItem: item, additionalItems: [item, other], completedAt: nil)
        let row = ClassReport.StudentRow(studentIdentifier: hostile, studentName: hostile, submittedAt: Date(timeIntervalSince1970: 0), work: work)
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
            MessagePage(title: hostile, message: hostile, links: links).render(),
        ]
        for page in pages.map(\.rendered) {
            #expect(!page.contains("<script") && !page.contains("<img") && !page.contains("\"quoted\""))
            #expect(page.contains(Self.escaped))
        }
    }

    @Test func linksPercentEncodeIdentifiersAndCarryTheToken() {
        let links = Links(token: "abc-DEF_123.~xyz")
        #expect(links.home == "/?token=abc-DEF_123.~xyz")
        #expect(links.student("a/b?c", of: "x y") == "/assignments/x%20y/students/a%2Fb%3Fc?token=abc-DEF_123.~xyz")
        #expect(Links(token: nil).assignment("id") == "/assignments/id")
    }

    @Test(arguments: [(0.0, "0s"), (59.9, "59s"), (700, "11m 40s"), (7500, "2h 05m")])
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

    @Test(arguments: [(Double.nan, "-"), (.infinity, "-"), (1e300, "-"), (-1e300, "-")] as [(Double, String)])
    func sharesAndNumbersNeverTrap(value: Double, text: String) {
        #expect(DisplayFormat.percent(value) == text || value.isFinite, "\(value)")
        #expect(DisplayFormat.number(value) == text || value.isFinite, "\(value)")
        // Finite extremes are written out, not trapped on.
        if value.isFinite {
            #expect(DisplayFormat.percent(value).hasSuffix("%"))
            #expect(!DisplayFormat.number(value).isEmpty)
        }
    }
}
