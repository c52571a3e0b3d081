import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The result of running a helper process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var output: String
    public var errorOutput: String
    /// Whether the process was killed for running too long.
    public var timedOut = false

    public init(status: Int32, output: String, errorOutput: String, timedOut: Bool = false) {
        self.status = status
        self.output = output
        self.errorOutput = errorOutput
        self.timedOut = timedOut
    }
}

/// Where the package's built executables are: beside the test bundle.
public func builtExecutable(_ name: String) throws -> URL {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    throw ExecutableNotBuilt(description: "\(name) is not built beside \(CommandLine.arguments[0]): run `swift build` first")
}

/// An executable a test runs is not among the built products.
public struct ExecutableNotBuilt: Error, CustomStringConvertible {
    public let description: String
}

/// Runs the store worker and waits for it.
@discardableResult
public func runWorker(_ arguments: [String], as user: String? = nil) throws -> ProcessResult {
    try run(try builtExecutable("store-worker"), arguments, as: user)
}

/// Runs an executable and waits for it, collecting its output.
public func run(
    _ executable: URL, _ arguments: [String], as user: String? = nil,
    environment: [String: String]? = nil
) throws -> ProcessResult {
    let process = Process()
    if let user {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", executable.path] + arguments
    } else {
        process.executableURL = executable
        process.arguments = arguments
    }
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        output: String(decoding: outputData, as: UTF8.self),
        errorOutput: String(decoding: errorData, as: UTF8.self))
}

/// Runs a command with no input or output and waits for it; see ``runBounded(_:_:environment:timeout:capturingIn:)``.
/// - Returns: The exit status as a shell reports it, or -1 when the command could not start.
@discardableResult
public func runQuietly(_ executable: String, _ arguments: [String]) -> Int32 {
    runBounded(executable, arguments).status
}

/// Runs a command with standard input from /dev/null and waits for it with waitpid, for at most
/// `timeout` seconds, after which it is killed. Unlike Foundation's `Process`, this reliably reaps
/// commands that leave a daemon behind, such as a tmux client that starts its server.
/// - Parameters:
///   - environment: Variables added to this process's environment.
///   - folder: Where to keep the command's output (`run.out`, `run.err`); discarded when nil.
/// - Returns: The exit status as a shell reports it (-1 when the command could not start), the
///   output when kept, and whether the time ran out.
public func runBounded(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: TimeInterval = 30, capturingIn folder: URL? = nil
) -> ProcessResult {
    guard let process = try? SpawnedProcess(executable, arguments, environment: environment, in: folder, name: "run") else {
        return ProcessResult(status: -1, output: "", errorOutput: "cannot start \(executable)")
    }
    let status = process.waitBlocking(timeout: timeout)
    return ProcessResult(status: status ?? -1, output: process.output, errorOutput: process.errorOutput, timedOut: status == nil)
}
