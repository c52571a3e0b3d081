import ArgumentParser
import Classroom
import Foundation

/// A class's report read from a class server by `clsfile-sync report`, which holds the HTTP
/// client: what `clsfile class-report --server` shows and `clsfile export --xapi --server` exports.
enum ServerReport {
    /// The report `clsfile-sync` reads from the server: it prints a ``ClassReport`` as
    /// `ClassReport.jsonEncoder()` writes it, and its refusals go straight to standard error.
    static func fetch(server: String, className: String?) throws -> ClassReport {
        let arguments = ["report", "--server", server] + (className.map { ["--class", $0] } ?? [])
        do {
            return try HelperProgram.sync.output(
                of: arguments, as: ClassReport.self, for: "reading a class server",
                decoder: ClassReport.jsonDecoder())
        } catch let error as DecodingError {
            throw ClassroomError(
                .malformedFile,
                "the class server's report cannot be read (\(JSONCoding.describe(error))); check that clsfile and the server are of the same version"
            )
        }
    }

    /// Prints the address of the class's pages on the server, in this process's place.
    static func showLink(server: String, className: String?) throws -> Never {
        let arguments = ["report", "--server", server, "--link"] + (className.map { ["--class", $0] } ?? [])
        try HelperProgram.sync.replaceProcess(with: arguments, for: "class-report --server")
    }
}
