import ArgumentParser
import ClassServer
import Foundation

/// `--database URL`, else `DATABASE_URL`.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The PostgreSQL database, as postgres://USER:PASSWORD@HOST:5432/DATABASE (default: DATABASE_URL).",
        valueName: "url"))
    var database: String?

    /// The address given.
    /// - Throws: `ValidationError` when neither the option nor the variable gives one.
    func address() throws -> DatabaseAddress {
        guard let text = database ?? ProcessInfo.processInfo.environment["DATABASE_URL"], !text.isEmpty else {
            throw ValidationError("Give the database with --database URL or DATABASE_URL.")
        }
        return try DatabaseAddress(text)
    }
}
