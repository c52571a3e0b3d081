import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile-main`, the program that runs every command of `clsfile` but the plain calls the
/// `clsfile` front answers itself (``StatsCall``, and a hook call its agent takes,
/// ``HookAgentCall``): installed beside `clsfile`. The front starts without Foundation, the
/// store or ArgumentParser, which only `clsfile-main` links.
public enum MainProgram {
    /// Its file name.
    public static let name = "clsfile-main"

    /// The path of the running program, symbolic links resolved; `argv[0]` when it cannot be read.
    public static var ownPath: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0
            ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
    }

    /// Its path: the running program's when that is `clsfile-main`, else the file of that name
    /// beside the running program. Under a tool such as Valgrind, `/proc/self/exe` names the tool's
    /// file: when the running file is not named `clsfile` and has no `clsfile-main` beside it, the
    /// path the program was started as, when it has a folder, decides the same way.
    public static var path: String {
        let own = ownPath
        let ownName = fileName(of: own)
        if ownName == name { return own }
        let beside = folder(of: own) + "/" + name
        guard ownName != "clsfile", access(beside, X_OK) != 0, let started = CommandLine.arguments.first, started.contains("/") else {
            return beside
        }
        return fileName(of: started) == name ? started : folder(of: started) + "/" + name
    }

    private static func fileName(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path[...]
    }

    private static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    }

    /// Runs `clsfile-main` in this process's place with this process's arguments, byte for byte
    /// (`argv[0]` too, so that `ps` shows the command as it was typed).
    /// - Parameter environment: Variables to set for it (`NAME=value`).
    /// - Returns: Never; when it cannot run, says why and what to do, and exits 69 (`EX_UNAVAILABLE`).
    public static func replaceProcess(adding environment: [String] = []) -> Never {
        let program = path
        for entry in environment { _ = putenv(strdup(entry)) }
        execv(program, CommandLine.unsafeArgv)
        let reason = String(cString: strerror(errno))
        StandardError.write(
            StandardError.line(
                "cannot run \(program): \(reason); every command of clsfile but a plain stats needs \(name) installed beside "
                    + "clsfile (swift build makes both; Scripts/install installs both)"
            ).utf8)
        exit(69)
    }
}
