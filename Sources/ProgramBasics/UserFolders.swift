#if canImport(Glibc)
internal import Glibc
#endif

/// The user's folders as the XDG base directories define them, worked out without Foundation: the
/// `clsfile` front and the library must find the same files.
package enum UserFolders {
    /// `$HOME`; the account's home (from the user database) only when it is unset or empty.
    package static var home: String {
        if let home = environment("HOME") { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir else {
            return "/"
        }
        return String(cString: directory)
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`, without a trailing slash (`/` itself is "").
    package static var configHome: String {
        var configHome = environment("XDG_CONFIG_HOME") ?? home + "/.config"
        while configHome.count > 1, configHome.hasSuffix("/") { configHome.removeLast() }
        return configHome == "/" ? "" : configHome
    }

    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    package static var dataHome: String {
        environment("XDG_DATA_HOME") ?? home + "/.local/share"
    }

    /// The development-mode settings file: `$XDG_CONFIG_HOME/clsfile/developer-mode.json`.
    package static var developerModeSettings: String {
        configHome + "/clsfile/developer-mode.json"
    }

    /// A variable of the environment; nil when it is unset or empty.
    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
