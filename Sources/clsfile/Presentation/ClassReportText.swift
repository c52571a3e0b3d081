import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// The teacher's view in the terminal: per assignment the averages and a row per student; for one
/// student, every item and every session.
enum ClassReportText {
    static func overview(_ report: ClassReport) -> String {
        guard !report.assignments.isEmpty else { return "No assignments yet: hand one out with `clsfile assign FILE --title T`." }
        var blocks: [String] = []
        var shown: Set<[String]> = []
        for summary in report.assignments {
            if let path = summary.contextPath, shown.insert(path).inserted,
                let context = report.contexts.first(where: { $0.identifierPath == path })
            {
                blocks.append(self.context(context))
            }
            blocks.append(assignment(summary))
        }
        return blocks.joined(separator: "\n\n")
    }

    /// An assigned course context: its documents taken together, per student.
    static func context(_ summary: ClassReport.ContextSummary) -> String {
        let documents = summary.assignmentIdentifiers.count
        var lines = [
            "\(safe(summary.title)) (context \(safe(summary.identifierPath.joined(separator: " › ")))): \(documents) \(documents == 1 ? "document" : "documents"), each below"
        ]
        guard summary.studentCount > 0 else {
            lines.append("  no work collected yet")
            return lines.joined(separator: "\n")
        }
        var averages = [
            "\(summary.studentCount) \(summary.studentCount == 1 ? "student" : "students"), \(summary.doneCount) done with every document"
        ]
        if let time = summary.averageActiveSeconds { averages.append("average time \(Formatting.text(time))") }
        if let progress = summary.averageProgress {
            averages.append("average progress \(Formatting.percent((progress * 1000).rounded() / 1000))")
        }
        lines.append("  " + averages.joined(separator: " · "))
        return lines.joined(separator: "\n")
    }

    static func assignment(_ summary: ClassReport.AssignmentSummary) -> String {
        var heading = [
            summary.className.map { "class \(safe($0))" }, summary.dueDate.map { "due \(Formatting.day($0))" },
            summary.targetWords.map { "target \($0) words" }, summary.aiStatementRequirement.map { "AI statement \($0.rawValue)" }
        ].compactMap { $0 }.joined(separator: ", ")
        if !heading.isEmpty { heading = " (\(heading))" }
        var lines = ["\(safe(summary.title))\(heading)  [\(safe(String(summary.identifier.prefix(8))))]  \(safe(summary.documentName))"]
        let aside = summary.keptAside.map {
            "  kept aside: \(safe($0.studentName)) [\(safe(String($0.studentIdentifier.prefix(8))))], submitted \(Formatting.timestamp($0.submittedAt)), key \($0.keyFingerprint); if the student confirms that key: clsfile trust-key \(safe($0.studentIdentifier)) '\($0.keyFingerprint)'"
        }
        guard summary.studentCount > 0 else {
            lines.append("  no work collected yet: `clsfile collect FOLDER` imports the students' .clssubmission files")
            return (lines + aside).joined(separator: "\n")
        }
        var averages = ["\(summary.studentCount) \(summary.studentCount == 1 ? "student" : "students"), \(summary.doneCount) done"]
        if let time = summary.averageActiveSeconds { averages.append("average time \(Formatting.text(time))") }
        for average in summary.primaryAverages {
            averages.append(
                "average \(safe(average.title)) \(Formatting.number((average.average * 10).rounded() / 10))"
                    + (summary.primaryAverages.count > 1 ? " (\(average.count))" : ""))
        }
        if let progress = summary.averageProgress {
            averages.append("average progress \(Formatting.percent((progress * 1000).rounded() / 1000))")
        }
        lines.append("  " + averages.joined(separator: " · "))
        if let warning = summary.warning { lines.append("  warning: \(safe(warning))") }
        let showsAIUse = summary.showsAIStatements
        var table = [["STUDENT", "KEY", "TIME", "PRIMARY", "PROGRESS", "DONE", "SUBMITTED"] + (showsAIUse ? ["AI USE"] : [])]
        let shared = summary.sharedNames
        for row in summary.students {
            table.append(
                [
                    row.studentName + (shared.contains(row.studentName) ? " (same name as another)" : ""),
                    row.keyFingerprint.map { String($0.prefix(9)) } ?? "-",
                    Formatting.text(row.work.activeSeconds), primary(row.work.primaryItem),
                    Formatting.percent((row.work.progress * 1000).rounded() / 1000), row.work.isDone ? "yes" : "no",
                    Formatting.timestamp(row.submittedAt)
                ] + (showsAIUse ? [row.work.aiStatement?.use.rawValue ?? "not given"] : []))
        }
        let rows = Formatting.columns(table).map { "  " + $0 }
        lines.append(rows[0])
        for (index, row) in summary.students.enumerated() {
            lines.append(rows[index + 1])
            lines += notesLines(row.work, student: row.studentName)
        }
        lines += aside
        return lines.joined(separator: "\n")
    }

