import ArgumentParser
import ClassServer
import CommandSupport

/// `clsfile-server`: the class server's administration on PostgreSQL (run by ``ServerMain``).
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clsfile-server",
        abstract: "Administer the class server's PostgreSQL database.",
        discussion: """
            Every command takes the database as DATABASE_URL, in the form \
            postgres://USER:PASSWORD@HOST:5432/DATABASE (add ?sslmode=require to encrypt the \
            connection), or as --database URL without the password, which the command line would \
            show to every user of the machine (ps). Administration runs as the role that owns the schema; the server will run \
            as another role (--app-role), which row-level security holds to each caller's rows.

            Exit codes: 0 done (serve: stopped by SIGINT or SIGTERM); 64 a bad option; 65 a value refused (a name, a key, \
            an archive file that exists); 66 a teacher, student, class or key file that is not there; 69 a database that \
            cannot be reached or is newer than this program; 77 an app role that could read past row-level security, or \
            a role that may not do what an administrator's command does.
            """,
        subcommands: [
            MigrateCommand.self, ServeCommand.self, TeacherCommand.self, ClassCommand.self, StudentCommand.self,
            PublisherCommand.self, LTICommand.self, PruneCommand.self
        ])

    @OptionGroup var verboseOption: VerboseOption
}

/// The server's rows of the exit-code table (``CommandFailure``): a database address that does not
/// parse is a usage error, a value refused bad data, something named that is not there a missing
/// input, a role that could read past row-level security refused; what the database or a request
/// fails with, the server cannot run.
extension ServerError: CommandFailure {
    public var cause: (any Error)? { underlyingError }

    public static let exitCodes: [Code: Int32] = [
        .invalidAddress: 64, .invalidValue: 65, .notFound: 66, .unsafeRole: 77,
        .database: 69, .schema: 69, .unauthorized: 69, .tooLarge: 69, .forbidden: 69, .invalidEnvironment: 69,
        .tooManyContexts: 69, .parentNotFound: 69, .thumbnailNotReferenced: 69, .invalidThumbnail: 69,
        .alreadyAssigned: 69, .unknownAssignment: 69
    ]
}
