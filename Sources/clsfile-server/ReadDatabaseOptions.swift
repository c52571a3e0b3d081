import ArgumentParser
import ClassServer
import Foundation

/// `--read-database URL`, else `READ_DATABASE_URL`: a streaming replica for teachers' reads.
struct ReadDatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("read-database"),
        help: ArgumentHelp(
            "A streaming replica of the database, which the teacher's pages and reports read from (default: READ_DATABASE_URL; none: everything from --database).",
            valueName: "url"))
    var readDatabase: String?

    /// The address given, or nil for none.
    /// - Throws: ``ServerError`` `.invalidAddress` for an address that does not parse.
    func address() throws -> DatabaseAddress? {
        guard let text = readDatabase ?? ProcessInfo.processInfo.environment["READ_DATABASE_URL"], !text.isEmpty else { return nil }
        return try DatabaseAddress(text)
    }
}
