import ProgramBasics
import Synchronization

/// What clsfile's programs tell people on standard error: one line each, after `clsfile: `, so
/// that a message reads the same from every command, and an editor plugin can show it as is
/// (``StandardError`` writes the lines; this adds `--verbose` and the hook agent's collector).
public enum Diagnostics {
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
        let line = StandardError.line(text)
        if let collector { collector.append(line) } else { StandardError.write(line.utf8) }
    }

    /// Where the lines go instead of standard error within a task: a process that does the work
    /// of another (the hook agent) collects them, to send them to the process that asked, which
    /// writes them on its own standard error.
    @TaskLocal public static var collector: Collector?

    /// Lines collected instead of written, from any of the tasks of one piece of work.
    public final class Collector: Sendable {
        private let lines = Mutex<String>("")

        public init() {}

        /// Adds text, which ends with its newline.
        public func append(_ text: String) { lines.withLock { $0 += text } }

        /// The text collected so far.
        public var text: String { lines.withLock { $0 } }
    }
}
