import Foundation
import Synchronization

/// What clsfile's programs tell people on standard error: one line each, after `clsfile: `, so
/// that a message reads the same from every command, and an editor plugin can show it as is.
public enum Diagnostics {
    /// What every line starts with.
    public static let prefix = "clsfile: "

    private static let verbosity = Atomic<Bool>(false)

    /// Whether the command line asked for `--verbose` (``VerboseOption``): a failure then
    /// shows what failed underneath its message.
    public static var isVerbose: Bool {
        get { verbosity.load(ordering: .relaxed) }
        set { verbosity.store(newValue, ordering: .relaxed) }
    }

    /// Writes a line on standard error. Control characters in it (from a name, a title or a file
    /// name) are shown escaped, so the message stays one line and the terminal is not driven.
    /// - Parameter text: What happened, on which path, and what to do.
    public static func warn(_ text: String) {
        FileHandle.standardError.write(Data((prefix + TerminalText.escaped(text) + "\n").utf8))
    }
}
