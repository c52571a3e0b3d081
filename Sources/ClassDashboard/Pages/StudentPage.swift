import Classroom
internal import HistoryPictures
import OpenClassKit

/// `/assignments/{id}/students/{studentID}?items-from=N&sessions-from=N`: one student's work in
/// detail, every item and every session, a page of each at a time.
struct StudentPage {
    /// The most items and sessions shown at once: a submission may hold 1,000 items of 2 KB of
    /// names each and 100,000 sessions.
    static let itemsShown = 50
    static let sessionsShown = 500

    var assignment: ClassReport.AssignmentSummary
    var student: ClassReport.StudentRow
    var links: Links
    /// The first item and session shown (0-based); out of range shows the first.
    var itemsFrom = 0
    var sessionsFrom = 0
    /// The steps of the replay, when the work's snapshots were not read with it (the class
    /// server reads them for the replay alone); nil to count the work's own.
    var replaySteps: Int?

    /// The sessions' active times and the work's, which add up as shown.
    private var sessionTimes: DurationParts {
        DurationParts(student.work.sessions.map(\.activeTime), of: student.work.activeSeconds)
    }

    func render() -> HTML {
        let work = student.work
        let content: HTML = """
            <h1 id="student-name">\(student.studentName)</h1>
            <p class="meta">\(assignment.title) · document \(work.documentName) · submitted \
            <time datetime="\(DisplayFormat.machine(student.submittedAt))">\(DisplayFormat.timestamp(student.submittedAt))</time></p>
            <div class="cards">
            <div class="card" id="time"><div class="label">Time</div><div class="value">\(Fragments.duration(work.activeSeconds, shown: sessionTimes.whole))</div></div>
            <div class="card" id="session-count" data-sessions="\(work.sessions.count)"><div class="label">Sessions</div>\
            <div class="value">\(work.sessions.count)</div></div>
            <div class="card" id="progress" data-progress="\(String(work.progress))"><div class="label">Progress</div>\
            <div class="value">\(DisplayFormat.percent(work.progress))</div>\(Fragments.progressBasis(work))</div>
            <div class="card" id="done" data-done="\(work.isDone ? "true" : "false")"><div class="label">Done</div>\
            <div class="value">\(work.isDone ? "Yes" : "No")</div>\(completion)</div>
            \(typedAndPasted)
            </div>
            \(aiUse)<h2>Items</h2>
            \(items)
            <h2>Sessions</h2>
            \(workNote)\(sessions)
            \(writingHistory)
            """
        return PageLayout(
            title: "\(student.studentName) · \(assignment.title)",
            trail: [
                .init(label: "Class", link: links.home),
                .init(label: assignment.title, link: links.assignment(assignment.identifier)),
                .init(label: student.studentName, link: nil)
            ], content: content, source: links.source
        ).render()
    }

    /// The writing history, when the assignment asked for it: its pictures, its table, and a
    /// link to the replay when the snapshots came too.
    private var writingHistory: HTML {
        let status: HTML =
            student.work.evidenceStatus(writingDates: DisplayFormat.timestamp).map {
                "<p class=\"empty\" id=\"evidence-status\">Process evidence \($0).</p>"
            } ?? ""
        guard let entries = student.work.history else { return status == "" ? "" : "<h2>How it was written</h2>\(status)" }
        guard !entries.isEmpty || status == "" else { return "<h2>How it was written</h2>\(status)" }
        guard !entries.isEmpty else {
            return
                "<h2>How it was written</h2><p class=\"empty\" id=\"no-history\">The assignment asks for the writing history; none was recorded when this was submitted.</p>"
        }
        let charts = HistoryCharts(
            history: WritingHistory(entries: entries),
            showsProgress: student.work.progressBasis?.measuresProgress != false)
        // The typed-pasted card above has the id the picture has elsewhere.
        let pictures = [charts.wordsOverTime(), charts.sessionBars(), charts.typedAgainstPasted(id: "typed-pasted-chart")].compactMap { $0 }
            .map { HTML(escapedMarkup: HistoryCharts.figure($0)) }
        let steps = replaySteps ?? student.work.snapshots?.count ?? 0
        let replay: HTML =
            steps > 0
            ? "<p id=\"replay-link\"><a href=\"\(links.replay(student.studentIdentifier, of: assignment.identifier, step: 1))\">Replay the text, \(steps) \(steps == 1 ? "step" : "steps")</a></p>"
            : ""
        return """
            <h2>How it was written</h2>
            \(status)<div id="writing-history">\(pictures)</div>
            \(replay)
            \(HTML(escapedMarkup: charts.table()))
            """
    }

    /// The student's statement of AI use, in their words, when they gave one or the handout asks
    /// for one: what they said, never a judgement of it.
    private var aiUse: HTML {
        guard assignment.showsAIStatements else { return "" }
        guard let statement = student.work.aiStatement else {
            return "<h2>AI use</h2><p class=\"empty\" id=\"ai-use\" data-ai-use=\"\">The student has not said how they used AI tools.</p>"
        }
        // The use is a choice from a list; only the note is the student's own words.
        let note: HTML =
            statement.note.map { "<p>In the student's own words:</p><blockquote id=\"ai-note\"><p>\($0)</p></blockquote>" } ?? ""
        return """
            <h2>AI use</h2>
            <p id="ai-use" data-ai-use="\(statement.use.rawValue)">The student chose: <strong>\(statement.use.description)</strong> \
            (said <time datetime="\(DisplayFormat.machine(statement.statedAt))">\(DisplayFormat.timestamp(statement.statedAt))</time>).</p>
            \(note)

            """
    }

