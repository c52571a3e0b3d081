import Foundation

extension CLSDataStore {
    /// The editor run this process belongs to, for a program an editor starts on each event (a
    /// plugin's hook): its parent process, named by boot, process id and start time; nil when
    /// it cannot be read. Give it to ``CLSActivity/start(at:inEditorRun:)``, so that a buffer
    /// left and entered again in one editor is one session, and two runs of the editor are two.
    /// Not part of ClassKit.
    public static var parentEditorRun: String? { ProcessIdentity.parentRun }
}
