import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn, its output going to files.
///
/// Unlike Foundation's `Process`, the child starts with no signal blocked and default signal
/// dispositions, as from a shell, so SIGTERM reaches it as it would reach `clsfile serve` run by a person.
public final class SpawnedProcess: @unchecked Sendable {
    // @unchecked: `pid` and `status` are only used from the test that owns the process, one call at a time.
    public let pid: pid_t
    let outputURL: URL?
    let errorURL: URL?
    private var status: Int32?

    /// Starts a process.
    /// - Parameters:
    ///   - environment: Variables added to this process's environment.
    ///   - folder: Where `NAME.out` and `NAME.err` keep its output; discarded when nil.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], in folder: URL?,
        name: String = "process"
    ) throws {
        outputURL = folder?.appendingPathComponent("\(name).out")
        errorURL = folder?.appendingPathComponent("\(name).err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputURL?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorURL?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
    }

    deinit {
        if status == nil {
            Glibc.kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }

    /// What the process wrote to standard output so far.
    public var output: String { outputURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }
    /// What the process wrote to standard error so far.
    public var errorOutput: String { errorURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }

    /// Waits for the process to end, for at most `timeout` seconds; kills it after that.
    /// - Returns: The exit status as a shell reports it (128 + N for signal N), or nil when it had to be killed.
    @discardableResult
    public func wait(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = reap() { return status }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return kill()
    }

    /// Waits for the process to end, blocking this thread, for at most `timeout` seconds; kills it after that.
    /// - Returns: The exit status as a shell reports it, or nil when it had to be killed.
    @discardableResult
    public func waitBlocking(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = reap() { return status }
            usleep(10_000)
        }
        return kill()
    }

    /// The exit status once the process has ended, without waiting; nil while it runs.
    private func reap() -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        self.status = status
        return status
    }

    private func kill() -> Int32? {
        Glibc.kill(pid, SIGKILL)
        var raw: Int32 = 0
        waitpid(pid, &raw, 0)
        status = -1
        return nil
    }

    /// Sends a signal.
    public func signal(_ signal: Int32) {
        Glibc.kill(pid, signal)
    }
}
