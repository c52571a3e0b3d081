@testable import ClassDashboard
@testable import Classroom
import Foundation
import OpenClassKit
import Testing

/// The lists that grow with what students send are shown a page at a time: a student's sessions
/// and items, and the submissions kept aside; the writing history is read in one pass.
struct PagingTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let longTitle = String(repeating: "\"<&>'", count: 200)

    /// Work as large as a submission may be: 62,000 sessions, 1,000 items of 1 KB names, and
    /// 62,000 history rows, each its own session, with no figure but the time after the first.
    static func largeWork() -> StudentWork {
        let sessions = (0..<62_000).map { index in
            StudentWork.Session(
                start: start.addingTimeInterval(Double(index) * 600), end: start.addingTimeInterval(Double(index) * 600 + 300))
        }
        let items = (0..<1_000).map { index in
            StudentWork.Item(kind: "quantity", identifier: "item-\(index)-" + longTitle, title: longTitle, value: Double(index))
        }
        var work = StudentWork(
            assignmentIdentifier: "assignment-1", documentName: "essay.txt", activeSeconds: 3_600, sessions: sessions,
            progress: 0.5, progressBasis: .targetWords, primaryItem: items[0], additionalItems: Array(items.dropFirst()),
            completedAt: nil)
        work.history = (0..<62_000).map { index in
            let sessionStart = start.addingTimeInterval(Double(index) * 600)
            return WritingHistoryEntry(
                date: sessionStart.addingTimeInterval(300), sessionStart: sessionStart,
                sessionEnd: sessionStart.addingTimeInterval(300), activeTime: Double(index + 1) * 300,
                words: index == 0 ? 10 : nil, typedCharacters: index == 0 ? 50 : nil,
                sessionIdentifier: "session-\(index)")
        }
        return work
    }

    static func summary(_ rows: [ClassReport.StudentRow]) -> ClassReport.AssignmentSummary {
        ClassReport.summary(of: AssignmentFixture.make(title: "Essay", className: nil), rows: rows)
    }

    static func count(_ needle: String, in page: String) -> Int {
        page.components(separatedBy: needle).count - 1
    }

    @Test(.timeLimit(.minutes(1)))
    func theLargestSubmissionsStudentPageIsBoundedAndQuick() throws {
        let work = Self.largeWork()
        try work.validate(at: Self.start.addingTimeInterval(62_000 * 600), file: URL(fileURLWithPath: "/crafted.clsfile"))
        let row = ClassReport.StudentRow(studentIdentifier: "student-ada", studentName: "Ada", submittedAt: Self.start, work: work)
        let page = StudentPage(assignment: Self.summary([row]), student: row, links: Links(token: nil)).render().rendered
        #expect(page.utf8.count < 1_000_000, "\(page.utf8.count) bytes")
        #expect(Self.count("<tr class=\"session\"", in: page) == StudentPage.sessionsShown)
        #expect(Self.count("<tr class=\"item\"", in: page) == StudentPage.itemsShown)
        #expect(page.contains(#"id="session-count" data-sessions="62000""#), "the card counts every session")
        #expect(page.contains("Sessions 1–500 of 62000.") && page.contains("sessions-from=500\">Next 500</a>"))
        #expect(page.contains("Items 1–50 of 1000.") && page.contains("items-from=50\">Next 50</a>"))
        #expect(!page.contains("-previous"), "the first rows have none before them")
        // The history's table lists the newest sessions, the first of them counted from the first row.
        #expect(page.contains("61500 earlier sessions not listed"))
    }

    @Test func laterRowsAreNumberedAsInTheWholeList() throws {
        let work = Self.largeWork()
        let row = ClassReport.StudentRow(studentIdentifier: "student-ada", studentName: "Ada", submittedAt: Self.start, work: work)
        let page = StudentPage(
            assignment: Self.summary([row]), student: row, links: Links(token: "t0ken-t0ken-t0ken"),
            itemsFrom: 980, sessionsFrom: 61_900
        ).render().rendered
        let sessions = page.components(separatedBy: "<tr class=\"session\"").dropFirst()
        #expect(sessions.count == 100)
        #expect(sessions.first?.contains("<td class=\"number\">61901</td>") == true)
        #expect(sessions.last?.contains("<td class=\"number\">62000</td>") == true)
        #expect(page.contains("Sessions 61901–62000 of 62000."))
        #expect(
            page.contains(
                "/assignments/assignment-1/students/student-ada?sessions-from=61400&amp;token=t0ken-t0ken-t0ken\">Previous 500</a>"))
        #expect(!page.contains("sessions-paging-next"))
        #expect(Self.count("<tr class=\"item\"", in: page) == 20 && page.contains("items-from=930&amp;token="))
        // Past the end: the first rows.
        let past = StudentPage(assignment: Self.summary([row]), student: row, links: Links(token: nil), sessionsFrom: 70_000).render()
            .rendered
        #expect(past.contains("Sessions 1–500 of 62000."))
    }

    @Test func anOrdinaryPageHasNoPaging() {
        let work = StudentWork(
            assignmentIdentifier: "assignment-1", documentName: "essay.txt", activeSeconds: 600,
            sessions: [.init(start: Self.start, end: Self.start.addingTimeInterval(600))], progress: 0.5,
            primaryItem: .init(kind: "quantity", identifier: "total_word_count", title: "Word Count", value: 400),
            additionalItems: [], completedAt: nil)
        let row = ClassReport.StudentRow(studentIdentifier: "student-ada", studentName: "Ada", submittedAt: Self.start, work: work)
        var summary = Self.summary([row])
        summary.keptAside = [.init(studentIdentifier: "student-bob", studentName: "Bob", submittedAt: Self.start, keyFingerprint: "ab12")]
        let student = StudentPage(assignment: summary, student: row, links: Links(token: nil), itemsFrom: 5, sessionsFrom: 5).render()
            .rendered
        let assignment = AssignmentPage(assignment: summary, links: Links(token: nil), keptAsideFrom: 5).render().rendered
        for page in [student, assignment] { #expect(!page.contains("paging"), "\(page)") }
        #expect(student.contains("<table id=\"items\">") && student.contains("<table id=\"sessions\">"))
        #expect(assignment.contains("<table id=\"kept-aside\">") && assignment.contains("<td>Bob</td>"))
    }

    @Test func submissionsKeptAsideAreShownAPageAtATime() {
        var summary = Self.summary([])
        summary.keptAside = (0..<250).map { index in
            .init(
                studentIdentifier: "student-\(index)", studentName: "Student \(index)", submittedAt: Self.start,
                keyFingerprint: String(repeating: "f", count: 64))
        }
        let first = AssignmentPage(assignment: summary, links: Links(token: nil)).render().rendered
        #expect(Self.count("<tr data-student=\"student-", in: first) == AssignmentPage.keptAsideShown)
        #expect(
            first.contains("Submissions kept aside 1–100 of 250.")
                && first.contains("/assignments/assignment-1?kept-aside-from=100\">Next 100</a>"))
        let last = AssignmentPage(assignment: summary, links: Links(token: nil), keptAsideFrom: 200).render().rendered
        #expect(Self.count("<tr data-student=\"student-", in: last) == 50)
        #expect(last.contains("<td>Student 249</td>") && !last.contains("<td>Student 199</td>"))
        #expect(last.contains("kept-aside-from=100\">Previous 100</a>") && !last.contains("kept-aside-paging-next"))
    }
}

