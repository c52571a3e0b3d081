import Foundation
import StoreTestSupport
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The `clsfile` front: it answers a plain `stats` and a hook call its store's agent takes itself,
/// and runs `clsfile-main` in its place, with the same arguments, for everything else.
@Suite("The clsfile front")
struct FrontTests {
    /// Copies of the built front (named `name`) and, unless left out, of clsfile-main beside it.
    private static func programs(in scratch: Scratch, name: String = "clsfile", withMain: Bool = true) throws -> URL {
        let folder = scratch.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let front = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: try builtExecutable("clsfile"), to: front)
        if withMain {
            try FileManager.default.copyItem(at: try builtExecutable("clsfile-main"), to: folder.appendingPathComponent("clsfile-main"))
        }
        return front
    }

    /// An environment with a runtime folder of the scratch's own, so that agents are never shared.
    private static func environment(_ scratch: Scratch, agent: Bool = true) throws -> [String: String] {
        let runtime = scratch.url.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return ["XDG_RUNTIME_DIR": runtime.path, "CLSFILE_HOOK_AGENT": agent ? "on" : "off"]
    }

    @Test func withoutClsfileMainTheFrontStillCountsAndSaysWhatToInstallForTheRest() throws {
        let scratch = try Scratch()
        let front = try Self.programs(in: scratch, withMain: false)
        let essay = try scratch.file("essay.txt", "Three words here.\n")
        let counted = try run(front, ["stats", essay.path])
        #expect(counted.status == 0, "\(counted.errorOutput)")
        #expect(counted.output.contains("essay.txt"), "\(counted.output)")
        let environment = try Self.environment(scratch)
        for arguments in [["show", essay.path], ["hook", "open", essay.path, "--store", scratch.storeURL.path], ["--version"]] {
            let refused = try run(front, arguments, environment: environment)
            #expect(refused.status == 69, "\(arguments): \(refused.output) \(refused.errorOutput)")
            #expect(
                refused.errorOutput.contains("cannot run \(front.deletingLastPathComponent().path)/clsfile-main"), "\(refused.errorOutput)")
            #expect(refused.errorOutput.contains("Scripts/install"), "\(refused.errorOutput)")
        }
    }

    @Test func underAnotherNameTheFrontHandsEverythingToClsfileMainAsItWasGiven() throws {
        // Named otherwise, the front hands over from its Swift code, not before it starts.
        let scratch = try Scratch()
        for name in ["clsfile", "cf"] {
            let place = try Scratch()
            let front = try Self.programs(in: place, name: name)
            let version = try run(front, ["--version"])
            let mainVersion = try run(builtExecutable("clsfile-main"), ["--version"])
            #expect(version.status == 0 && version.output == mainVersion.output, "\(name): \(version.errorOutput)")
            // A name that is not UTF-8 reaches clsfile-main byte for byte.
            let folder = scratch.url.path + "/" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let bytes = Array((folder + "/caf").utf8) + [0xE9] + Array(".txt".utf8)
            let descriptor = open(bytes.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o600)
            try #require(descriptor >= 0)
            _ = "four words in it\n".withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
            let store = folder + "/store.sqlite"
            let environment = try Self.environment(place, agent: false)
            let argument = String(decoding: bytes, as: UTF8.self)
            let recorded = try runRaw(
                front, [Array("hook".utf8), Array("open".utf8), bytes, Array("--store".utf8), Array(store.utf8)], environment)
            #expect(recorded.status == 0, "\(name): \(recorded.errorOutput)")
            let shown = try runRaw(front, [Array("show".utf8), bytes, Array("--store".utf8), Array(store.utf8)], environment)
            #expect(shown.status == 0, "\(name) show \(argument): \(shown.errorOutput)")
            #expect(shown.output.contains("caf\\xE9.txt") && shown.output.contains("Word Count: 4"), "\(name): \(shown.output)")
        }
    }

    @Test func aHookCallTheAgentTakesStartsNoOtherProgramAndAnyOtherCallStartsClsfileMain() async throws {
        let strace = try Tool.strace.require()
        let scratch = try Scratch()
        let front = try Self.programs(in: scratch)
        let environment = try Self.environment(scratch)
        let essay = try scratch.file("essay.md", "One two three four five.\n")
        let store = scratch.storeURL.path
        // The first call of a store records its event (in clsfile-main) and starts the agent.
        let first = try run(front, ["hook", "open", essay.path, "--store", store], environment: environment)
        #expect(first.status == 0, "\(first.errorOutput)")
        let sockets = scratch.url.appendingPathComponent("runtime/clsfile")
        for _ in 0..<200
        where !((try? FileManager.default.contentsOfDirectory(atPath: sockets.path)) ?? []).contains(where: { $0.hasSuffix(".socket") }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        // Traced, a call the agent takes is the front alone; `show` is the front, then clsfile-main.
        func programsStarted(_ arguments: [String]) throws -> [String] {
            let log = scratch.url.appendingPathComponent("execve.log")
            let traced = try run(
                strace, ["-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-o", log.path, front.path] + arguments,
                environment: environment)
            #expect(traced.status == 0, "\(arguments): \(traced.errorOutput)")
            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter {
                $0.contains("execve(\"") && !$0.contains("= -1")
            }
            return lines.compactMap { line in line.split(separator: "\"", maxSplits: 2).dropFirst().first.map { String($0) } }
        }
        #expect(try programsStarted(["hook", "edit", essay.path, "--store", store]) == [front.path])
        #expect(try programsStarted(["hook", "save", essay.path, "--store", store]) == [front.path])
        #expect(
            try programsStarted(["show", essay.path, "--store", store]) == [
                front.path, front.deletingLastPathComponent().path + "/clsfile-main"
            ])
        let shown = try run(front, ["show", essay.path, "--store", store], environment: environment)
        #expect(shown.output.contains("Word Count: 5"), "\(shown.output)")
    }

    /// Runs a program with arguments given as bytes (a file name that is not UTF-8 stays so).
    private func runRaw(_ program: URL, _ arguments: [[UInt8]], _ environment: [String: String]) throws -> ProcessResult {
        let scratch = try Scratch()
        let script = scratch.url.appendingPathComponent("run.sh")
        // printf's octal escapes give the shell the exact bytes.
        func quoted(_ bytes: [UInt8]) -> String { "\"$(printf '" + bytes.map { String(format: "\\%03o", $0) }.joined() + "')\"" }
        try Data(("exec " + ([Array(program.path.utf8)] + arguments).map(quoted).joined(separator: " ") + "\n").utf8).write(to: script)
        return try run(URL(fileURLWithPath: "/bin/sh"), [script.path], environment: environment)
    }
}
