import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// The processes that descend from one process, read from `/proc`: an editor's window often
/// belongs to a child of the command `clsfile open` started (`soffice` runs `oosplash`, which runs
/// `soffice.bin`, whose windows those are).
struct ProcessTree {
    /// The folder of the process table, `/proc` unless a test says otherwise.
    var procFolder = "/proc"

    /// The parent of every process now running, by process id.
    func parents() -> [pid_t: pid_t] {
        guard let folder = opendir(procFolder) else { return [:] }
        defer { closedir(folder) }
        var result: [pid_t: pid_t] = [:]
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), let parent = parent(of: pid) else { continue }
            result[pid] = parent
        }
        return result
    }

    /// The process itself and every process that descends from it now.
    func descendants(of root: pid_t) -> Set<pid_t> {
        var children: [pid_t: [pid_t]] = [:]
        for (pid, parent) in parents() { children[parent, default: []].append(pid) }
        var result: Set<pid_t> = [root]
        var waiting = [root]
        while let pid = waiting.popLast() {
            for child in children[pid] ?? [] where result.insert(child).inserted {
                waiting.append(child)
            }
        }
        return result
    }

    /// The parent process id in `/proc/PID/stat`: the fourth field, after the command name in
    /// parentheses, which may itself hold spaces and parentheses.
    func parent(of pid: pid_t) -> pid_t? {
        let descriptor = open("\(procFolder)/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        return pid_t(String(decoding: fields[1], as: UTF8.self))
    }
}
