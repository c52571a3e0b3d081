import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Turns the signals a wrapper must act on into bytes on a pipe, so one `poll` loop sees them.
///
/// `nonisolated(unsafe)`: the write end is set once, when the pipe is made before the first handler
/// is installed, and only read afterwards, from signal handlers, which may run on any thread.
nonisolated(unsafe) private var signalWriteEnd: Int32 = -1

enum SignalRelay {
    /// The signals the loop handles: window size changes, and the ones it forwards to the editor.
    static let watched: [Int32] = [SIGWINCH, SIGTERM, SIGHUP, SIGCHLD]

    /// The pipe, made once per process and never closed. A signal delivered just before the
    /// handlers are restored can still run its handler afterwards (the editor's SIGCHLD, handled on
    /// another thread while the loop returns): writing to a pipe whose read end was closed would
    /// end the process with SIGPIPE, and a closed write end could be reused by another file.
    private static let ends: (read: Int32, write: Int32)? = {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        signalWriteEnd = ends[1]
        return (ends[0], ends[1])
    }()

    /// Installs the handlers and returns the read end of the pipe, or -1 when no pipe can be made;
    /// SIGINT and SIGQUIT are ignored while the editor runs (the terminal sends them to the editor
    /// directly).
    static func install() -> Int32 {
        guard let ends else { return -1 }
        // Bytes that arrived after an earlier session of this process ended are stale.
        while !drain(ends.read).isEmpty {}
        for number in watched {
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(signalWriteEnd, &byte, 1)
            }
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGQUIT, SIG_IGN)
        return ends.read
    }

    /// Restores the default handling of every signal ``install()`` changed; the pipe stays open.
    static func restore() {
        for number in watched + [SIGINT, SIGQUIT] { signal(number, SIG_DFL) }
    }

    /// Reads the signals that arrived since the last call.
    static func drain(_ descriptor: Int32) -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        return count > 0 ? buffer[0..<count].map { Int32($0) } : []
    }
}
