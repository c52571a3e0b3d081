#if canImport(Glibc)
internal import Glibc
#endif

/// Who owns a running time span: one process on one boot of one host.
///
/// A pid alone is not enough, since pids are reused; the pair (pid, start time in clock ticks since
/// boot) is unique within one boot, and the boot id tells boots apart.
package struct ProcessIdentity: Sendable, Hashable {
    package var host: String
    package var bootID: String
    package var pid: Int64
    package var startTicks: Int64

    package init(host: String, bootID: String, pid: Int64, startTicks: Int64) {
        self.host = host
        self.bootID = bootID
        self.pid = pid
        self.startTicks = startTicks
    }

    /// The identity of this process, read once.
    package static let current: ProcessIdentity = {
        let pid = Int64(getpid())
        return ProcessIdentity(
            host: hostName(),
            bootID: bootID,
            pid: pid,
            startTicks: startTicks(of: pid) ?? 0)
    }()

    /// This boot's id, read once: all an editor run's name needs of this process.
    private static let bootID = readBootID()

    /// Whether this owner is known to be gone: same host, and either another boot or no live
    /// process with that pid and start time. An owner on another host is never judged gone.
    package var isKnownDead: Bool {
        let me = ProcessIdentity.current
        guard host == me.host else { return false }
        guard bootID == me.bootID else { return true }
        guard let ticks = ProcessIdentity.startTicks(of: pid) else { return true }
        return ticks != startTicks
    }

    /// The host's name, from `gethostname` (what `ProcessInfo.hostName` returns, without setting
    /// up `ProcessInfo`, which a hook process needs for nothing else).
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readBootID() -> String {
        let bytes = contents(of: "/proc/sys/kernel/random/boot_id") ?? []
        return String(decoding: bytes.filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") }, as: UTF8.self)
    }

    /// The parent of this process as one editor run: boot, process id and start time, which no
    /// other process shares; nil when it cannot be read. A shell between the editor and this
    /// process (Vim's `:!` and `system()`, `sh -c` in a plugin) ends with this process, so the
    /// run is the first process above that is not a shell.
    package static var parentRun: String? {
        var pid = Int64(getppid())
        for _ in 0..<8 {
            guard pid > 1, let parent = status(of: pid) else { return nil }
            guard shells.contains(parent.command), parent.parent > 1 else {
                return "\(bootID)/\(pid)/\(parent.startTicks)"
            }
            pid = parent.parent
        }
        return nil
    }

    /// The names (`comm`) of the shells an editor may run a hook through. An array: a set's type
    /// met first here would cost a hook call a scan of every protocol conformance.
    private static let shells = ["sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh"]

    /// This process as an editor run, for a program that runs the editor itself (`clsfile open`).
    package static var currentRun: String {
        "\(current.bootID)/\(current.pid)/\(current.startTicks)"
    }

    /// Whether the process an editor run names (``parentRun``, ``currentRun``) still runs on this
    /// boot; a name that is not one is taken for a run that ended.
    package static func isRunning(_ run: String) -> Bool {
        editorRun(run).map { !$0.isKnownDead } ?? false
    }

    /// Whether the process an editor run names ran on this boot of this host and is gone. A run
    /// of another boot may be another host's that shares the store, so it is never judged here.
    package static func hasEndedOnThisBoot(_ run: String) -> Bool {
        guard let process = editorRun(run) else { return false }
        return process.bootID == current.bootID && process.isKnownDead
    }

    /// The process an editor run names, on this host; nil for a name that is not one.
    private static func editorRun(_ run: String) -> ProcessIdentity? {
        let parts = run.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let pid = Int64(parts[1]), let ticks = Int64(parts[2]) else { return nil }
        return ProcessIdentity(host: current.host, bootID: String(parts[0]), pid: pid, startTicks: ticks)
    }

    /// The start time of a process in clock ticks after boot; nil when it is gone.
    package static func startTicks(of pid: Int64) -> Int64? {
        status(of: pid)?.startTicks
    }

    /// From `/proc/PID/stat`: the command name (field 2), the parent (field 4) and the start time
    /// in clock ticks after boot (field 22); nil when the process is gone.
    private static func status(of pid: Int64) -> (command: String, parent: Int64, startTicks: Int64)? {
        guard let data = contents(of: "/proc/\(pid)/stat"),
            let open = data.firstIndex(of: UInt8(ascii: "(")),
            let close = data.lastIndex(of: UInt8(ascii: ")")), open < close
        else { return nil }
        // Fields after the command name start at field 3; the name itself may hold spaces.
        let rest = data[data.index(after: close)...].split(separator: UInt8(ascii: " "))
        guard rest.count > 19, let parent = Int64(String(decoding: rest[1], as: UTF8.self)),
            let ticks = Int64(String(decoding: rest[19], as: UTF8.self))
        else { return nil }
        return (String(decoding: data[data.index(after: open)..<close], as: UTF8.self), parent, ticks)
    }

    /// The bytes of a small file of /proc, read with two system calls: every hook process reads
    /// two of them, and Foundation's file reading costs more than the reading.
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
    }
}
