import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// One line of progress on standard error, drawn only in a terminal and only once work has taken
/// longer than half a second, so quick runs and pipes stay quiet.
public final class ProgressLine {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = ContinuousClock.now
    private var isShown = false

    public init() {}

    /// Replaces the line with `text`.
    public func show(_ text: String) {
        guard isTerminal, ContinuousClock.now - started > .milliseconds(500) else { return }
        // The text names files, whose control characters must not drive the terminal.
        StandardError.write(("\r\u{1B}[K" + TerminalText.escaped(text)).utf8)
        isShown = true
    }

    /// Removes the line.
    public func clear() {
        guard isShown else { return }
        StandardError.write("\r\u{1B}[K".utf8)
        isShown = false
    }
}
