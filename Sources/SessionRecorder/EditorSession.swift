internal import CTerminal
import Foundation
import OpenClassKit
internal import NIOConcurrencyHelpers

#if canImport(Glibc)
internal import Glibc
#endif

/// Runs an editor on a file and records the session: what `clsfile open` does.
///
/// In a terminal, the editor runs on a pseudo-terminal that this session relays, so every keystroke
/// is a pulse and typed input can be told from pasted bursts; window size changes follow, and the
/// person's terminal is restored however the session ends. Outside a terminal, or when asked, the
/// editor shares the terminal and changes of the file on disk are the pulses. SIGTERM and SIGHUP
/// are passed on to the editor.
public struct EditorSession: Sendable {
    /// What a session did.
    public struct Outcome: Sendable {
        /// The editor's exit status as a shell reports it.
        public var exitStatus: Int32
        /// The time counted as work in this session.
        public var activeTime: TimeInterval
        /// The time from open to close.
        public var openTime: TimeInterval
        /// The measurement taken at close.
        public var measurement: SessionRecorder.Measurement
        /// The file's progress after the session.
        public var progress: Double
        /// What the progress measures.
        public var progressBasis: ProgressBasis?
        /// The file's target word count, if it has one.
        public var targetWords: Int?
        /// What reached the text: a plugin's count of characters typed and pasted, else the
        /// relay's keys pressed and pastes; each figure nil where nothing counted it.
        public var input: SessionEvent.InputFigures
        /// What the session's pulses came from; `TimingSource.fileChanges` when typing between
        /// saves could not be seen.
        public var timingSource: TimingSource = .fileChanges
        /// True when the session was recorded as written by dictation or an input method.
        public var isDictated = false
    }

    /// The environment variable that tells editor plugins which file `clsfile open` records, so
    /// that they stay quiet for it instead of counting the session twice. Its value is the file's
    /// canonical path.
    public static let sessionFileVariable = "CLSFILE_SESSION_FILE"

    /// The environment variable that names the file in which an editor's plugin keeps what it
    /// counted for the session's file, as one JSON object `{"typed": N, "pasted": N,
    /// "largestPaste": N}`: the plugin sees which characters reach the text, which the terminal
    /// relay cannot (it sees keys, commands included), so its figures are the ones recorded.
    public static let sessionInputVariable = "CLSFILE_SESSION_INPUT"

    /// Pulses reach the store at most this often, so a killed session loses at most this much.
    static let flushInterval: Duration = .seconds(1)

    let recorder: SessionRecorder

    /// Creates a session that records through a recorder.
    public init(recorder: SessionRecorder) {
        self.recorder = recorder
    }

    /// Opens the file in the editor, waits for the editor to end, and records the session.
    /// A missing file is created first; its folder must exist.
    /// - Parameters:
    ///   - file: The file; the editor gets its canonical path.
    ///   - editor: The editor command.
    ///   - usePTY: Relay the terminal through a pseudo-terminal when standard input is one.
    /// - Throws: ``RecorderError`` when the file cannot be created or the editor cannot start (no
    ///   session is then recorded), `CLSError` when the store fails.
    public func run(file: URL, editor: EditorCommand, usePTY: Bool) async throws -> Outcome {
        let (pathBytes, created) = try Self.prepare(file)
        let url = URL(fileSystemPathBytes: pathBytes)
        let path = URL(fileSystemPathBytes: pathBytes).displayPath
        let before = try await recorder.store.fetchActivity(for: url).duration
        var isDictated = recorder.configuration.isDictated ?? false
        if recorder.configuration.isDictated == nil { isDictated = try await recorder.store.isDictating() }
        let opened = Date()
        // Recorded before the editor starts: a store that cannot be written stops the session
        // here, never with an editor left running.
        // Named as an editor run of its own: a session an editor left running (it died) ends here.
        var open = SessionEvent(kind: .open, file: url, date: opened)
        open.editorRun = CLSDataStore.currentEditorRun
        open.isDictated = isDictated
        try await recorder.record(open)
        do {
            return try await edit(
                url, pathBytes: pathBytes, path: path, opened: opened, before: before,
                editor: editor, usePTY: usePTY, isDictated: isDictated)
        } catch let error as RecorderError where error.code == .editorUnavailable {
            // No editor ran: the session opened for it is taken back, and the file made for it,
            // still empty, is removed.
            try await recorder.store.fetchActivity(for: url).discardStart()
            try await recorder.store.save()
            var info = stat()
            if created, FileSystemPath.withCString(pathBytes, { stat($0, &info) }) == 0, info.st_size == 0 {
                _ = FileSystemPath.withCString(pathBytes) { unlink($0) }
            }
            throw error
        }
    }

