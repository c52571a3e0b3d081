import ArgumentParser
import Classroom
import Foundation

/// A class's report read from a class server by `clsfile-sync report`, which holds the HTTP
/// client: what `clsfile class-report --server` shows and `clsfile export --xapi --server` exports.
enum ServerReport {
    /// The report `clsfile-sync` reads from the server: it prints the JSON, and its refusals
    /// go straight to standard error.
    static func fetch(server: String, className: String?) throws -> ClassReport {
        let arguments = ["report", "--server", server] + (className.map { ["--class", $0] } ?? [])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: (ServeCommand.ownExecutable() as NSString).deletingLastPathComponent + "/clsfile-sync")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw ClassroomError(.fileAccess, "cannot run \(process.executableURL?.path ?? "clsfile-sync"): \(error.localizedDescription); reading a class server needs clsfile-sync installed beside clsfile (swift build makes it)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ExitCode(process.terminationStatus) }
        do {
            return try ClassReport.jsonDecoder().decode(ClassReport.self, from: data)
        } catch {
            throw ClassroomError(.malformedFile, "the class server's report cannot be read (\(JSONCoding.describe(error))); check that clsfile and the server are of the same version")
        }
    }

    /// Prints the address of the class's pages on the server, in this process's place.
    static func showLink(server: String, className: String?) throws -> Never {
        let arguments = ["report", "--server", server, "--link"] + (className.map { ["--class", $0] } ?? [])
        try ServeCommand.replaceProcess(with: "clsfile-sync", arguments, for: "class-report --server")
        throw ExitCode(69)
    }
}
