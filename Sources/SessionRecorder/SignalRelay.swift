import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Turns the signals a wrapper must act on into bytes on a pipe, so one `poll` loop sees them.
///
/// `nonisolated(unsafe)`: the write end is set once, before any handler is installed, and only read
/// afterwards, from signal handlers, which may run on any thread.
nonisolated(unsafe) private var signalWriteEnd: Int32 = -1

enum SignalRelay {
    /// The signals the loop handles: window size changes, and the ones it forwards to the editor.
    static let watched: [Int32] = [SIGWINCH, SIGTERM, SIGHUP, SIGCHLD]

    /// Installs the handlers and returns the read end of the pipe; SIGINT and SIGQUIT are ignored
    /// while the editor runs (the terminal sends them to the editor directly).
    static func install() -> Int32 {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return -1 }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        signalWriteEnd = ends[1]
        for number in watched {
            signal(number) { received in
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(signalWriteEnd, &byte, 1)
            }
        }
        signal(SIGINT, SIG_IGN)
        signal(SIGQUIT, SIG_IGN)
        return ends[0]
    }

    /// Reads the signals that arrived since the last call.
    static func drain(_ descriptor: Int32) -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        return count > 0 ? buffer[0..<count].map { Int32($0) } : []
    }
}
