@testable import ClassDashboard
@testable import Classroom
import Foundation
import OpenClassKit
import Testing

/// The student's own words on the student page: the note on the work above the sessions, each
/// note on a session or its paste in that session's row, the dictated sessions marked.
struct StudentNotesTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    static func row(notes: [EvidenceNote]?, dictated: Bool = false) -> ClassReport.StudentRow {
        let sessions = (0..<3).map { index in
            StudentWork.Session(
                start: start.addingTimeInterval(Double(index) * 3600), end: start.addingTimeInterval(Double(index) * 3600 + 600),
                identifier: "session-\(index + 1)", isDictated: dictated && index == 2 ? true : nil)
        }
        var work = StudentWork(
            assignmentIdentifier: "essay", documentName: "essay.txt", activeSeconds: 1_800, sessions: sessions, progress: 0.5,
            primaryItem: nil, additionalItems: [], completedAt: nil)
        work.notes = notes
        return ClassReport.StudentRow(studentIdentifier: "ada", studentName: "Ada", submittedAt: start, work: work)
    }

    static func page(_ row: ClassReport.StudentRow) -> String {
        let summary = ClassReport.summary(of: AssignmentFixture.make(title: "Essay", className: nil), rows: [row])
        return StudentPage(assignment: summary, student: row, links: Links(token: nil)).render().rendered
    }

    /// The markup of the row of session `number` (1-based).
    static func sessionRow(_ number: Int, in page: String) -> String {
        page.components(separatedBy: "<tr class=\"session\"").dropFirst(number).first?.components(separatedBy: "</tr>").first ?? ""
    }

    @Test func eachNoteShowsBesideWhatItExplains() throws {
        let page = Self.page(
            Self.row(
                notes: [
                    EvidenceNote(kind: .work, text: "My first essay <in> this class.", writtenAt: Self.start),
                    EvidenceNote(kind: .session, sessionIdentifier: "session-2", text: "Written at the library", writtenAt: Self.start),
                    EvidenceNote(kind: .paste, sessionIdentifier: "session-2", text: "Pasted from my outline", writtenAt: Self.start)
                ], dictated: true))
        let workNote = page.components(separatedBy: "id=\"work-note\"").dropFirst().first ?? ""
        #expect(workNote.contains("My first essay &lt;in&gt; this class."), "escaped, as all students' text")
        let workNoteAt = try #require(page.range(of: "id=\"work-note\""))
        let tableAt = try #require(page.range(of: "<table id=\"sessions\">"))
        #expect(workNoteAt.lowerBound < tableAt.lowerBound, "the note on the work comes above the sessions")
        #expect(page.contains("<th>The student's notes</th>"))
        let second = Self.sessionRow(2, in: page)
        #expect(second.contains("Written at the library") && second.contains("On the paste:</strong> Pasted from my outline"))
        #expect(!Self.sessionRow(1, in: page).contains("Written at the library"))
        #expect(Self.sessionRow(3, in: page).contains("dictation: input counted as typed"))
        #expect(!second.contains("dictation"))
    }

    @Test func workWithoutNotesShowsTheSessionsAsBefore() {
        let page = Self.page(Self.row(notes: nil))
        #expect(!page.contains("work-note") && !page.contains("student-notes") && !page.contains("The student's notes"))
        // Sessions sent without their active time show their lengths, and say so.
        #expect(page.contains("<th class=\"number\">Length</th></tr></thead>"))
    }

    @Test func sessionsWithTheirActiveTimeAddUpToTheWorksTime() {
        var row = Self.row(notes: nil)
        // 1,800.9 s in all, in sessions of 600.3 s: each alone would read 10m 00s, the three 30m 00s.
        row.work.activeSeconds = 1_800.9
        for index in row.work.sessions.indices { row.work.sessions[index].activeSeconds = 600.3 }
        let page = Self.page(row)
        #expect(page.contains("<th class=\"number\">Active</th></tr></thead>"))
        #expect(page.contains(">30m 01s</span>"), "the Time card")
        let lengths = (1...3).map { Self.sessionRow($0, in: page) }
        #expect(lengths[0].contains(">10m 00s<") && lengths[1].contains(">10m 01s<") && lengths[2].contains(">10m 00s<"), "\(lengths)")
    }
}
