import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import PlainCalls

#if canImport(Glibc)
import Glibc
#endif

/// A program installed beside `clsfile` that does part of its work: `clsfile-serve` (the web
/// server of `clsfile serve`) and `clsfile-sync` (the HTTP client of `join`, `sync`, `status`,
/// `leave`, `register` and `catalog`). Their servers and clients stay out of the program editor
/// plugins start on every event.
///
/// `clsfile` reaches them in four ways, all here: it hands a forwarded command over in its own
/// place (``replaceProcess(with:for:)``), runs one and waits (``run(_:for:)``), starts a sync in
/// the background (``spawnInBackground(_:)``), and reads a value one prints as JSON
/// (``output(of:as:for:)``).
struct HelperProgram: Sendable, Equatable {
    /// The program's file name, beside `clsfile`.
    let name: String

    /// `clsfile-serve`, which runs `clsfile serve` as a whole.
    static let serve = HelperProgram(name: "clsfile-serve")
    /// `clsfile-sync`, whose subcommands are `clsfile`'s of the same name.
    static let sync = HelperProgram(name: "clsfile-sync")

    /// The commands of `clsfile` another program runs, by name; ``ForwardedCommand`` describes
    /// them to `--help`.
    static let forwardedCommands: [String: HelperProgram] = [
        "serve": .serve,
        "join": .sync, "sync": .sync, "status": .sync, "leave": .sync, "register": .sync, "catalog": .sync
    ]

    /// A call of a forwarded command, as the program that runs it takes it.
    struct Forwarding: Equatable {
        var program: HelperProgram
        var arguments: [String]
        /// The command's name in `clsfile`, for messages.
        var command: String
    }

    /// The call these arguments (after the program name) make of a forwarded command
    /// (`clsfile help sync` too); nil for any other call.
    static func forwarding(_ arguments: [String]) -> Forwarding? {
        var arguments = arguments
        var asksHelp = false
        if arguments.count == 2, arguments[0] == "help" {
            arguments = [arguments[1]]
            asksHelp = true
        }
        guard let command = arguments.first, let program = forwardedCommands[command] else { return nil }
        let rest = asksHelp ? ["--help"] : Array(arguments.dropFirst())
        // clsfile-serve is the one command it runs; clsfile-sync's subcommands carry clsfile's names.
        return Forwarding(program: program, arguments: program == .serve ? rest : [command] + rest, command: command)
    }

    /// The program's path: beside the running `clsfile`.
    var path: String {
        (MainProgram.ownPath as NSString).deletingLastPathComponent + "/" + name
    }

    /// Runs the program in this process's place, with the given arguments.
    /// - Parameters:
    ///   - arguments: The program's arguments.
    ///   - command: What of `clsfile` needs it, for the message when it cannot run.
    /// - Throws: `ExitCode` 69, after saying why, when the program is missing or cannot run.
    func replaceProcess(with arguments: [String], for command: String) throws -> Never {
        let program = path
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, argv)
        let reason = String(cString: strerror(errno))
        Diagnostics.warn(
            "cannot run \(program): \(reason); clsfile \(command) needs \(name) installed beside clsfile (swift build makes it)")
        throw ExitCode(69)
    }

    /// Runs the program and waits for it, its output and errors going where clsfile's go.
    /// - Returns: Its exit status.
    /// - Throws: ``ClassroomError`` (file access) when it is missing or cannot run.
    func run(_ arguments: [String], for command: String) throws -> Int32 {
        let process = try started(arguments, for: "clsfile \(command)")
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs the program and reads what it prints on standard output: a `Value` in JSON, of a type
    /// both programs share; its refusals go straight to standard error.
    /// - Parameters:
    ///   - arguments: The program's arguments.
    ///   - type: The value it prints.
    ///   - use: What needs the program, for the message when it cannot run ("reading a class server").
    ///   - decoder: Reads the value as the program writes it.
    /// - Returns: The value.
    /// - Throws: ``ClassroomError`` (file access) when the program cannot run; `ExitCode` with its
    ///   status when it fails; `DecodingError` when what it printed is not a `Value`.
    func output<Value: Decodable>(
        of arguments: [String], as type: Value.Type, for use: String,
        decoder: JSONDecoder
    ) throws -> Value {
        let output = Pipe()
        let process = try started(arguments, for: use) { $0.standardOutput = output }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ExitCode(process.terminationStatus) }
        return try decoder.decode(type, from: data)
    }

    /// glibc's `POSIX_SPAWN_SETSID` (2.26 and later), which Swift does not import: the program
    /// runs in a session of its own, without the editor's terminal or its Ctrl-C.
    private static let startsSession: Int16 = 0x80

    /// Starts the program in a session of its own with no terminal, its standard streams on
    /// `/dev/null`, and does not wait for it.
    /// - Returns: Its process id; nil when it could not start (a background job says nothing).
    func spawnInBackground(_ arguments: [String]) -> pid_t? {
        Self.spawnInBackground(path, arguments)
    }

    /// Starts `program` in a session of its own with no terminal, its standard streams on
    /// `/dev/null`, and does not wait for it (see ``spawnInBackground(_:)``).
    static func spawnInBackground(_ program: String, _ arguments: [String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        posix_spawnattr_setflags(&attributes, startsSession)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, program, &actions, &attributes, argv, environ) == 0 ? pid : nil
    }

    /// Starts the program as a child process.
    private func started(_ arguments: [String], for use: String, configure: (Process) -> Void = { _ in }) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        configure(process)
        do {
            try process.run()
        } catch {
            throw ClassroomError(
                .fileAccess,
                "cannot run \(path): \(error.localizedDescription); \(use) needs \(name) installed beside clsfile (swift build makes it)")
        }
        return process
    }
}
