import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import HistoryPictures
import OpenClassKit
import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile evidence [ASSIGNMENT]`: what a submission carries, shown to the student before it
/// leaves, and the student's notes on it.
struct EvidenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evidence",
        abstract: "Show exactly what a submission carries for your assignments, and add your notes to it (student).",
        discussion: """
            Shows, for each accepted assignment or the one named, what `clsfile submit` would seal \
            for your teacher, read the same way: the figures, the sessions, your notes, and as much \
            of the writing history as the handout asks for (none; each session's figures; or those \
            and the snapshots of your text). Nothing is sent. --replay prints the steps of the text \
            as they would go, --html one page with pictures, --json the work exactly as it is \
            sealed (an array of them when no assignment is named).

            --note TEXT adds your own words: on the work as a whole, on session N with --session N, \
            or on what was pasted in it with --session N --paste ("pasted from my outline in \
            notes.md", "dictated"). A note is one line of at most 2,000 characters; it goes with \
            your next submission, sealed and signed with it, and your teacher sees it beside the \
            figures it explains. --clear-note removes one.

            --withdraw keeps the process evidence of an assignment that has not left yet on this \
            computer: what waits for a class server is dropped, nothing more is sent, and a \
            submission carries the figures only; your teacher is told that you withdrew it (what \
            was sent before stays with them). --restore sends it again. Your teacher keeps the \
            evidence the days the handout says (\(ProcessEvidence.defaultKeptDays) unless it says otherwise) after your work \
            last changed, then deletes it and keeps the figures.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print the work as JSON, exactly as a submission seals it.")
    var json = false

    @Flag(name: .long, help: "Print one self-contained HTML page of the evidence, with pictures.")
    var html = false

    @Flag(name: .long, help: "Print the steps of the text that an assignment asking for replay sends.")
    var replay = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Add a note (one line, at most 2,000 characters) to the work, or to a session with --session.", valueName: "text"))
    var note: String?

    @Flag(name: .customLong("clear-note"), help: "Remove the note on the work, or on a session with --session.")
    var clearNote = false

    @Option(name: .long, help: ArgumentHelp("With --note or --clear-note: the session, as this view numbers them.", valueName: "n"))
    var session: Int?

    @Flag(name: .long, help: "With --session: the note is on what was pasted in that session.")
    var paste = false

    @Flag(name: .long, help: "Keep the assignment's process evidence that has not left on this computer; the figures still go.")
    var withdraw = false

    @Flag(name: .long, help: "Send the assignment's process evidence again after --withdraw.")
    var restore = false

    @Argument(help: ArgumentHelp("The assignment: its identifier, a unique prefix of it, or its title.", valueName: "assignment"))
    var assignment: String?

    func validate() throws {
        if [json, html, replay].filter({ $0 }).count > 1 { throw ValidationError("Choose one of --json, --html and --replay.") }
        let notes = note != nil || clearNote
        if note != nil && clearNote { throw ValidationError("Give --note TEXT or --clear-note, not both.") }
        if notes && (json || html || replay) {
            throw ValidationError("--note and --clear-note change a note; show the evidence without them.")
        }
        if !notes && (session != nil || paste) { throw ValidationError("--session and --paste say what --note or --clear-note is about.") }
        if paste && session == nil { throw ValidationError("--paste notes what was pasted in a session: give --session N too.") }
        if notes && assignment == nil {
            throw ValidationError("A note is on one assignment's work: name it (clsfile evidence ASSIGNMENT --note TEXT).")
        }
        if let note, let problem = EvidenceNote.problem(with: note) { throw ValidationError("The note \(problem).") }
        if withdraw || restore {
            guard !(withdraw && restore), !notes, !(json || html || replay) else {
                throw ValidationError("--withdraw and --restore stand alone: give one of them with the assignment, and nothing else.")
            }
            guard assignment != nil else {
                throw ValidationError("Withdrawing is of one assignment's evidence: name it (clsfile evidence ASSIGNMENT --withdraw).")
            }
        }
    }

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.student, for: "evidence")
            let store = storeOptions.dataStore()
            let chosen = try await Submitter.workToSubmit(in: store, key: assignment)
            if withdraw || restore {
                try await changeWithdrawal(of: chosen[0].assignment, in: store)
            } else if note != nil || clearNote {
                try await changeNote(of: chosen[0].assignment, work: chosen[0].work, in: store)
            } else if json {
                let documents = try chosen.map { String(decoding: try $0.work.sealedJSON(), as: UTF8.self) }
                print(assignment == nil ? "[\n" + documents.joined(separator: ",\n") + "\n]" : documents.joined())
            } else if html {
                guard chosen.count == 1 else {
                    throw ValidationError("--html prints one assignment's page: name it (clsfile evidence ASSIGNMENT --html).")
                }
                print(Self.page(chosen[0].assignment, chosen[0].work))
            } else if replay {
                for (assignment, work) in chosen { try printReplay(assignment, work) }
            } else {
                print(chosen.map { EvidenceText(assignment: $0.assignment, work: $0.work).text() }.joined(separator: "\n\n"))
            }
        }
    }

    /// Keeps or removes the note the options name.
    private func changeNote(of assignment: Assignment, work: StudentWork, in store: CLSDataStore) async throws {
        let title = "'\(TerminalText.escaped(assignment.title))'"
        var kind = EvidenceNote.Kind.work, sessionIdentifier: String?, what = "the work"
        if let session {
            let count = work.sessions.count
            guard session >= 1, session <= count, let identifier = work.sessions[session - 1].identifier else {
                throw ValidationError(
                    count == 0
                        ? "The work on \(title) has no sessions yet: note the work as a whole, without --session."
                        : "There is no session \(session): the work on \(title) has \(count), numbered 1 to \(count) by `clsfile evidence`."
                )
            }
            sessionIdentifier = identifier
            kind = paste ? .paste : .session
            what = paste ? "the paste of session \(session)" : "session \(session)"
            if paste, note != nil, try await pastedCharacters(in: identifier, of: assignment, store: store) == 0 {
                throw ValidationError(
                    "Nothing was counted as pasted in session \(session) of \(title): note the session itself, without --paste.")
            }
        }
        if clearNote {
            let removed = try await store.removeEvidenceNote(
                kind, sessionIdentifier: sessionIdentifier, ofAssignment: assignment.identifier)
            print(removed ? "removed the note on \(what) of \(title)" : "there was no note on \(what) of \(title)")
        } else if let note {
            try await store.setEvidenceNote(
                EvidenceNote(kind: kind, sessionIdentifier: sessionIdentifier, text: note), ofAssignment: assignment.identifier)
            print("noted \(what) of \(title): the note goes with your next submission")
        }
    }

    /// Withdraws the assignment's process evidence, or takes the withdrawal back.
    private func changeWithdrawal(of assignment: Assignment, in store: CLSDataStore) async throws {
        let title = "'\(TerminalText.escaped(assignment.title))'"
        guard assignment.processEvidence != nil else {
            print("\(title) asks for no process evidence: your writing history stays on this computer already")
            return
        }
        if withdraw {
            let dropped = try await store.withdrawEvidence(ofAssignment: assignment.identifier)
            print(
                "withdrew the process evidence of \(title): it stays on this computer; your submissions and the class server get the figures, and that you withdrew it"
                    + (dropped > 0 ? " (\(dropped) \(dropped == 1 ? "batch" : "batches") of history waiting to be sent dropped)" : ""))
        } else if try await store.restoreEvidence(ofAssignment: assignment.identifier) {
            print(
                "the process evidence of \(title) goes with your work again: the next submission carries it, and a class server you joined gets all of it"
            )
        } else {
            print("the process evidence of \(title) was not withdrawn: nothing changed")
        }
    }

    /// The characters pasted in a session, as the store's history counted them; 0 when it did not.
    private func pastedCharacters(in session: String, of assignment: Assignment, store: CLSDataStore) async throws -> Int {
        guard let url = assignment.documentURL, FileManager.default.fileExists(atPath: url.path) else { return 0 }
        let sessions = try await store.writingHistory(for: url).sessions
        return sessions.last { $0.entry.sessionIdentifier == session }?.pastedCharacters ?? 0
    }

    /// Prints the steps of the snapshots the submission carries, as `clsfile replay` prints a file's.
    private func printReplay(_ assignment: Assignment, _ work: StudentWork) throws {
        guard let snapshots = work.snapshots, !snapshots.isEmpty else {
            throw CLSError(
                .invalidArgument,
                "'\(TerminalText.escaped(assignment.title))' does not send the text of your writing: "
                    + ProcessEvidence.statement(for: assignment.processEvidence))
        }
        let styled = isatty(STDOUT_FILENO) == 1
        let showsProgress = work.progressBasis?.measuresProgress != false
        var previous: WritingHistoryEntry?
        var step = 0
        try WritingSnapshotRecord.rebuild(snapshots) { snapshot in
            step += 1
            print(
                ReplayFrame(
                    snapshot: snapshot, previous: previous, step: step, of: snapshots.count, styled: styled, showsProgress: showsProgress
                ).text())
            previous = snapshot.entry
        }
    }

    /// The page of `--html`: the figures, what leaves and what stays, the notes, and the pictures
    /// of the history the submission carries.
    static func page(_ assignment: Assignment, _ work: StudentWork) -> String {
        var figures: [(label: String, value: String)] = [
            ("Time", Formatting.text(work.activeSeconds)), ("Sessions", "\(work.sessions.count)"),
            ("Progress", Formatting.percent((work.progress * 1000).rounded() / 1000))
        ]
        if let primary = work.primaryItem { figures.append((primary.title, primary.formattedValue)) }
        var lead = [
            "What your submission carries: " + EvidenceText.leaving(assignment) + ".",
            "Process evidence: " + ProcessEvidence.statement(for: assignment.processEvidence) + "."
        ]
        if let note = work.note(.work) { lead.append("Your note on the work: \(note.text)") }
        for (index, session) in work.sessions.enumerated() {
            let start = Formatting.timestamp(session.start)
            if session.isDictated == true { lead.append("Session \(index + 1) (\(start)) was written by dictation or an input method.") }
            if let note = work.note(.session, on: session) { lead.append("Your note on session \(index + 1) (\(start)): \(note.text)") }
            if let note = work.note(.paste, on: session) {
                lead.append("Your note on the paste of session \(index + 1) (\(start)): \(note.text)")
            }
        }
        return HistoryPage(
            title: "\(assignment.title) · \(work.documentName)", figures: figures,
            history: WritingHistory(entries: work.history ?? []), showsProgress: work.progressBasis?.measuresProgress != false,
            lead: lead,
            emptyHistoryNote: work.history == nil
                ? "Your writing history stays on this computer: this assignment does not ask for it."
                : "No writing history is recorded for this document yet: it begins at the end of its next session."
        ).render()
    }
}
