import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// One person at the machine: their own configuration and data folders, so each has their own
/// development-mode role and stores, as on separate accounts.
struct Person {
    let home: URL

    init(_ name: String, in scratch: Scratch) throws {
        home = scratch.url.appendingPathComponent("people/\(name)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// A teacher and two students, Ada and Bob, each in their role.
    static func classOfThree(in scratch: Scratch) throws -> (teacher: Person, ada: Person, bob: Person) {
        let teacher = try Person("teacher", in: scratch)
        let ada = try Person("ada", in: scratch), bob = try Person("bob", in: scratch)
        try teacher.clsfile("role", "teacher")
        try ada.clsfile("role", "student", "--name", "Ada Lovelace")
        try bob.clsfile("role", "student", "--name", "Bob Moses")
        return (teacher, ada, bob)
    }

    var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path, "CLSFILE_STORE": ""
        ]
    }

    var mode: DeveloperMode {
        get throws { try DeveloperMode.current(from: home.appendingPathComponent("config/clsfile/developer-mode.json")) }
    }

    /// The identity keys of a role, as `clsfile role` made them.
    func identity(_ role: DeveloperMode.Role) throws -> Identity {
        try Identity.read(from: Identity.url(for: role, dataHome: home.appendingPathComponent("data/clsfile")))
    }

    /// The store of a role. It waits for a clsfile that is writing it as long as a test would.
    func store(_ role: DeveloperMode.Role) -> CLSDataStore {
        CLSDataStore(
            storeURL: DeveloperMode.storeURL(for: role, dataHome: home.appendingPathComponent("data/clsfile")),
            configuration: .init(busyTimeout: 30))
    }

    @discardableResult
    func clsfile(
        _ arguments: String..., expecting status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ProcessResult {
        try clsfile(arguments: arguments, expecting: status, sourceLocation: sourceLocation)
    }

    @discardableResult
    func clsfile(
        arguments: [String], expecting status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ProcessResult {
        let result = try run(try builtExecutable("clsfile"), arguments, environment: environment)
        #expect(
            result.status == status, "clsfile \(arguments.joined(separator: " ")): \(result.errorOutput)",
            sourceLocation: sourceLocation)
        return result
    }

    /// Runs clsfile in a pseudo-terminal (through script(1)), typing `input` at its prompt.
    func clsfileInTerminal(_ arguments: String, typing input: String) throws -> ProcessResult {
        let command = "printf '%s\\n' '\(input)' | script -qec '\(try builtExecutable("clsfile").path) \(arguments)' /dev/null"
        return try run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: environment)
    }

    /// Opens a file with a stand-in editor that appends text and takes a little time.
    func edit(_ file: URL, appending text: String, seconds: Double = 1.1) throws {
        // Input at the start (the file opened for writing, a moment after the editor starts, once
        // `clsfile open` watches it) and at the end: the session's time runs between the two.
        let script = "sleep 0.3; : >> \"$0\"; sleep \(seconds); printf '%s\\n' '\(text)' >> \"$0\""
        try clsfile("open", "--no-pty", "--editor", "sh -c \"\(script)\"", file.path)
    }
}
