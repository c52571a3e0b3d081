import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The person's terminal, switched to raw mode for the relay and always given back as it was.
///
/// Raw mode is restored on every normal path; for a wrapper killed with SIGKILL, a small guardian
/// shell waits on a pipe that only this process holds open, and restores the saved settings with
/// `stty` as soon as the pipe closes, however the process ended.
final class TerminalState {
    private var saved = termios()
    private var guardian: Process?
    private var guardianInput: FileHandle?

    /// Saves the settings of standard input and switches it to raw mode.
    /// - Throws: ``RecorderError`` when standard input is not a terminal.
    init() throws {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw RecorderError(.invalidEvent, "standard input is not a terminal: run with --no-pty")
        }
        startGuardian()
        var raw = saved
        cfmakeraw(&raw)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
    }

    /// Gives the terminal its settings back and lets the guardian go.
    func restore() {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        try? guardianInput?.close()
        guardianInput = nil
        guardian?.waitUntilExit()
        guardian = nil
    }

    private func startGuardian() {
        let settings = Process()
        settings.executableURL = URL(fileURLWithPath: "/bin/stty")
        settings.arguments = ["-g"]
        settings.standardInput = FileHandle.standardInput
        let output = Pipe()
        settings.standardOutput = output
        guard (try? settings.run()) != nil else { return }
        let saved = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        settings.waitUntilExit()
        guard settings.terminationStatus == 0, !saved.isEmpty else { return }

        let guardian = Process()
        guardian.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Ignore the signals a killed wrapper's terminal may send, wait for the pipe to close, restore.
        guardian.arguments = ["-c", "trap '' HUP INT QUIT TERM TTOU; cat >/dev/null; stty \"$1\" </dev/tty 2>/dev/null",
                              "clsfile-terminal-guardian", saved]
        let input = Pipe()
        guardian.standardInput = input
        guardian.standardOutput = FileHandle.nullDevice
        guardian.standardError = FileHandle.nullDevice
        guard (try? guardian.run()) != nil else { return }
        // Only this process may hold the write end, or the guardian would outlive a killed wrapper.
        _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        self.guardian = guardian
        guardianInput = input.fileHandleForWriting
    }
}
