import ArgumentParser
import ClassServer
import Foundation

/// `--database URL`, else `DATABASE_URL`. A password goes in `DATABASE_URL` only: on the command
/// line every user of the machine would see it (`ps`).
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The PostgreSQL database, as postgres://USER@HOST:5432/DATABASE, without a password (default: DATABASE_URL, which may hold one).",
            valueName: "url"))
    var database: String?

    /// The address given.
    /// - Throws: `ValidationError` when neither the option nor the variable gives one, or the
    ///   option holds a password.
    func address() throws -> DatabaseAddress {
        if let database {
            let address = try DatabaseAddress(database)
            guard address.password == nil else {
                throw ValidationError(
                    "--database holds a password, which every user of this machine sees (ps): give the address in DATABASE_URL instead.")
            }
            return address
        }
        guard let text = ProcessInfo.processInfo.environment["DATABASE_URL"], !text.isEmpty else {
            throw ValidationError("Give the database with --database URL or DATABASE_URL.")
        }
        return try DatabaseAddress(text)
    }
}
