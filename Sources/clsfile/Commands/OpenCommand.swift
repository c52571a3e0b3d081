import ArgumentParser
import Classroom
import CommandSupport
import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder

/// `clsfile open FILE`: edit a file in place and record the session.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a file in your editor, in place, and record the session.",
        discussion: """
            The editor comes from --editor, else $VISUAL, else $EDITOR, else editor, nano, vim or \
            vi; a command with arguments works ("code --wait", "emacs -nw"). A missing file is \
            created (its folder must exist). In a terminal, clsfile relays it through a \
            pseudo-terminal, so keystrokes count as work; with --no-pty, or outside a terminal, \
            changes to the file count, and on an X11 desktop (DISPLAY) so does input while one of \
            the editor's windows has the focus; a session timed by file changes alone says so. \
            When the editor exits, clsfile records the word count and progress, prints one \
            summary line, and exits with the editor's exit code. The editor \
            runs with CLSFILE_SESSION_FILE set to the file's path, and the editor plugins in \
            Samples/editors send no events for that file, so nothing is counted twice. Progress is \
            measured toward --target-words (or a handout's target), else as the share of lines \
            viewed with --reading, else by the document's checklist or notebook cells; a document \
            written with no target shows none.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var sessionOptions: SessionOptions

    @Option(name: .long, help: ArgumentHelp("The editor command.", valueName: "command"))
    var editor: String?

    @OptionGroup var progressOptions: ProgressOptions

    @Flag(name: .long, help: "Do not relay the terminal; count changes of the file instead.")
    var noPty = false

    @Flag(
        name: .long,
        help:
            "This session is written by dictation or an input method: its input counts as typed, never as pasted, and the session is marked so (see clsfile settings --dictation)."
    )
    var dictation = false

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func run() async throws {
        var configuration = SessionRecorder.Configuration(
            idleTimeout: try sessionOptions.resolvedIdleTimeout(),
            targetWords: progressOptions.targetWords,
            isReading: progressOptions.reading, isDictated: dictation ? true : nil)
        var status: Int32 = 0
        try await reportingFailures {
            let command = try EditorCommand.resolve(option: editor, environment: ProcessInfo.processInfo.environment)
            let store = storeOptions.dataStore()
            let url = FileArgument.url(for: file)
            let mode = try DeveloperMode.current()
            let opening = try await Handout.assignment(opening: url, store: store, mode: mode)
            opening.warnings.forEach(Diagnostics.warn)
            if let assignment = opening.assignment {
                if opening.accepted {
                    Diagnostics.warn(
                        "accepted the handout '\(assignment.title)' lying beside \(file): it is now assigned; "
                            + ProcessEvidence.statement(for: assignment.processEvidence)
                            + (AIStatement.Requirement.statement(for: assignment.aiStatementRequirement).map { "; \($0)" } ?? ""))
                }
                if configuration.targetWords == nil { configuration.targetWords = assignment.targetWordCount }
                if assignment.isReading { configuration.isReading = true }
            } else if mode.role == .off, let handout = Handout.lyingBeside(url) {
                Diagnostics.warn(
                    "the handout '\(handout.title)' lies beside \(file), but development mode is off, so it was not accepted; a student runs `clsfile role student --name \"Your Name\"` first"
                )
            }
            let session = EditorSession(recorder: SessionRecorder(store: store, configuration: configuration))
            let outcome = try await session.run(file: url, editor: command, usePTY: !noPty)
            for problem in outcome.measurement.problems {
                Diagnostics.warn("time recorded, but the content was not measured: \(problem.message)")
            }
            Diagnostics.warn(Self.summary(outcome, file: file, rule: configuration.idleRule))
            BackgroundSync.startIfWaiting(store: store)
            status = outcome.exitStatus
        }
        if status != 0 { throw ExitCode(status) }
    }

    static func summary(_ outcome: EditorSession.Outcome, file: String, rule: String) -> String {
        let words = outcome.measurement.report.map { "\($0.statistics.words) words" } ?? "words not counted"
        var parts = [
            "active \(Formatting.text(outcome.activeTime))", "open \(Formatting.text(outcome.openTime))",
            words, progress(outcome)
        ]
        let input = outcome.input
        let moved = (input.moved ?? 0) > 0 ? ", \(input.moved ?? 0) moved (own text)" : ""
        if let typed = input.typed {
            parts.append("\(typed) typed, \(input.pasted ?? 0) pasted\(moved) characters")
        } else if let keys = input.keysPressed, keys + (input.pasted ?? 0) + (input.moved ?? 0) > 0 {
            parts.append("\(keys) keys pressed (commands included), \(input.pasted ?? 0) pasted\(moved) characters")
        }
        if let statement = outcome.timingSource.statement { parts.append(statement) }
        if outcome.isDictated { parts.append("marked as written by dictation, nothing counted as pasted") }
        return "\((file as NSString).lastPathComponent): " + parts.joined(separator: ", ") + " (\(rule))"
    }

    private static func progress(_ outcome: EditorSession.Outcome) -> String {
        // Never measured (a file no detector reads): no figure, not 0%.
        guard let basis = outcome.progressBasis else { return "progress not measured" }
        guard basis.measuresProgress else { return "no progress (no target word count: give --target-words)" }
        return "progress \(Formatting.percent(outcome.progress)) \(basis.name(targetWords: outcome.targetWords))"
    }
}