    private var completion: HTML {
        guard let completedAt = student.work.completedAt else { return "" }
        return
            "<div class=\"note\"><time datetime=\"\(DisplayFormat.machine(completedAt))\">\(DisplayFormat.timestamp(completedAt))</time></div>"
    }

    /// Typed against pasted characters, when the work records both.
    private var typedAndPasted: HTML {
        let all = student.work.additionalItems
        guard
            let typed = all.first(where: { $0.identifier == ItemIdentifier.typedCharacters && $0.kind == ItemKind.quantity.rawValue })?
                .value,
            let pasted = all.first(where: { $0.identifier == ItemIdentifier.pastedCharacters && $0.kind == ItemKind.quantity.rawValue })?
                .value
        else { return "" }
        let moved = all.first(where: { $0.identifier == ItemIdentifier.movedCharacters && $0.kind == ItemKind.quantity.rawValue })?.value
        let share = typed + pasted + (moved ?? 0) > 0 ? pasted / (typed + pasted + (moved ?? 0)) : 0
        let movedNote: HTML = moved.map { " · \(DisplayFormat.number($0)) of the student's own text moved or copied within it" } ?? ""
        return """
            <div class="card" id="typed-pasted" data-typed="\(String(typed))" data-pasted="\(String(pasted))"\
            \(moved.map { " data-moved=\"\(String($0))\"" as HTML } ?? "")>\
            <div class="label">Typed vs pasted</div><div class="value">\(DisplayFormat.number(typed)) / \(DisplayFormat.number(pasted))</div>\
            <div class="note">\(DisplayFormat.percent(share)) of the characters pasted from outside the document\(movedNote)</div></div>
            """
    }

    private var items: HTML {
        let work = student.work
        let rows = (work.primaryItem.map { [($0, true)] } ?? []) + work.additionalItems.map { ($0, false) }
        guard !rows.isEmpty else { return "<p class=\"empty\" id=\"no-items\">No items recorded.</p>" }
        let paging = Paging(total: rows.count, size: Self.itemsShown, offset: itemsFrom)
        let markup = rows[paging.shown].map { item, isPrimary -> HTML in
            """
            <tr class="item" data-key="\(item.comparisonKey)" data-value="\(String(item.value))" data-primary="\(isPrimary ? "true" : "false")">\
            <td class="item-title">\(item.title)\(isPrimary ? " <span class=\"badge done\">primary</span>" as HTML : "")</td>\
            <td>\(ItemValue.kindName(of: item))</td><td class="number item-value">\(ItemValue.text(of: item))</td></tr>
            """
        }
        return """
            \(paging.navigation(id: "items-paging", noun: "Items", link: link("items")))\
            <table id="items">
            <thead><tr><th>Item</th><th>Kind</th><th class="number">Value</th></tr></thead>
            <tbody>
            \(markup)
            </tbody>
            </table>
            """
    }

    /// The student's note on the work as a whole, above the sessions it may explain.
    private var workNote: HTML {
        guard let note = student.work.note(.work) else { return "" }
        return "<p class=\"student-note\" id=\"work-note\"><strong>The student's note:</strong> \(note.text)</p>\n"
    }

    /// Whether the sessions have a column for the student's notes and dictation marks: only work
    /// that has some shows it.
    private var hasSessionNotes: Bool {
        let work = student.work
        return work.notes?.contains { $0.kind != .work } == true || work.sessions.contains { $0.isDictated == true }
    }

    /// A session's dictation mark and the student's notes on it and on its paste.
    private func notesCell(_ session: StudentWork.Session) -> HTML {
        let work = student.work
        var parts: [HTML] = []
        if session.isDictated == true { parts.append("<span class=\"badge dictation\">dictation: input counted as typed</span>") }
        if let note = work.note(.session, on: session) { parts.append("<p class=\"session-note\">\(note.text)</p>") }
        if let note = work.note(.paste, on: session) {
            parts.append("<p class=\"paste-note\"><strong>On the paste:</strong> \(note.text)</p>")
        }
        return "<td class=\"student-notes\">\(parts)</td>"
    }

    private var sessions: HTML {
        let sessions = student.work.sessions
        guard !sessions.isEmpty else { return "<p class=\"empty\" id=\"no-sessions\">No sessions recorded.</p>" }
        let paging = Paging(total: sessions.count, size: Self.sessionsShown, offset: sessionsFrom)
        let withNotes = hasSessionNotes
        let times = sessionTimes
        let rows = paging.shown.map { index -> HTML in
            let session = sessions[index]
            return """
                <tr class="session" data-start="\(DisplayFormat.machine(session.start))" data-end="\(DisplayFormat.machine(session.end))" \
                data-seconds="\(String(session.activeTime))"><td class="number">\(index + 1)</td>\
                <td><time datetime="\(DisplayFormat.machine(session.start))">\(DisplayFormat.timestamp(session.start))</time></td>\
                <td><time datetime="\(DisplayFormat.machine(session.end))">\(DisplayFormat.timestamp(session.end))</time></td>\
                <td class="number">\(times.parts[index])</td>\(withNotes ? notesCell(session) : "")</tr>
                """
        }
        return """
            \(paging.navigation(id: "sessions-paging", noun: "Sessions", link: link("sessions")))\
            <table id="sessions">
            <thead><tr><th class="number">#</th><th>Start</th><th>End</th><th class="number">\(sessions.allSatisfy { $0.activeSeconds != nil } ? "Active" : "Length")</th>\
            \(withNotes ? "<th>The student's notes</th>" as HTML : "")</tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table>
            """
    }

    /// The address of this page with a list shown from an offset.
    private func link(_ list: String) -> (Int) -> String {
        { offset in links.student(student.studentIdentifier, of: assignment.identifier, rowsFrom: (list, offset)) }
    }
}
