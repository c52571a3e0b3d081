internal import CTerminal
import Foundation
import OpenClassKit

#if canImport(Glibc)
internal import Glibc
#endif

/// A running editor.
struct EditorProcess {
    let pid: pid_t

    /// Starts the editor on a file; with a terminal path, in its own session on that terminal.
    /// - Throws: ``RecorderError`` naming the command when it cannot be started.
    init(command: EditorCommand, file: [UInt8], terminal: String?) throws {
        var arguments: [UnsafeMutablePointer<CChar>?] =
            command.words.map { strdup($0) }
            + [FileSystemPath.withCString(file) { strdup($0) }, nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let result =
            terminal.map { path in path.withCString { clsfile_spawn(&arguments, $0, &pid) } }
            ?? clsfile_spawn(&arguments, nil, &pid)
        guard result == 0 else {
            throw RecorderError(
                .editorUnavailable,
                "cannot start the editor '\(command.words.joined(separator: " "))': \(String(cString: strerror(result))); check --editor, VISUAL or EDITOR"
            )
        }
        self.pid = pid
    }

    /// The exit status once the editor has ended, without waiting; nil while it runs.
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result < 0 && errno == ECHILD ? 1 : nil }
        return Self.shellStatus(status)
    }

    /// Waits for the editor to end.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 1 }
        }
        return Self.shellStatus(status)
    }

    /// The code a shell reports: the exit code, or 128 plus the signal that ended the process.
    private static func shellStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    func send(_ signal: Int32) {
        kill(pid, signal)
    }
}
