import ArgumentParser
import CommandSupport

/// What `clsfile serve` takes; `clsfile-serve` runs it.
public struct ServeArguments: ParsableArguments {
    /// The environment variable that may hold the token.
    public static let tokenVariable = "CLSFILE_DASHBOARD_TOKEN"

    /// The fewest characters a token has: ClassDashboard's `AccessToken.minimumLength`, which this
    /// module cannot import (`clsfile` links this module, and not the web server); CLITests
    /// checks that the two agree.
    public static let minimumTokenLength = 16

    /// Its summary and discussion, under the name the program that runs it is called by.
    /// - Parameter commandName: `serve` in `clsfile`, `clsfile serve` in `clsfile-serve`.
    /// - Returns: Its configuration.
    public static func configuration(commandName: String) -> CommandConfiguration {
        CommandConfiguration(
            commandName: commandName,
            abstract: "Serve the teacher's view of the class as web pages (teacher role).",
            discussion: """
                Pages: / (every assignment with its average time, average primary item, average progress \
                and how many are done), /assignments/ID (a row per student), \
                /assignments/ID/students/STUDENT (every item and session of one student's work), and \
                /api/class-report.json. Primary items of different kinds are averaged apart, with a \
                warning. Every request reads the store afresh: reload to see newly collected work.

                Listens on 127.0.0.1 unless --host says otherwise. On an address other than loopback a \
                token is required: one is read from the file --token-file names, else from the \
                environment variable \(tokenVariable), else a random one is made and printed; \
                never from the command line, where every user of the machine sees it (ps). With a token \
                in force, every request must carry it as Authorization: Bearer TOKEN or ?token=TOKEN, \
                else it gets 401. Prints the address to open when it listens (with the real port when \
                --port is 0); Ctrl-C (SIGINT) or SIGTERM stops it. A connection that sends nothing for \
                --idle-timeout seconds (30) while no request of it is answered, or whose request body \
                has not all arrived --body-timeout seconds (60) after its head, is closed.

                Exit codes: 0 stopped by a signal; 64 not in the teacher role, or a bad option; 66 \
                development-mode settings that cannot be read; 69 an address that cannot be listened on \
                (in use, not this machine's); 74 a store that cannot be opened or read.
                """)
    }

    @OptionGroup public var storeOptions: StoreOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The address to listen on. Anything but loopback (127.0.0.1, ::1, localhost) needs a token.", valueName: "address"))
    public var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    public var port = 8765

    @Option(
        name: .customLong("token-file"),
        help: ArgumentHelp(
            "A file holding the token every request must carry (at least \(Self.minimumTokenLength) letters, digits, '-', '_', '.' or '~'; readable by you alone). Default: \(Self.tokenVariable), else none on loopback and a random one elsewhere.",
            valueName: "path"))
    public var tokenFile: String?

    /// Refused: a token on the command line is seen by every user of the machine.
    @Option(name: .long, help: ArgumentHelp(visibility: .hidden))
    public var token: String?

    @OptionGroup public var timeoutOptions: TimeoutOptions

    public init() {}

    public func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535 (0 picks a free one).") }
        guard token == nil else {
            throw ValidationError(
                "--token shows the token to every user of this machine (ps): put it in a file readable by you alone and give --token-file PATH, or set \(Self.tokenVariable)."
            )
        }
    }
}
