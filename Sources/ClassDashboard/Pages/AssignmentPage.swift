import Classroom
import OpenClassKit

/// `/assignments/{id}?students-from=N&kept-aside-from=N`: a row per student with the key they
/// signed with, time, primary item, progress and done, under the assignment's averages; then the
/// submissions kept aside. Both lists a page at a time.
struct AssignmentPage {
    /// The most students shown at once: anyone with the class's code may join, so a class has
    /// no bound of its own.
    static let studentsShown = 200
    /// The most submissions kept aside shown at once: every one sent with another key is kept.
    static let keptAsideShown = 100

    var assignment: ClassReport.AssignmentSummary
    var links: Links
    /// The first student shown (0-based); out of range shows the first.
    var studentsFrom = 0
    /// The first submission kept aside shown (0-based); out of range shows the first.
    var keptAsideFrom = 0

    func render() -> HTML {
        var details: [String] = []
        if let className = assignment.className { details.append("Class \(className)") }
        if let due = assignment.dueDate { details.append("due \(DisplayFormat.day(due))") }
        if let target = assignment.targetWords { details.append("target \(target) words") }
        if let asked = assignment.aiStatementRequirement { details.append("AI statement \(asked.rawValue)") }
        details.append("document \(assignment.documentName)")
        let primaryCards = assignment.primaryAverages.map { average -> HTML in
            """
            <div class="card primary-card" data-key="\(average.key)" data-average="\(String(average.average))">\
            <div class="label">Average \(average.title)</div><div class="value">\(DisplayFormat.number(average.average))</div>\
            <div class="note">of \(average.count) \(average.count == 1 ? "student" : "students")</div></div>
            """
        }
        let shared = assignment.sharedNames
        let paging = Paging(total: assignment.students.count, size: Self.studentsShown, offset: studentsFrom)
        let navigation = paging.navigation(id: "students-paging", noun: "Students") { offset in
            links.assignment(assignment.identifier, rowsFrom: ("students", offset))
        }
        let students: HTML =
            assignment.students.isEmpty
            ? "<p class=\"empty\" id=\"no-students\">No work collected for this assignment yet.</p>"
            : """
            \(navigation)\
            <table id="students">
            <thead><tr><th>Student</th><th>Key</th><th>Received</th><th class="number">Time</th><th>Primary item</th><th>Progress</th><th>Done</th>\
            \(assignment.showsAIStatements ? "<th>AI use</th>" as HTML : "")</tr></thead>
            <tbody>
            \(assignment.students[paging.shown].map { row($0, sharing: shared) })
            </tbody>
            </table>
            """
        let content: HTML = """
            <h1 id="assignment-title">\(assignment.title)</h1>
            <p class="meta">\(details.joined(separator: " · "))</p>
            <div class="cards">
            <div class="card" id="done-count" data-done="\(assignment.doneCount)" data-students="\(assignment.studentCount)">\
            <div class="label">Done</div><div class="value">\(assignment.doneCount) of \(assignment.studentCount)</div></div>
            <div class="card" id="average-time"><div class="label">Average time</div>\
            <div class="value">\(Fragments.duration(assignment.averageActiveSeconds))</div></div>
            <div class="card" id="average-progress"><div class="label">Average progress</div>\
            <div class="value">\(Fragments.averageProgress(assignment.averageProgress))</div></div>
            \(primaryCards)
            </div>
            \(Fragments.warning(assignment.warning, for: assignment.identifier))
            <h2>Students</h2>
            \(students)
            \(keptAside)
            """
        return PageLayout(
            title: assignment.title,
            trail: [
                .init(label: "Class", link: links.home), .init(label: assignment.title, link: nil)
            ], content: content, source: links.source
        ).render()
    }

    /// The submissions kept aside as conflicts: another key than the student's, or a future date.
    private var keptAside: HTML {
        guard !assignment.keptAside.isEmpty else { return "" }
        let paging = Paging(total: assignment.keptAside.count, size: Self.keptAsideShown, offset: keptAsideFrom)
        let rows = assignment.keptAside[paging.shown].map { aside -> HTML in
            """
            <tr data-student="\(aside.studentIdentifier)"><td>\(aside.studentName)</td><td class="key">\(aside.keyFingerprint)</td>\
            <td>\(DisplayFormat.day(aside.submittedAt))</td></tr>
            """
        }
        let navigation = paging.navigation(id: "kept-aside-paging", noun: "Submissions kept aside") { offset in
            links.assignment(assignment.identifier, rowsFrom: ("kept-aside", offset))
        }
        return """
            <h2>Kept aside</h2>
            <p class="warning" id="kept-aside-note">Signed with another key than the one this class holds for the student, or \
            dated in the future: not counted. If a student confirms a new key, trust it with \
            <code>clsfile trust-key STUDENT FINGERPRINT</code>.</p>
            \(navigation)\
            <table id="kept-aside"><thead><tr><th>Student</th><th>Key</th><th>Submitted</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
    }

    /// A mark on a row whose name another student of the assignment has, with the enrolment that tells them apart.
    private func sharedName(_ student: ClassReport.StudentRow, _ shared: Set<String>) -> HTML {
        guard shared.contains(student.studentName) else { return "" }
        let joined = student.enrolledAt.map { ", joined \(DisplayFormat.day($0))" } ?? ""
        return
            " <span class=\"badge warning same-name\" title=\"Another student has this name: tell them apart by key\(joined)\">same name\(joined)</span>"
    }

    /// A mark beside a student who wrote notes on their work, which their page shows.
    private func noteMark(_ student: ClassReport.StudentRow) -> HTML {
        let count = student.work.notes?.count ?? 0
        guard count > 0 else { return "" }
        return
            " <span class=\"badge note-mark\" title=\"The student wrote \(count == 1 ? "a note" : "\(count) notes") on this work: see their page\">\(count == 1 ? "note" : "\(count) notes")</span>"
    }

    private func row(_ student: ClassReport.StudentRow, sharing shared: Set<String>) -> HTML {
        """
        <tr data-student="\(student.studentIdentifier)">
        <td><a class="student-name" href="\(links.student(student.studentIdentifier, of: assignment.identifier))">\(student.studentName)</a>\
        \(sharedName(student, shared))\(noteMark(student))</td>
        <td class="key">\(student.keyFingerprint.map { String($0.prefix(9)) } ?? "–")</td>
        <td class="received"><time datetime="\(DisplayFormat.machine(student.submittedAt))">\(DisplayFormat.timestamp(student.submittedAt))</time></td>
        <td class="number time">\(Fragments.duration(student.work.activeSeconds))</td>
        <td class="primary">\(Fragments.primaryItem(student.work.primaryItem))</td>
        <td class="progress" data-progress="\(String(student.work.progress))">\(Fragments.progress(student.work.progress))\
        \(Fragments.progressBasis(student.work))</td>
        <td class="done" data-done="\(student.work.isDone ? "true" : "false")">\(Fragments.done(student.work.completedAt))</td>\
        \(assignment.showsAIStatements ? "\n<td class=\"ai-use\">\(Fragments.aiUse(student.work.aiStatement))</td>" as HTML : "")
        </tr>
        """
    }
}
