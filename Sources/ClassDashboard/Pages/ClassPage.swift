import Classroom
internal import HistoryPictures
import OpenClassKit

/// `/`: every assignment with its averages, how many are done, and its warning.
struct ClassPage {
    var report: ClassReport
    var links: Links

    /// The page's title: the name of the class its assignments were handed to (the names, when
    /// several), else "Class report".
    var title: String {
        let names = Set(report.assignments.compactMap(\.className)).sorted()
        return names.isEmpty ? "Class report" : names.joined(separator: ", ")
    }

    func render() -> HTML {
        let content: HTML
        let catalog: HTML = links.catalog.map { " · <a id=\"catalog\" href=\"\($0)\">Assign from the catalog</a>" } ?? ""
        if report.assignments.isEmpty {
            content = """
                <h1>\(title)</h1>
                <p class="empty" id="no-assignments">No assignments yet. Make a handout, collect the students' work, \
                and it appears here.\(catalog)</p>
                """
        } else {
            let rows = report.assignments.map(row)
            let contexts: HTML =
                report.contexts.isEmpty
                ? ""
                : """
                <h2>Assigned contexts</h2>
                <table id="contexts">
                <thead><tr><th>Context</th><th class="number">Documents</th><th class="number">Done with every document</th>\
                <th class="number">Average time</th><th>Average progress</th></tr></thead>
                <tbody>
                \(report.contexts.map(contextRow))
                </tbody>
                </table>
                """
            let students = Set(report.assignments.flatMap { $0.students.map(\.studentIdentifier) }).count
            content = """
                <h1>\(title)</h1>
                <p class="meta">\(report.assignments.count) \(report.assignments.count == 1 ? "assignment" : "assignments"), \
                \(students) \(students == 1 ? "student" : "students") · <a href="\(links.classReportJSON)">JSON</a>\(catalog)</p>
                <table id="assignments">
                <thead><tr><th>Assignment</th><th>Class</th><th>Due</th><th>Last received</th><th class="number">Done</th>\
                <th class="number">Average time</th><th>Average primary item</th><th>Average progress</th>\
                <th>Progress over time</th></tr></thead>
                <tbody>
                \(rows)
                </tbody>
                </table>
                \(contexts)
                """
        }
        return PageLayout(title: title, trail: [.init(label: "Class", link: nil)], content: content, source: links.source).render()
    }

    private func contextRow(_ context: ClassReport.ContextSummary) -> HTML {
        """
        <tr data-context="\(context.identifierPath.joined(separator: "/"))">
        <td>\(context.title)<div class="meta">\(context.identifierPath.joined(separator: " › "))</div></td>
        <td class="number">\(context.assignmentIdentifiers.count)</td>
        <td class="number done-count" data-done="\(context.doneCount)" data-students="\(context.studentCount)">\
        \(context.doneCount) of \(context.studentCount)</td>
        <td class="number average-time">\(Fragments.duration(context.averageActiveSeconds))</td>
        <td class="average-progress">\(Fragments.averageProgress(context.averageProgress))</td>
        </tr>
        """
    }

    private func row(_ assignment: ClassReport.AssignmentSummary) -> HTML {
        """
        <tr data-assignment="\(assignment.identifier)">
        <td><a class="title" href="\(links.assignment(assignment.identifier))">\(assignment.title)</a>\
        <div class="meta">\(assignment.documentName)</div></td>
        <td>\(assignment.className ?? "–")</td>
        <td class="nowrap">\(assignment.dueDate.map(DisplayFormat.day) ?? "–")</td>
        <td class="last-received">\(lastReceived(assignment))</td>
        <td class="number done-count" data-done="\(assignment.doneCount)" data-students="\(assignment.studentCount)">\
        \(assignment.doneCount) of \(assignment.studentCount)</td>
        <td class="number average-time">\(Fragments.duration(assignment.averageActiveSeconds))</td>
        <td class="average-primary">\(Fragments.primaryAverages(assignment.primaryAverages))\
        \(Fragments.warning(assignment.warning, for: assignment.identifier))</td>
        <td class="average-progress">\(Fragments.averageProgress(assignment.averageProgress))</td>
        <td class="progress-lines">\(progressLines(assignment))</td>
        </tr>
        """
    }

    /// When the newest work of an assignment came, and how many of its students wrote notes.
    private func lastReceived(_ assignment: ClassReport.AssignmentSummary) -> HTML {
        guard let last = assignment.students.map(\.submittedAt).max() else { return "–" }
        let noting = assignment.students.filter { ($0.work.notes?.isEmpty == false) }.count
        let notes: HTML =
            noting == 0
            ? "" : " <span class=\"badge note-mark\">\(noting) with notes</span>"
        return "<time datetime=\"\(DisplayFormat.machine(last))\">\(DisplayFormat.timestamp(last))</time>\(notes)"
    }

    /// The most progress lines an assignment's row draws; its page has every student.
    static let progressLinesShown = 40

    /// A small line of each student's progress over time, for the students whose work holds its
    /// writing history (the assignment asked for process evidence) and whose progress measures
    /// something: the first ``progressLinesShown`` of them, then how many more there are.
    private func progressLines(_ assignment: ClassReport.AssignmentSummary) -> HTML {
        let drawn = assignment.students.filter { $0.work.history != nil && $0.work.progressBasis?.measuresProgress != false }
        let lines = drawn.prefix(Self.progressLinesShown).compactMap { student -> HTML? in
            guard let entries = student.work.history,
                let line = HistoryCharts(history: WritingHistory(entries: entries)).progressLine(name: student.studentName)
            else { return nil }
            return HTML(escapedMarkup: line)
        }
        guard !lines.isEmpty else { return "–" }
        let more = drawn.count - Self.progressLinesShown
        let rest: HTML =
            more > 0
            ? "<div class=\"note more-lines\"><a href=\"\(links.assignment(assignment.identifier))\">and \(more) more \(more == 1 ? "student" : "students")</a></div>"
            : ""
        return HTML(joining: lines + [rest])
    }
}
