@testable import ClassDashboard
@testable import Classroom
import Foundation
import OpenClassKit
import Testing

/// The statement of AI use on the teacher's pages: a column of the assignment's table and the
/// student's own words on their page, only where the handout asks or a student said something.
struct AIStatementPageTests {
    static let stated = Date(timeIntervalSince1970: 1_760_000_000)

    static func row(_ name: String, _ statement: AIStatement?) -> ClassReport.StudentRow {
        var work = StudentWork(
            assignmentIdentifier: "assignment-1", documentName: "essay.txt", activeSeconds: 60, sessions: [], progress: 0.5,
            primaryItem: nil, additionalItems: [], completedAt: nil)
        work.aiStatement = statement
        return ClassReport.StudentRow(studentIdentifier: name.lowercased(), studentName: name, submittedAt: stated, work: work)
    }

    /// When each student's work came, and who wrote notes on it, on the assignment and class pages.
    @Test func thePagesShowWhenWorkCameAndWhoWroteNotes() throws {
        var ada = Self.row("Ada", nil)
        ada.work.notes = [
            EvidenceNote(kind: .work, text: "My first essay."), EvidenceNote(kind: .session, sessionIdentifier: "s1", text: "Library")
        ]
        var bob = Self.row("Bob", nil)
        bob.submittedAt = Self.stated.addingTimeInterval(3600)
        let summary = ClassReport.summary(of: AssignmentFixture.make(title: "Essay", className: "7B"), rows: [ada, bob])
        let links = Links(token: nil)
        let table = AssignmentPage(assignment: summary, links: links).render().rendered
        #expect(table.contains("<th>Received</th>"), "\(table)")
        for row in [ada, bob] {
            #expect(table.contains(#"<td class="received"><time datetime="\#(DisplayFormat.machine(row.submittedAt))">"#), "\(table)")
        }
        #expect(table.contains(#">2 notes</span>"#) && table.components(separatedBy: "note-mark").count == 2, "Ada's only: \(table)")
        let page = ClassPage(report: ClassReport(assignments: [summary]), links: links).render().rendered
        #expect(
            page.contains(#"<td class="last-received"><time datetime="\#(DisplayFormat.machine(bob.submittedAt))">"#)
                && page.contains("1 with notes"), "\(page)")
    }

    @Test func theAssignmentPageHasAnAIUseColumnAndTheStudentPageTheirWords() throws {
        let note = #"Asked a chatbot for "three openings" <b>& chose none</b>"#
        let ada = Self.row("Ada", try AIStatement(use: .ideas, note: note, statedAt: Self.stated))
        let bob = Self.row("Bob", nil)
        var assignment = AssignmentFixture.make(title: "Essay", className: "7B")
        assignment.aiStatementRequirement = .required
        let summary = ClassReport.summary(of: assignment, rows: [ada, bob])
        let links = Links(token: nil)

        let table = AssignmentPage(assignment: summary, links: links).render().rendered
        #expect(table.contains("<th>AI use</th>") && table.contains("AI statement required"))
        #expect(!table.contains("note-mark"), "no student wrote notes: \(table)")
        #expect(
            table.contains(
                #"data-ai-use="ideas" title="Asked a chatbot for &quot;three openings&quot; &lt;b&gt;&amp; chose none&lt;/b&gt;">AI for ideas</span>"#
            ), "\(table)")
        #expect(table.contains(#"<span class="none" data-ai-use="">Not given</span>"#))

        let adaPage = StudentPage(assignment: summary, student: ada, links: links).render().rendered
        #expect(adaPage.contains(#"<h2>AI use</h2>"#) && adaPage.contains(#"id="ai-use" data-ai-use="ideas""#))
        // The use is chosen from a list: only the note is said to be the student's own words.
        #expect(adaPage.contains("The student chose: <strong>AI for ideas</strong>"), "\(adaPage)")
        #expect(
            adaPage.contains(
                #"<p>In the student's own words:</p><blockquote id="ai-note"><p>Asked a chatbot for &quot;three openings&quot; &lt;b&gt;&amp; chose none&lt;/b&gt;</p></blockquote>"#
            ))
        let bobPage = StudentPage(assignment: summary, student: bob, links: links).render().rendered
        #expect(bobPage.contains("has not said how they used AI tools") && !bobPage.contains("ai-note"))
        let carl = Self.row("Carl", try AIStatement(use: .ideas, note: nil, statedAt: Self.stated))
        let carlPage = StudentPage(assignment: summary, student: carl, links: links).render().rendered
        #expect(
            carlPage.contains("The student chose: <strong>AI for ideas</strong>") && !carlPage.contains("own words"),
            "no words are put in the mouth of a student who wrote none: \(carlPage)")

        // Not asked and not said: no column, no section, as before statements.
        let plain = ClassReport.summary(of: AssignmentFixture.make(title: "Essay", className: "7B"), rows: [bob])
        #expect(!AssignmentPage(assignment: plain, links: links).render().rendered.contains("AI use"))
        #expect(!StudentPage(assignment: plain, student: bob, links: links).render().rendered.contains("AI use"))
    }
}
