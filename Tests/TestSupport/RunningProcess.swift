import Foundation

/// A process running on this machine, as /proc shows it: for a test that kills one the way a
/// crash or `kill -9` would, found by its name, its arguments or its parent.
public struct RunningProcess: Sendable, Equatable {
    public var pid: pid_t
    public var parent: pid_t
    /// The name the kernel keeps (the program's file name, at most 15 bytes).
    public var name: String
    /// Its command line.
    public var arguments: [String]

    /// Every process that can be read now.
    public static func all() -> [RunningProcess] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            // /proc/PID/stat: "PID (NAME) STATE PPID …", the name in the last parentheses.
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                let parent = stat[stat.index(after: close)...].split(separator: " ").dropFirst().first.flatMap({ pid_t($0) })
            else { return nil }
            let commandLine = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline"))) ?? Data()
            return RunningProcess(
                pid: pid, parent: parent, name: String(stat[stat.index(after: open)..<close]),
                arguments: commandLine.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
                    String(decoding: $0, as: UTF8.self)
                })
        }
    }

    /// The processes started, directly or not, by `ancestor`, and `ancestor` itself.
    public static func tree(of ancestor: pid_t) -> [RunningProcess] {
        let processes = all()
        let parents = Dictionary(processes.map { ($0.pid, $0.parent) }, uniquingKeysWith: { first, _ in first })
        return processes.filter { process in
            var current = process.pid
            while current != ancestor {
                guard let parent = parents[current], parent > 1 else { return false }
                current = parent
            }
            return true
        }
    }
}
