import Foundation
@testable import SessionRecorder
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct SignalRelayTests {
    /// The editor's SIGCHLD can be handled on another thread just after the loop has restored the
    /// handlers; that late handler still writes to the pipe, so its read end must stay open (a
    /// write to a pipe without a reader ends the process with SIGPIPE, which once killed
    /// `clsfile open` after the editor had exited), and the next session must find no stale byte.
    @Test func theSignalPipeOutlivesItsHandlers() throws {
        let first = SignalRelay.install()
        #expect(first >= 0)
        SignalRelay.restore()
        #expect(fcntl(first, F_GETFD) != -1, "the read end was closed")

        let second = SignalRelay.install()
        defer { SignalRelay.restore() }
        #expect(second == first)
        kill(getpid(), SIGWINCH)
        var ready = [pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&ready, 1, 2000) == 1)
        // Another test's child may add a SIGCHLD.
        #expect(SignalRelay.drain(second).contains(SIGWINCH))
    }
}