    static func detail(_ row: ClassReport.StudentRow, in summary: ClassReport.AssignmentSummary) -> String {
        let work = row.work
        let sessionTimes = DurationParts(work.sessions.map(\.activeTime), of: work.activeSeconds)
        var lines = [
            "\(safe(row.studentName)) — \(safe(summary.title)) (\(safe(work.documentName)))",
            "Time:       \(sessionTimes.whole) in \(work.sessions.count) \(work.sessions.count == 1 ? "session" : "sessions")",
            "Progress:   \(Formatting.percent((work.progress * 1000).rounded() / 1000))"
                + (work.progressBasisName.map { " \(safe($0))" } ?? ""),
            "Done:       \(work.completedAt.map { "yes, \(Formatting.timestamp($0))" } ?? "no")",
            "Submitted:  \(Formatting.timestamp(row.submittedAt))",
            "Key:        \(row.keyFingerprint ?? "none (collected before submissions were signed)")",
            "Joined:     \(row.enrolledAt.map(Formatting.timestamp) ?? "not on a class server")",
            "Primary:    \(work.primaryItem.map { "\(safe($0.title)): \($0.formattedValue)" } ?? "none")"
        ]
        if summary.showsAIStatements {
            // The student's own words, as they wrote them: a fact to read, not a verdict.
            lines.append("AI use:     \(work.aiStatement.map { safe($0.summary) } ?? "not given")")
        }
        if let status = work.evidenceStatus(writingDates: Formatting.timestamp) { lines.append("Evidence:   \(status)") }
        lines.append("Items:" + (work.additionalItems.isEmpty ? "      none" : ""))
        lines += Formatting.columns(work.additionalItems.map { ["  " + $0.title, $0.formattedValue] })
        if let note = work.note(.work) { lines.append("Note:       \(quoted(note))") }
        lines.append("Sessions:" + (work.sessions.isEmpty ? "   none" : ""))
        for (index, session) in work.sessions.enumerated() {
            lines.append(
                "  \(Formatting.timestamp(session.start)) – \(Formatting.clock(session.end))  \(sessionTimes.parts[index])"
                    + (session.isDictated == true ? "  (dictation: its input counted as typed)" : ""))
            if let note = work.note(.session, on: session) { lines.append("    note: \(quoted(note))") }
            if let note = work.note(.paste, on: session) { lines.append("    note on the paste: \(quoted(note))") }
        }
        return lines.joined(separator: "\n")
    }

    /// What a student's notes and dictation marks add under their row of an assignment.
    private static func notesLines(_ work: StudentWork, student: String) -> [String] {
        var lines: [String] = []
        if let note = work.note(.work) { lines.append("    note: \(quoted(note))") }
        let sessionNotes = (work.notes ?? []).filter { $0.kind != .work }.count
        let dictated = work.sessions.filter { $0.isDictated == true }.count
        var counts: [String] = []
        if let status = work.evidenceStatus(writingDates: Formatting.timestamp) { lines.append("    process evidence \(status)") }
        if sessionNotes > 0 { counts.append("\(sessionNotes) \(sessionNotes == 1 ? "note" : "notes") on sessions") }
        if dictated > 0 { counts.append("\(dictated) \(dictated == 1 ? "session" : "sessions") by dictation") }
        if !counts.isEmpty {
            lines.append("    \(counts.joined(separator: ", ")): clsfile class-report --student '\(safe(student))' shows them")
        }
        return lines
    }

    /// A student's note, quoted, with control characters shown escaped.
    private static func quoted(_ note: EvidenceNote) -> String { "\u{201C}\(safe(note.text))\u{201D}" }

    /// Text from students or handouts, with control characters shown escaped.
    private static func safe(_ text: String) -> String { TerminalText.escaped(text) }

    private static func primary(_ item: StudentWork.Item?) -> String {
        item.map { "\($0.formattedValue) \($0.title.lowercased())" } ?? "-"
    }
}