    /// Runs the editor on a file whose session is open, and records its close.
    private func edit(
        _ url: URL, pathBytes: [UInt8], path: String, opened: Date, before: TimeInterval,
        editor: EditorCommand, usePTY: Bool, isDictated: Bool
    ) async throws -> Outcome {

        // From here on SIGTERM and SIGHUP wait in the relay's pipe and reach the editor once it
        // runs: a signal sent while the editor starts must neither kill this process and orphan
        // the editor nor be lost.
        let signals = SignalRelay.install()
        defer { SignalRelay.restore() }
        _ = FileSystemPath.withCString(pathBytes) { setenv(Self.sessionFileVariable, $0, 1) }
        let pluginInput = PluginInputFile()
        defer { pluginInput?.remove() }
        if let pluginInput { setenv(Self.sessionInputVariable, pluginInput.path, 1) } else { unsetenv(Self.sessionInputVariable) }
        let relayTerminal = usePTY && isatty(STDIN_FILENO) == 1
        var master: Int32 = -1
        var terminal: TerminalState?
        var process: EditorProcess
        if relayTerminal {
            var name = [CChar](repeating: 0, count: 256)
            master = clsfile_open_pty(&name, UInt(name.count))
            guard master >= 0 else {
                throw RecorderError(.editorUnavailable, "cannot open a pseudo-terminal: \(String(cString: strerror(errno))); try --no-pty")
            }
            var rows: UInt16 = 0, columns: UInt16 = 0
            if clsfile_get_window_size(STDIN_FILENO, &rows, &columns) == 0 {
                _ = clsfile_set_window_size(master, rows, columns)
            }
            process = try EditorProcess(
                command: editor, file: pathBytes,
                terminal: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            terminal = try? TerminalState()
        } else {
            process = try EditorProcess(command: editor, file: pathBytes, terminal: nil)
        }

        let saved = SavedText(path: pathBytes)
        let pulses = PulseLog(file: FileStamp(pathBytes), isDictated: isDictated, isOwn: saved.holds)
        // The relay sees every keystroke of a terminal editor; a GUI editor's typing shows on the
        // desktop, and its saves on disk, also when it was started from a terminal, whose relay
        // then sees nothing: every source that runs is watched.
        let loop = SessionLoop(
            editor: process, master: master, watchedFile: pathBytes,
            pulses: pulses, signals: signals,
            desktop: DesktopActivity.start(editor: process.pid))
        // What reached the text so far: the plugin's count when it keeps one, else the relay's.
        let counted = { @Sendable () -> SessionEvent.InputFigures in
            if let figures = pluginInput?.figures() { return figures }
            let evidence = pulses.evidence
            return relayTerminal
                ? SessionEvent.InputFigures(
                    pasted: evidence.pasted, moved: evidence.tally.moved, largestPaste: evidence.tally.largestPaste,
                    keysPressed: evidence.typed)
                : SessionEvent.InputFigures()
        }
        let flusher = Task {
            // The figures the events saved so far carried: each event carries those since, so that
            // a save's row of the history holds what was typed and pasted before that save.
            var sent = SessionEvent.InputFigures()
            while true {
                try? await Task.sleep(for: Self.flushInterval)
                // Cancelled (the sleep ends at once): the session's last pulse is saved below.
                guard !Task.isCancelled else { return sent }
                // A pulse that fails to save (busy store) is superseded by the next one; the final
                // pulse and the close below are saved or reported.
                if let pulse = pulses.takePulse(file: FileStamp(pathBytes)) {
                    // The first input since the last save of a pulse is kept too: after a pause
                    // past the idle timeout, the work starts again there, not at the flush.
                    // A file written since then was saved by the editor: its text is measured and
                    // kept in the history, as a plugin's save event does.
                    let now = counted()
                    var last = SessionEvent(kind: pulse.fileChanged ? .save : .edit, file: url, date: pulse.date, inputAt: pulse.date)
                    last.input = now.since(sent)
                    last.isDictated = isDictated
                    let events =
                        (pulse.first < pulse.date ? [SessionEvent(kind: .edit, file: url, date: pulse.first, inputAt: pulse.first)] : [])
                        + [last]
                    // In a task of its own, which the flusher's cancellation does not reach: a
                    // save cut short would lose a pulse that was already taken.
                    let saved = await Task { (try? await recorder.record(events)) != nil }.value
                    if saved { sent = now }
                }
            }
        }
        let status = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: loop.run()) }.start()
        }
        terminal?.restore()
        if master >= 0 { close(master) }
        // A pulse the flusher is saving must land before the close: saved after it, it would
        // start a new span of a session that has ended.
        flusher.cancel()
        let sent = await flusher.value

        // The close carries the session's own figures, so each item has one writer: the recorder.
        // The input no flush saved yet: its first moment too, so that a session shorter than the
        // flush interval still counts from its first input to its last.
        let unsaved = pulses.takePulse(file: FileStamp(pathBytes))
        let lastInput = unsaved?.date
        let evidence = pulses.evidence
        let timing: TimingSource =
            relayTerminal && evidence.tally.typed + evidence.tally.pasted + evidence.tally.moved > 0
            ? .terminal
            : loop.desktop?.sawEditorWindow == true ? .desktop : .fileChanges
        let closed = Date()
        // Delivered, not just recorded: events that waited in the spool for a busy store (views the
        // editor's plugin sent, say) go in first, and a store that stays busy keeps the close.
        let spool = EventSpool(storeURL: recorder.store.storeURL)
        var input = counted()
        input.largestGrowth = evidence.largestGrowth
        // The close carries what the events before it did not.
        var rest = input.since(sent)
        rest.largestGrowth = evidence.largestGrowth
        var close = SessionEvent(kind: .close, file: url, date: closed, inputAt: lastInput, openedAt: opened, input: rest, timing: timing)
        close.isDictated = isDictated
        let firstInput = unsaved.flatMap {
            $0.first < $0.date ? SessionEvent(kind: .edit, file: url, date: $0.first, inputAt: $0.first) : nil
        }
        let delivery = try await recorder.deliver((firstInput.map { [$0] } ?? []) + [close], spool: spool)
        if let failure = delivery.failures.first(where: { $0.event.file == url }) { throw failure.error }
        if delivery.isSpooled {
            throw RecorderError(
                .storeBusy,
                "the store \(recorder.store.storeURL.path) stayed locked by another process: the session of \(path) waits in \(spool.url.path) and is recorded by the next clsfile call (run `clsfile list` once the other process is done)"
            )
        }
        let measurement = delivery.measurement
        let activity = try await recorder.store.fetchActivity(for: url)
        return Outcome(
            exitStatus: status, activeTime: max(0, activity.duration - before),
            openTime: closed.timeIntervalSince(opened), measurement: measurement,
            progress: activity.progress, progressBasis: activity.progressBasis,
            targetWords: activity.targetWordCount, input: isDictated ? input.countedAsTyped : input, timingSource: timing,
            isDictated: isDictated)
    }

    /// Makes a missing file (its folder must exist) and returns the file's canonical path, as the
    /// file system spells it (a name that is not UTF-8 keeps its bytes), and whether it was made.
    private static func prepare(_ file: URL) throws -> (path: [UInt8], created: Bool) {
        let bytes = file.fileSystemPathBytes
        let shown = file.displayPath
        var info = stat()
        let created = FileSystemPath.withCString(bytes, { stat($0, &info) }) != 0
        if created {
            let slash = bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0
            let folder = slash == 0 ? [UInt8(ascii: "/")] : Array(bytes[..<slash])
            var folderInfo = stat()
            guard FileSystemPath.withCString(folder, { stat($0, &folderInfo) }) == 0, folderInfo.st_mode & S_IFMT == S_IFDIR else {
                throw RecorderError(
                    .fileAccess,
                    "cannot create \(shown): the folder \(URL(fileSystemPathBytes: folder).displayPath) does not exist; create it first")
            }
            let descriptor = FileSystemPath.withCString(bytes) { open($0, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644) }
            guard descriptor >= 0 else {
                throw RecorderError(
                    .fileAccess, "cannot create \(shown): \(String(cString: strerror(errno))); check the folder's permissions")
            }
            close(descriptor)
        }
        guard let resolved = FileSystemPath.withCString(bytes, { realpath($0, nil) }) else {
            throw RecorderError(.fileAccess, "cannot resolve \(shown): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        return (
            Array(UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved))),
            created
        )
    }

}