/// Lists that grow with who joins a class (anyone with its code may): the students of an
/// assignment, their progress lines on the class page, and the report's JSON, a page at a time.
struct StudentPagingTests {
    static let start = PagingTests.start

    static func row(_ index: Int, withHistory: Bool = false) -> ClassReport.StudentRow {
        var work = StudentWork(
            assignmentIdentifier: "assignment-1", documentName: "essay.txt", activeSeconds: Double(60 * (index + 1)),
            sessions: [.init(start: start, end: start.addingTimeInterval(60))], progress: Double(index % 10) / 10,
            progressBasis: .targetWords, primaryItem: nil, additionalItems: [], completedAt: index % 3 == 0 ? start : nil)
        if withHistory {
            work.history = [
                WritingHistoryEntry(
                    date: start.addingTimeInterval(60), sessionStart: start, sessionEnd: start.addingTimeInterval(60),
                    activeTime: 60, progress: 0.1),
                WritingHistoryEntry(
                    date: start.addingTimeInterval(7_260), sessionStart: start.addingTimeInterval(7_200),
                    sessionEnd: start.addingTimeInterval(7_260), activeTime: 120, progress: 0.4)
            ]
        }
        return ClassReport.StudentRow(
            studentIdentifier: String(format: "student-%04d", index), studentName: "Student \(index)",
            submittedAt: start, work: work)
    }

