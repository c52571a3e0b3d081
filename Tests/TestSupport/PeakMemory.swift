import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Peak resident memory, the program's own.
///
/// The `ru_maxrss` that `wait4` gives for a child started with `posix_spawn` (or Foundation's
/// `Process`, which uses it) is not the child's: glibc starts it with `vfork` semantics, in the
/// parent's memory, and Linux keeps the high-water mark of the memory a process leaves at `exec`.
/// A benchmark that holds 60 MB reads 60 MB for a `/bin/true`, and a child's own `getrusage` says
/// the same. So a child is measured through GNU time, whose own child it forks from a small process,
/// and a process measures itself with `VmHWM`, the high-water mark of its present memory.
public enum PeakMemory {
    /// GNU time, which the measurement of another program needs (`apt-get install time`).
    public static let gnuTime = Tool("time", package: "time") { ["/usr/bin"] }

    /// The peak resident memory of one run of a program, in KiB; its output is discarded.
    /// - Throws: `Failure` when GNU time is not installed, or the program does not end with status 0.
    public static func ofRun(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Int {
        guard let time = gnuTime.url else {
            throw Failure(description: "GNU time is not installed: apt-get install -y time")
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("peak-memory-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = try SpawnedProcess(
            time.path, ["--format=%M", "--output=\(report.path)", executable] + arguments, environment: environment, in: nil)
        let status = process.waitBlocking(timeout: 600)
        let text = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        guard status == 0, let kilobytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Failure(
                description:
                    "\(executable) \(arguments.joined(separator: " ")) ended with status \(status.map(String.init) ?? "none (killed after 600 s)"): \(text)"
            )
        }
        return kilobytes
    }

    /// The peak resident memory of this process so far, in KiB (`VmHWM` of /proc/self/status).
    public static func ofThisProcess() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Why a run could not be measured.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
