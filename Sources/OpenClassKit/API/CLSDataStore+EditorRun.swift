import Foundation

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
}
