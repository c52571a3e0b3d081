import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import SessionRecorder

/// `clsfile hook EVENT FILE`: what editor plugins call on open, edit, save, view and close.
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook",
        abstract: "Record an editor event (what editor plugins call).",
        discussion: """
            Events: open, edit, save, view, close. Calls are idempotent and may come in any order. \
            A hook never makes the editor wait: when the store stays locked for more than 200 ms \
            the event goes to a spool file beside the store (STORE.spool) and the next call \
            records it. With --stdio, events are read as JSON lines from standard input, one \
            answer line each, for plugins that keep one process running:
              {"event": "view", "file": "/path/essay.txt", "view": [1, 40], "totalLines": 200}
            (the other keys: line, editor, inputAt, openedAt, targetWords, reading, typed, pasted, \
            moved, largestPaste). Active time comes from input only: a session's time runs from its \
            first input to its last (a pause within the idle timeout counts); an open, a close and a \
            view of a file being written are not input. Plugins send --input-at with every event, \
            so that work counts up to the last input and not to the moment the hook runs, and \
            --opened-at with close (the open time). The characters typed, pasted from outside \
            the document, and pasted from the document itself (--typed, --pasted, --moved: the \
            person's own text moved or copied, never counted as pasted; --largest-paste) go with \
            edit, save and close, each time those since the figures last sent for the file (since \
            its open, for the first): an editor that crashes loses only those since its last event. An event for a file \
            that does not exist yet (a new file before its first save) waits in the spool until \
            the file appears. Progress is measured toward a target word count (--target-words), \
            else as the share of lines viewed when reading (--reading), else by the document's \
            checklist or notebook cells; a document written with no target shows none. The first \
            call of a store starts its hook agent (clsfile-main hook --agent, in the background), which \
            keeps the store open and records the calls after it for them (a call it has not \
            taken within 5 s records its event itself); it ends after 10 minutes without one. \
            CLSFILE_HOOK_AGENT=off turns it off.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var sessionOptions: SessionOptions

    @Flag(name: .long, help: "Read events as JSON lines from standard input.")
    var stdio = false

    @Argument(help: ArgumentHelp("open, edit, save, view or close.", valueName: "event"))
    var event: SessionEvent.Kind?

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String?

    @Option(name: .long, help: "The cursor's line.")
    var line: Int?

    @Option(name: .long, help: ArgumentHelp("The visible lines, as FIRST-LAST.", valueName: "first-last"))
    var view: String?

    @Option(name: .long, help: ArgumentHelp("The file's number of lines (with --view).", valueName: "n"))
    var totalLines: Int?

    @Option(name: .long, help: ArgumentHelp("The editor's name.", valueName: "name"))
    var editor: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "When the editor last saw input in the file, in seconds since 1970: the work counts up to then.",
            valueName: "seconds"))
    var inputAt: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With close: when the editor opened the file, in seconds since 1970, for the open time.",
            valueName: "seconds"))
    var openedAt: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With edit, save or close: characters typed since the figures last sent for the file (input methods and dictation included).",
            valueName: "n"))
    var typed: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With edit, save or close: characters pasted from outside the document since the figures last sent.", valueName: "n"))
    var pasted: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With edit, save or close: characters pasted from the document itself (own text moved or copied) since the figures last sent.",
            valueName: "n"))
    var moved: Int?

    @Option(name: .long, help: ArgumentHelp("With --pasted: the most characters one of those pastes brought.", valueName: "n"))
    var largestPaste: Int?

    @OptionGroup var progressOptions: ProgressOptions

    func validate() throws {
        if stdio {
            guard event == nil, file == nil else { throw ValidationError("--stdio takes no event or file.") }
            return
        }
        guard event != nil, file != nil else { throw ValidationError("Give an event and a file, or --stdio.") }
        _ = try HookLine.visibleLines(view, totalLines: totalLines)
        _ = try HookLine.date(inputAt, option: "--input-at")
        _ = try HookLine.date(openedAt, option: "--opened-at")
        if let event { _ = try HookLine.input(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste, event: event) }
    }

    func run() async throws {
        let idleTimeout = try sessionOptions.resolvedIdleTimeout()
        if stdio {
            try await reportingFailures {
                let (recorder, spool) = try HookLine.recorder(store: storeOptions.store, idleTimeout: idleTimeout)
                try await HookLine.serve(recorder: recorder, spool: spool)
            }
            return
        }
        guard let call = try call(idleTimeout: idleTimeout) else { return }
        try await HookLine.record(call)
    }

    /// The request these arguments make; nil with `--stdio`.
    func call(idleTimeout: TimeInterval) throws -> HookCall? {
        guard let event, let file else { return nil }
        let sessionEvent = SessionEvent(
            kind: event, file: FileArgument.url(for: file), line: line,
            visibleLines: try HookLine.visibleLines(view, totalLines: totalLines),
            totalLines: totalLines, editor: editor,
            inputAt: try HookLine.date(inputAt, option: "--input-at"),
            openedAt: try HookLine.date(openedAt, option: "--opened-at"),
            targetWords: progressOptions.targetWords, isReading: progressOptions.reading ? true : nil,
            input: try HookLine.input(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste, event: event))
        return HookCall(event: sessionEvent, store: storeOptions.store, idleTimeout: idleTimeout)
    }
}

extension SessionEvent.Kind: ExpressibleByArgument {}
