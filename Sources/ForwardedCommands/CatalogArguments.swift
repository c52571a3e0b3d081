import ArgumentParser

/// What `clsfile catalog keygen|publish|list|delete|token` and its subcommands take;
/// `clsfile-sync` runs them.
public enum CatalogArguments {
    /// The name, summary and discussion of `clsfile catalog`.
    /// - Parameter subcommands: The program's commands for keygen, publish, list, delete and token.
    /// - Returns: The configuration of the command that groups them.
    public static func configuration(subcommands: [any ParsableCommand.Type]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "catalog",
            abstract: "Publish a course manifest's contexts to a class server's catalog, list and delete them.",
            discussion: """
                A publisher makes a key pair once (keygen) and gives the public key to the class \
                server's administrator, who registers it for the team with a key id \
                (clsfile-server publisher add --team TEAM --kid KID --public-key KEY.pub). Each call \
                is signed with the private key; --environment development (the default) and \
                production are two separate catalogs: try content in development, then publish it \
                to production, which teachers assign from.
                """,
            subcommands: subcommands)
    }

    /// One of a server's two catalogs: ClassWire's `CatalogWire.Environment`, which this module
    /// cannot import (`clsfile` links this module, and not the wire format); CLITests checks
    /// that the two have the same cases.
    public enum Environment: String, CaseIterable, Sendable, ExpressibleByArgument {
        case development, production
    }

    /// The publisher's team, key id and private key.
    public struct Credentials: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("Your team, as the administrator registered it.", valueName: "team"))
        public var team: String

        @Option(name: .long, help: ArgumentHelp("Your key's id, as the administrator registered it.", valueName: "kid"))
        public var kid: String

        @Option(name: .long, help: ArgumentHelp("The private key file that keygen wrote.", valueName: "key.pem"))
        public var key: String

        public init() {}
    }

    /// The server, the publisher's credentials and the catalog.
    public struct Options: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The class server's address, such as https://class.example.org.", valueName: "url"))
        public var server: String

        @OptionGroup public var credentials: Credentials

        @Option(name: .long, help: ArgumentHelp("development or production.", valueName: "environment"))
        public var environment: Environment = .development

        /// The publisher's team.
        public var team: String { credentials.team }

        public init() {}
    }

    /// `clsfile catalog keygen [--out FILE]`.
    public struct Keygen: ForwardedArguments {
        /// Its name and summary.
        public static let configuration = CommandConfiguration(
            commandName: "keygen",
            abstract: "Make a publisher's key pair: FILE (private, readable only by you) and FILE.pub.")

        @Option(name: .long, help: ArgumentHelp("Where to write the private key.", valueName: "file"))
        public var out = "catalog-key.pem"

        public init() {}
    }

    /// `clsfile catalog publish MANIFEST`.
    public struct Publish: ForwardedArguments {
        /// Its name, summary and discussion.
        public static let configuration = CommandConfiguration(
            commandName: "publish",
            abstract: "Make the catalog equal to a course manifest: its contexts, parents first, then its thumbnails.",
            discussion: """
                Sends the contexts in requests of at most 200, parents before children, then each \
                context's thumbnail (an entry's "thumbnail": a PNG or JPEG of 330×330 pixels, \
                relative to the manifest), then deletes what the catalog holds beyond the \
                manifest. A request the server cannot take now is tried again with a growing \
                wait. Publishing the same manifest again changes nothing.
                """)

        @OptionGroup public var options: Options

        @Argument(help: ArgumentHelp("The course manifest (JSON), as clsfile course reads it.", valueName: "manifest"))
        public var manifest: String

        public init() {}
    }

    /// `clsfile catalog list [PATH]`.
    public struct List: ForwardedArguments {
        /// Its name and summary.
        public static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the catalog's contexts, parents first, or those under PATH.")

        @OptionGroup public var options: Options

        @Argument(help: ArgumentHelp("A context's identifier path, its identifiers joined by /.", valueName: "path"))
        public var path: String?

        public init() {}
    }

    /// `clsfile catalog delete PATH`.
    public struct Delete: ForwardedArguments {
        /// Its name and summary.
        public static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a context of the catalog and its descendants.")

        @OptionGroup public var options: Options

        @Argument(help: ArgumentHelp("The context's identifier path, its identifiers joined by /.", valueName: "path"))
        public var path: String

        public init() {}
    }

    /// `clsfile catalog token [--minutes N]`.
    public struct Token: ForwardedArguments {
        /// Its name and summary.
        public static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a token for the Catalog API, for calling it with another tool (curl -H \"Authorization: Bearer TOKEN\").")

        @OptionGroup public var credentials: Credentials

        @Option(name: .long, help: ArgumentHelp("How long it is good for: 10 to 30.", valueName: "minutes"))
        public var minutes = 30

        public init() {}

        public func validate() throws {
            guard (10...30).contains(minutes) else { throw ValidationError("--minutes is 10 to 30.") }
        }
    }
}
