import Classroom

/// `/assignments/{id}`: a row per student with time, primary item, progress and done, under the
/// assignment's averages.
struct AssignmentPage {
    var assignment: ClassReport.AssignmentSummary
    var links: Links

    func render() -> HTML {
        var details: [String] = []
        if let className = assignment.className { details.append("Class \(className)") }
        if let due = assignment.dueDate { details.append("due \(DisplayFormat.day(due))") }
        if let target = assignment.targetWords { details.append("target \(target) words") }
        details.append("document \(assignment.documentName)")
        let primaryCards = assignment.primaryAverages.map { average -> HTML in
            """
            <div class="card primary-card" data-key="\(average.key)" data-average="\(String(average.average))">\
            <div class="label">Average \(average.title)</div><div class="value">\(DisplayFormat.number(average.average))</div>\
            <div class="note">of \(average.count) \(average.count == 1 ? "student" : "students")</div></div>
            """
        }
        let students: HTML = assignment.students.isEmpty
            ? "<p class=\"empty\" id=\"no-students\">No work collected for this assignment yet.</p>"
            : """
                <table id="students">
                <thead><tr><th>Student</th><th class="number">Time</th><th>Primary item</th><th>Progress</th><th>Done</th></tr></thead>
                <tbody>
                \(assignment.students.map(row))
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
            """
        return PageLayout(title: assignment.title, trail: [
            .init(label: "Class", link: links.home), .init(label: assignment.title, link: nil),
        ], content: content).render()
    }

    private func row(_ student: ClassReport.StudentRow) -> HTML {
        """
        <tr data-student="\(student.studentIdentifier)">
        <td><a class="student-name" href="\(links.student(student.studentIdentifier, of: assignment.identifier))">\(student.studentName)</a></td>
        <td class="number time">\(Fragments.duration(student.work.activeSeconds))</td>
        <td class="primary">\(Fragments.primaryItem(student.work.primaryItem))</td>
        <td class="progress" data-progress="\(String(student.work.progress))">\(Fragments.progress(student.work.progress))\
        \(Fragments.progressBasis(student.work))</td>
        <td class="done" data-done="\(student.work.isDone ? "true" : "false")">\(Fragments.done(student.work.completedAt))</td>
        </tr>
        """
    }
}
