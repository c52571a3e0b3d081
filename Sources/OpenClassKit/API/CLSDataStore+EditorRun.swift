import Foundation
import ProgramBasics

extension CLSDataStore {
    /// The editor run this process belongs to, for a program an editor starts on each event (a
    /// plugin's hook): its parent process, named by boot, process id and start time; nil when
    /// it cannot be read. Give it to ``CLSActivity/start(at:inEditorRun:)``, so that a buffer
    /// left and entered again in one editor is one session, and two runs of the editor are two.
    /// Not part of ClassKit.
    public static var parentEditorRun: String? { ProcessIdentity.parentRun }

    /// This process as an editor run, for a program that runs the editor itself and records its
    /// session (`clsfile open`). Not part of ClassKit.
    public static var currentEditorRun: String { ProcessIdentity.currentRun }

    /// Whether the process an editor run names still runs. Not part of ClassKit.
    public static func isEditorRunning(_ run: String) -> Bool { ProcessIdentity.isRunning(run) }

    /// Gives up, now, this process's ownership of the running sessions it started, as it does
    /// when it exits normally: a session this process started then goes on for its editor run
    /// alone, and ends at its last sign of work once that editor is gone, as a hook process's
    /// does. For a process that records the events of many editor runs and outlives them
    /// (`clsfile`'s hook agent). A failure goes where ``reportExitFailures(to:)`` says. Not part
    /// of ClassKit.
    public static func handOverRunningSessions() { SpanHandover.handOverNow() }

    /// Ends the sessions whose process or editor run is gone, at their last sign of work, as each
    /// opening of the store does: for a process that keeps the store open while others read it
    /// (`clsfile`'s hook agent). Not part of ClassKit.
    public func endSessionsOfEndedProcesses() async throws { try await storage.endSpansOfEndedProcesses() }
}
