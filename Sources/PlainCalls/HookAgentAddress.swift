import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// Where the hook agent of one store listens, and the lock that agent holds while it serves.
///
/// An agent serves the calls that would record alike: the same store, idle timeout, clsfile
/// executable and settings. Its name is a hash of what decides them, as the call gives it, so
/// that a call finds its agent without working anything out: the `--store` and `--idle-timeout`
/// options, `clsfile-main`'s device, inode, size and time of change (a rebuilt or updated clsfile
/// starts an agent of its own; the `clsfile` front and `clsfile-main` both name it, so that a call
/// either makes finds the same agent), the development-mode settings file's (a new role is a new store),
/// and the environment variables that change what is recorded or where (`CLSFILE_*`, `HOME`,
/// `TMPDIR` and the XDG folders): a student who turns snapshots off with `CLSFILE_SNAPSHOTS=off` is
/// never served by an agent started before.
///
/// The folder is `$XDG_RUNTIME_DIR/clsfile`, else `/tmp/clsfile-UID`, made private to the user, and
/// used only when it is a directory, not a link, owned by this user, that nobody else may enter:
/// only this user's processes can reach the socket.
public struct HookAgentAddress: Sendable {
    /// The calls' `--store`, made absolute; nil for the default store.
    public let store: String?
    /// The calls' `--idle-timeout`, as given; nil for the default.
    public let idleTimeout: String?
    /// The socket's path.
    public let socket: String
    /// The lock file's path.
    public let lock: String

    /// The variable that turns the agent off: `CLSFILE_HOOK_AGENT=off`.
    public static let switchVariable = "CLSFILE_HOOK_AGENT"

    /// The address for hook calls with these options, from this executable in this environment;
    /// nil when the agent is turned off, or the folder is missing and cannot be made, or is not
    /// private to this user.
    /// - Parameters:
    ///   - store: The `--store` option; a relative path is made absolute here.
    ///   - idleTimeout: The `--idle-timeout` option.
    public init?(store: String?, idleTimeout: String?) {
        if let value = getenv(Self.switchVariable), String(cString: value) == "off" { return nil }
        guard let folder = Self.folder(), let executable = Self.identity(of: MainProgram.path) else { return nil }
        let environment = Self.relevantEnvironment()
        // A folder named relative to the call's own is not the agent's (which works in /).
        guard !environment.contains(where: Self.namesARelativeFolder) else { return nil }
        var absoluteStore = store
        if let store, !store.hasPrefix("/") {
            guard let directory = getcwd(nil, 0) else { return nil }
            absoluteStore = String(cString: directory) + "/" + store
            free(directory)
        }
        var hash = FNV1a()
        hash.add(absoluteStore ?? "")
        hash.add(idleTimeout ?? "")
        hash.add(executable)
        hash.add(Self.identity(of: UserFolders.developerModeSettings) ?? "")
        for entry in environment { hash.add(entry) }
        let name = folder + "/hook-" + hash.hexadecimal
        // A socket's path has room for 107 bytes.
        guard name.utf8.count + ".socket".utf8.count < 108 else { return nil }
        self.store = absoluteStore
        self.idleTimeout = idleTimeout
        socket = name + ".socket"
        lock = name + ".lock"
    }

    /// Takes the lock for as long as this process runs; false when another agent holds it.
    public func takeLock() -> Bool {
        let descriptor = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return false
        }
        // Kept open, and so locked, until the process ends.
        return true
    }

    /// The private folder of the user's agents; nil when it is not private.
    private static func folder() -> String? {
        let folder: String
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
            folder = runtime + "/clsfile"
        } else {
            folder = "/tmp/clsfile-\(geteuid())"
        }
        var info = stat()
        if lstat(folder, &info) != 0 {
            _ = mkdir(folder, 0o700)
            guard lstat(folder, &info) == 0 else { return nil }
        }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            return nil
        }
        return folder
    }

    /// A file as its device, inode, size and time of its last change; nil when it is missing.
    private static func identity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
    }

    /// The environment's entries that change what a hook records or where, sorted: not the
    /// switch itself, nor what `clsfile open` tells the editor's plugins (`CLSFILE_SESSION_*`).
    private static func relevantEnvironment() -> [String] {
        let prefixes = ["CLSFILE_", "HOME=", "TMPDIR=", "XDG_DATA_HOME=", "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "XDG_CACHE_HOME="]
        let ignored = [switchVariable + "=", "CLSFILE_SESSION_"]
        var entries: [String] = []
        var entry = environ
        // Compared as C strings: a String made of every variable would cost more than the rest.
        while let pointer = entry.pointee {
            entry += 1
            guard prefixes.contains(where: { strncmp(pointer, $0, strlen($0)) == 0 }),
                !ignored.contains(where: { strncmp(pointer, $0, strlen($0)) == 0 })
            else { continue }
            entries.append(String(cString: pointer))
        }
        return entries.sorted()
    }

    /// Whether an entry names a store or a folder of clsfile's relative to the current folder.
    private static func namesARelativeFolder(_ entry: String) -> Bool {
        let named = ["CLSFILE_STORE=", "HOME=", "XDG_DATA_HOME=", "XDG_CONFIG_HOME="]
        guard let name = named.first(where: entry.hasPrefix) else { return false }
        let value = entry.dropFirst(name.count)
        return !value.isEmpty && !value.hasPrefix("/")
    }

    /// The 64-bit FNV-1a hash: the same in every process (Swift's `Hasher` is seeded per process).
    private struct FNV1a {
        private var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ text: String) {
            for byte in text.utf8 + [0] {
                value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }

        var hexadecimal: String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}
