import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// The person's terminal, switched to raw mode for the relay and always given back as it was.
///
/// Raw mode is restored on every normal path; for a wrapper killed with SIGKILL, a small guardian
/// shell waits on a pipe that only this process holds open. When the pipe closes without the word
/// that a normal restore sends, the guardian restores the saved settings with `stty` and undoes
/// the screen modes a full-screen editor leaves on (the editor dies with the wrapper's terminal):
/// it leaves the alternate screen, turns application keypad and cursor keys, mouse reporting and
/// bracketed paste off, and shows the cursor, so the shell is usable at once.
final class TerminalState {
    private var saved = termios()
    private var guardian: Process?
    private var guardianInput: FileHandle?

    /// Saves the settings of standard input and switches it to raw mode.
    /// - Throws: ``RecorderError`` when standard input is not a terminal.
    init() throws {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw RecorderError(.editorUnavailable, "standard input is not a terminal: run with --no-pty")
        }
        startGuardian()
        var raw = saved
        cfmakeraw(&raw)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
    }

    /// Gives the terminal its settings back and lets the guardian go.
    func restore() {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        // The editor has put the screen back itself: the guardian must not (leaving an alternate
        // screen that is not on would move the cursor). A guardian killed meanwhile must not take
        // this process with it by SIGPIPE before the session is recorded.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        try? guardianInput?.write(contentsOf: Data("restored\n".utf8))
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
        // Ignore the signals a killed wrapper's terminal may send, wait for the pipe to close, and
        // unless the wrapper said it restored the terminal, restore the settings and screen modes.
        guardian.arguments = [
            "-c",
            """
            trap '' HUP INT QUIT TERM TTOU
            IFS= read -r word; [ "$word" = restored ] && exit 0
            stty "$1" </dev/tty 2>/dev/null
            printf '\\033[?1049l\\033[?1l\\033>\\033[?1000l\\033[?1002l\\033[?1006l\\033[?2004l\\033[?25h' >/dev/tty 2>/dev/null
            """, "clsfile-terminal-guardian", saved
        ]
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