/// Pulses and input counts, shared by the relay thread and the task that saves pulses.
final class PulseLog: Sendable {
    struct Evidence {
        var tally = InputTally()
        /// The first and last pulse not saved yet.
        var firstPulse: Date?
        var lastPulse: Date?
        var lastFile: FileStamp
        var largestGrowth: Int64 = 0
        var typed: Int { tally.typed }
        var pasted: Int { tally.pasted }
    }

    private let state: NIOLockedValueBox<Evidence>

    /// - Parameter isOwn: Whether pasted bytes are the document's own text (see ``InputTally``).
    init(file: FileStamp, isDictated: Bool = false, isOwn: (@Sendable ([UInt8]) -> Bool)? = nil) {
        state = NIOLockedValueBox(Evidence(tally: InputTally(isDictated: isDictated, isOwn: isOwn), lastFile: file))
    }

    /// A sign of work now: a change of the file, or the bytes the person's terminal sent. Bytes
    /// that are only the terminal's answers to the editor's queries (the cursor position Vim asks
    /// for as it starts) are no input, and no pulse.
    func pulse(input: ArraySlice<UInt8>? = nil) {
        state.withLockedValue { state in
            if let input {
                guard !InputTally.isTerminalReport(input) else { return }
                state.tally.add(input)
            }
            let now = Date()
            state.firstPulse = state.firstPulse ?? now
            state.lastPulse = now
        }
    }

