import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// What `clsfile evidence` prints of one assignment's work: what a submission carries, as the
/// student reads it before it leaves, with their notes beside what they explain.
struct EvidenceText {
    let assignment: Assignment
    /// The work as ``Submitter/workToSubmit(in:key:)`` reads it.
    let work: StudentWork

    /// One session's figures from the writing history the submission carries, by session identifier.
    private var historySessions: [String: WritingHistory.Session] {
        guard let history = work.history else { return [:] }
        var sessions: [String: WritingHistory.Session] = [:]
        for session in WritingHistory(entries: history).sessions {
            if let identifier = session.entry.sessionIdentifier { sessions[identifier] = session }
        }
        return sessions
    }

    /// The work's time and its sessions' times, which add up as shown.
    private var times: DurationParts {
        DurationParts(work.sessions.map(\.activeTime), of: work.activeSeconds)
    }

    func text() -> String {
        var lines = [
            "\(safe(assignment.title))  [\(safe(String(assignment.identifier.prefix(8))))]  \(safe(work.documentName))",
            "Leaves:     \(Self.leaving(assignment))",
            "Evidence:   \(ProcessEvidence.statement(for: assignment.processEvidence))"
        ]
        if assignment.processEvidence != nil {
            lines.append(
                (assignment.evidenceWithdrawnAt.map { "Withdrawn:  \(Formatting.timestamp($0)): " } ?? "Kept:       ")
                    + ProcessEvidence.keepingStatement(
                        days: assignment.evidenceKeptDays, withdrawnAt: assignment.evidenceWithdrawnAt, assignment: assignment.identifier))
        }
        lines += [
            "Time:       \(times.whole) in \(work.sessions.count) \(work.sessions.count == 1 ? "session" : "sessions")",
            "Progress:   \(Formatting.percent((work.progress * 1000).rounded() / 1000))"
                + (work.progressBasisName.map { " \(safe($0))" } ?? ""),
            "Done:       \(work.completedAt.map { "yes, \(Formatting.timestamp($0))" } ?? "no")",
            "Primary:    \(work.primaryItem.map { "\(safe($0.title)): \($0.formattedValue)" } ?? "none")"
        ]
        lines.append("Items:" + (work.additionalItems.isEmpty ? "      none" : ""))
        lines += Formatting.columns(work.additionalItems.map { ["  " + safe($0.title), $0.formattedValue] })
        if let note = work.note(.work) { lines.append("Your note:  \(quoted(note))") }
        if let statement = work.aiStatement {
            lines.append(
                "AI use:     \(safe(statement.use.description))"
                    + (statement.note.map { ", in your words: \u{201C}\(safe($0))\u{201D}" } ?? ""))
        }
        lines.append(
            "Sessions:" + (work.sessions.isEmpty ? "   none" : "   (numbered as `--session N --note TEXT` takes them)"))
        lines += sessionLines()
        if let snapshots = work.snapshots {
            let bytes = snapshots.reduce(0) { $0 + $1.delta.count + $1.digest.count }
            lines.append(
                "Snapshots:  \(snapshots.count) of your text (\(bytes) bytes): every step of it goes; `clsfile evidence \(safe(String(assignment.identifier.prefix(8)))) --replay` shows them"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// What leaves, and whether anything has: a submission written before carried the work as it
    /// stood then.
    static func leaving(_ assignment: Assignment) -> String {
        guard let submitted = assignment.submittedAt else {
            return "what follows, sealed for your teacher, when you run `clsfile submit`; nothing has been sent"
        }
        return
            "a submission written \(Formatting.timestamp(submitted)) carried your work as it stood then; what follows is what the next `clsfile submit` seals for your teacher"
    }

    /// The sessions as a table, each followed by its notes: with each one's figures from the
    /// history when the submission carries it, else its start, end and time.
    private func sessionLines() -> [String] {
        guard !work.sessions.isEmpty else { return [] }
        let figures = work.history != nil
        let history = historySessions
        let sessionTimes = times
        var table = [
            ["#", "START", "END", "TIME"] + (figures ? ["WORDS", "TYPED", "PASTED", "MOVED", "LARGEST PASTE SO FAR"] : []) + [""]
        ]
        for (index, session) in work.sessions.enumerated() {
            var row = [
                "\(index + 1)", Formatting.timestamp(session.start), session.isRunning == true ? "running" : Formatting.clock(session.end),
                sessionTimes.parts[index]
            ]
            if figures {
                let shown = session.identifier.flatMap { history[$0] }
                let pasted = shown?.pastedCharacters
                row += [
                    shown?.addedWords.map { $0 >= 0 ? "+\($0)" : "\($0)" } ?? "-", shown?.typedCharacters.map(String.init) ?? "-",
                    pasted.map(String.init) ?? "-", shown?.movedCharacters.map(String.init) ?? "-",
                    (pasted ?? 0) > 0 ? shown?.entry.largestPaste.map(String.init) ?? "-" : "-"
                ]
            }
            row.append(session.isDictated == true ? "dictation" : "")
            table.append(row)
        }
        // Without the spaces after the last cell: most rows have no mark there.
        let rendered = Formatting.columns(table).map { line in
            "  " + line[..<(line.lastIndex { $0 != " " }.map(line.index(after:)) ?? line.startIndex)]
        }
        var lines = [rendered[0]]
        for (index, session) in work.sessions.enumerated() {
            lines.append(rendered[index + 1])
            if let note = work.note(.session, on: session) { lines.append("     note: \(quoted(note))") }
            if let note = work.note(.paste, on: session) { lines.append("     note on the paste: \(quoted(note))") }
        }
        return lines
    }

    private func quoted(_ note: EvidenceNote) -> String { "\u{201C}\(safe(note.text))\u{201D}" }

    private func safe(_ text: String) -> String { TerminalText.escaped(text) }
}
