import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Signs of work in a GUI editor that `clsfile open` runs, from the desktop: a GUI editor that
/// writes its file only when saved sends no other pulse while the person types.
///
/// About once a second the session loop asks the desktop how long ago its last input (a key, a
/// click, a movement of the mouse) was, and which process owns the window that has the focus.
/// Input since the last poll while a window of the editor's process tree has the focus is a pulse
/// dated at that input. Input to other programs counts nothing, and neither does the editor's
/// window while no input comes.
///
/// The desktop is X11 (``X11Desktop``: `DISPLAY`, with libX11 and libXss loaded when a session
/// first needs them). Wayland sessions without X are not read: their idle time (GNOME's
/// `org.gnome.Mutter.IdleMonitor`) does not say which window the input went to.
final class DesktopActivity: @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time, never concurrently: the session loop's
    // thread while the editor runs, then the session's task once that thread has returned (its
    // end, which resumes the task, orders the two). The probe's X connection is used by the loop
    // thread alone.

    /// What the desktop tells: the time since its last input and the owner of the focused window.
    protocol Probe {
        /// Seconds since the person's last input anywhere on the desktop; nil when the desktop
        /// cannot tell (its connection is gone).
        func idleTime() -> TimeInterval?
        /// The process that owns the window with the focus; nil when no window has it or its
        /// owner is unknown.
        func focusedProcess() -> pid_t?
        /// Ends the connection.
        func close()
    }

    /// How often the desktop is asked.
    static let pollInterval: TimeInterval = 1

    private let probe: any Probe
    private let editor: pid_t
    private let processes: ProcessTree
    /// The processes known to belong to the editor: a process once seen in its tree stays, even
    /// if a parent between them exits.
    private var editorProcesses: Set<pid_t> = []
    /// Processes found outside the editor's tree, and when the tree was last read for them.
    private var strangers: [pid_t: Date] = [:]
    private var lastPoll: Date
    /// Whether one of the editor's windows had the focus at some poll: without that, the desktop
    /// timed nothing and the session's time comes from file changes only.
    private(set) var sawEditorWindow = false

    /// Watches the desktop for an editor.
    /// - Parameters:
    ///   - probe: The desktop.
    ///   - editor: The editor's process, the root of the tree whose windows count.
    ///   - started: When the editor started; input before it counts nothing.
    ///   - processes: Where process parents are read.
    init(probe: any Probe, editor: pid_t, started: Date = Date(), processes: ProcessTree = ProcessTree()) {
        self.probe = probe
        self.editor = editor
        self.processes = processes
        lastPoll = started
    }

    /// The desktop of this session, for an editor process; nil when there is none to read (no
    /// `DISPLAY`, libX11 or libXss missing, no XScreenSaver extension on the display).
    static func start(editor: pid_t, environment: [String: String] = ProcessInfo.processInfo.environment) -> DesktopActivity? {
        guard let display = environment["DISPLAY"], !display.isEmpty,
            let desktop = X11Desktop(display: display)
        else { return nil }
        return DesktopActivity(probe: desktop, editor: editor)
    }

    /// Asks the desktop when a second has passed since the last poll.
    /// - Returns: When the person last gave input to the editor's windows, if that happened since
    ///   the last poll.
    func poll(now: Date = Date()) -> Date? {
        let elapsed = now.timeIntervalSince(lastPoll)
        guard elapsed >= Self.pollInterval else { return nil }
        lastPoll = now
        guard let idle = probe.idleTime() else { return nil }
        guard let owner = probe.focusedProcess(), belongsToEditor(owner, now: now) else { return nil }
        sawEditorWindow = true
        // No input since the last poll: the idle time has grown by the whole interval (give or take
        // the few milliseconds that the two clocks and the round trip to the display differ by).
        guard idle < elapsed - 0.02 else { return nil }
        return now.addingTimeInterval(-idle)
    }

    /// Ends the connection to the desktop.
    func stop() {
        probe.close()
    }

    /// Whether a process is the editor or one of its descendants. The process table is read again
    /// for a process not known yet, and at most every few seconds for one found outside before.
    private func belongsToEditor(_ pid: pid_t, now: Date) -> Bool {
        if editorProcesses.contains(pid) { return true }
        if let checked = strangers[pid], now.timeIntervalSince(checked) < 5 { return false }
        editorProcesses.formUnion(processes.descendants(of: editor))
        if editorProcesses.contains(pid) { return true }
        strangers[pid] = now
        return false
    }
}