    /// A pulse at a moment just past, such as the desktop's last input; an earlier one is kept if later.
    func pulse(at date: Date) {
        state.withLockedValue { state in
            state.firstPulse = min(state.firstPulse ?? date, date)
            state.lastPulse = max(state.lastPulse ?? date, date)
        }
    }

    /// The times of the first and the last pulse not yet saved, if any, and whether the file was
    /// written since the pulse saved before; also measures the file's growth since then.
    func takePulse(file: FileStamp) -> (first: Date, date: Date, fileChanged: Bool)? {
        state.withLockedValue { state in
            defer { (state.firstPulse, state.lastPulse) = (nil, nil) }
            guard let date = state.lastPulse else { return nil }
            state.largestGrowth = max(state.largestGrowth, file.size - state.lastFile.size)
            defer { state.lastFile = file }
            return (min(state.firstPulse ?? date, date), date, file != state.lastFile)
        }
    }

    var evidence: Evidence { state.withLockedValue { $0 } }
}

/// A file's size and time of last change, to tell when an editor wrote it.
struct FileStamp: Sendable, Equatable {
    var size: Int64
    /// Nanoseconds since 1970 of the last change; 0 for a file that cannot be read.
    var modified: Int64

    init(_ path: [UInt8]) {
        var info = stat()
        guard FileSystemPath.withCString(path, { stat($0, &info) }) == 0 else {
            (size, modified) = (0, 0)
            return
        }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
