import ArgumentParser
import ClassServer
import CommandSupport

/// `clsfile-server migrate`: makes or updates the schema, and grants the app role its rights.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Make or update the database's schema (run as its owner).",
        discussion: """
            Creates the schema clsfile with its tables and row-level security policies, or brings \
            an older one up to date, then grants the app role what the server needs. The app role \
            must exist (createuser --pwprompt clsfile_app) and must be neither the owner, nor a \
            superuser, nor BYPASSRLS. Safe to run again, and from two places at once.
            """)

    @OptionGroup var databaseOptions: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The role the server runs as.", valueName: "role"))
    var appRole = "clsfile_app"

    func run() async throws {
        try await reportingFailures {
            let address = try databaseOptions.address()
            let (from, to) = try await ServerDatabase.withDatabase(address, logger: .server) { try await $0.migrate(appRole: appRole) }
            print(
                from == to
                    ? "schema version \(to), up to date; \(appRole) granted"
                    : "schema version \(from) → \(to); \(appRole) granted")
        }
    }
}