    @Test func anAssignmentsStudentsAreShownAPageAtATime() {
        let summary = PagingTests.summary((0..<450).map { Self.row($0) })
        let first = AssignmentPage(assignment: summary, links: Links(token: nil)).render().rendered
        #expect(PagingTests.count("<tr data-student=\"student-", in: first) == AssignmentPage.studentsShown)
        #expect(first.contains("Students 1–200 of 450.") && first.contains("/assignments/assignment-1?students-from=200\">Next 200</a>"))
        // The cards count every student, whichever rows are shown.
        #expect(first.contains(#"data-students="450""#))
        let last = AssignmentPage(assignment: summary, links: Links(token: nil), studentsFrom: 400).render().rendered
        #expect(PagingTests.count("<tr data-student=\"student-", in: last) == 50)
        #expect(last.contains("Students 401–450 of 450.") && last.contains("students-from=200\">Previous 200</a>"))
        #expect(!last.contains("students-paging-next"))
        // A class of ordinary size has no paging.
        let small = AssignmentPage(assignment: PagingTests.summary((0..<30).map { Self.row($0) }), links: Links(token: nil)).render()
            .rendered
        #expect(!small.contains("students-paging") && PagingTests.count("<tr data-student=\"student-", in: small) == 30)
    }

    @Test func theClassPageDrawsAtMostFortyProgressLinesAnAssignment() {
        let many = PagingTests.summary((0..<45).map { Self.row($0, withHistory: true) })
        let page = ClassPage(report: ClassReport(assignments: [many]), links: Links(token: nil)).render().rendered
        #expect(PagingTests.count("class=\"progress-line\"", in: page) == ClassPage.progressLinesShown)
        #expect(page.contains("<a href=\"/assignments/assignment-1\">and 5 more students</a>"))
        let few = PagingTests.summary((0..<3).map { Self.row($0, withHistory: true) })
        let short = ClassPage(report: ClassReport(assignments: [few]), links: Links(token: nil)).render().rendered
        #expect(PagingTests.count("class=\"progress-line\"", in: short) == 3 && !short.contains("more-lines"))
    }

    /// Every student once over the pages, by identifier; each page with the class's own figures;
    /// a student whose only submission was kept aside on a page too.
    @Test func aReportIsWalkedAPageOfStudentsAtATime() {
        var summary = PagingTests.summary((0..<5).map { Self.row($0) })
        summary.keptAside = [
            .init(studentIdentifier: "student-0009", studentName: "Student 9", submittedAt: Self.start, keyFingerprint: "ab12")
        ]
        let whole = ClassReport(assignments: [summary])
        var pages: [ClassReport] = []
        var after: String?
        repeat {
            let page = whole.page(after: after, limit: 2)
            pages.append(page.report)
            after = page.nextAfter
        } while after != nil && pages.count < 10
        #expect(
            pages.map { $0.assignments[0].students.map(\.studentIdentifier) + $0.assignments[0].keptAside.map(\.studentIdentifier) } == [
                ["student-0000", "student-0001"], ["student-0002", "student-0003"], ["student-0004", "student-0009"]
            ])
        for page in pages {
            #expect(page.assignments[0].studentCount == 5 && page.assignments[0].averageProgress == summary.averageProgress)
            #expect(page.assignments[0].doneCount == summary.doneCount)
        }
        #expect(ClassReport(mergingPages: pages) == whole)
        // After the last student, an empty page and no next.
        let past = whole.page(after: "student-0009", limit: 2)
        #expect(past.report.assignments[0].students.isEmpty && past.nextAfter == nil)
    }
}
