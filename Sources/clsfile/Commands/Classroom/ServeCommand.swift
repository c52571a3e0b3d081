import ArgumentParser
import Classroom
import CommandSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile serve`: runs the `clsfile-serve` program beside this one, which serves the teacher's
/// view as web pages. The web server lives in a program of its own so that the `clsfile` editor
/// plugins start on every event stays small and quick to load.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the teacher's view of the class as web pages (teacher role).",
        discussion: "Run `clsfile serve --help` for its options.")

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The options of clsfile serve.", valueName: "options"))
    var options: [String] = []

    func run() throws {
        try Self.replaceProcess(with: "clsfile-serve", options, for: "serve")
    }

    /// Runs a program installed beside this one in this process's place, with the given arguments.
    /// - Throws: `ExitCode` 69, after saying why, when the program is missing or cannot run.
    static func replaceProcess(with name: String, _ arguments: [String], for command: String) throws {
        let program = (ownExecutable() as NSString).deletingLastPathComponent + "/" + name
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, argv)
        let reason = String(cString: strerror(errno))
        Diagnostics.warn("cannot run \(program): \(reason); clsfile \(command) needs \(name) installed beside clsfile (swift build makes it)")
        throw ExitCode(69)
    }

    /// Runs a program installed beside clsfile, its output and errors going where clsfile's go.
    /// - Returns: Its exit status.
    static func runSibling(_ name: String, _ arguments: [String], for command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: (ownExecutable() as NSString).deletingLastPathComponent + "/" + name)
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            throw ClassroomError(.fileAccess, "cannot run \(process.executableURL?.path ?? name): \(error.localizedDescription); clsfile \(command) needs \(name) installed beside clsfile (swift build makes it)")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The path of the running clsfile, symbolic links resolved.
    static func ownExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
    }
}
