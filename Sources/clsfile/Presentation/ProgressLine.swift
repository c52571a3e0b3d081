import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One line of progress on standard error, drawn only in a terminal and only once work has taken
/// longer than half a second, so quick runs and pipes stay quiet.
final class ProgressLine {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = ContinuousClock.now
    private var isShown = false

    /// Replaces the line with `text`.
    func show(_ text: String) {
        guard isTerminal, ContinuousClock.now - started > .milliseconds(500) else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        isShown = true
    }

    /// Removes the line.
    func clear() {
        guard isShown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        isShown = false
    }
}
