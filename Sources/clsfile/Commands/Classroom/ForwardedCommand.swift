import ArgumentParser
import ForwardedCommands

/// The commands another program beside `clsfile` runs (see ``HelperProgram``): `serve`
/// (`clsfile-serve`), and `join`, `sync`, `status`, `leave`, `register` and `catalog`
/// (`clsfile-sync`). `EntryPoint` hands the calls over before ArgumentParser sees them, so none
/// of them runs here; their entries below describe them to `clsfile --help`, the manual pages
/// and the shell completions, with the names, help and options the programs that run them
/// declare (ForwardedCommands).
enum ForwardedCommand {
    /// `clsfile serve`: the teacher's view as web pages, served by `clsfile-serve`, so that the
    /// web server stays out of the program editor plugins start on every event.
    struct Serve: ParsableCommand {
        static let configuration = ServeArguments.configuration(commandName: "serve")
        @OptionGroup var arguments: ServeArguments
    }

    /// `clsfile join`.
    struct Join: ParsableCommand {
        static let configuration = JoinArguments.configuration
        @OptionGroup var arguments: JoinArguments
    }

    /// `clsfile sync`.
    struct Sync: ParsableCommand {
        static let configuration = SyncArguments.configuration
        @OptionGroup var arguments: SyncArguments
    }

    /// `clsfile status`.
    struct Status: ParsableCommand {
        static let configuration = StatusArguments.configuration
        @OptionGroup var arguments: StatusArguments
    }

    /// `clsfile leave`.
    struct Leave: ParsableCommand {
        static let configuration = LeaveArguments.configuration
        @OptionGroup var arguments: LeaveArguments
    }

    /// `clsfile register`.
    struct Register: ParsableCommand {
        static let configuration = RegisterArguments.configuration
        @OptionGroup var arguments: RegisterArguments
    }

    /// `clsfile catalog` and its subcommands.
    struct Catalog: ParsableCommand {
        static let configuration = CatalogArguments.configuration(
            subcommands: [Keygen.self, Publish.self, List.self, Delete.self, Token.self])

        /// `clsfile catalog keygen`.
        struct Keygen: ParsableCommand {
            static let configuration = CatalogArguments.Keygen.configuration
            @OptionGroup var arguments: CatalogArguments.Keygen
        }

        /// `clsfile catalog publish`.
        struct Publish: ParsableCommand {
            static let configuration = CatalogArguments.Publish.configuration
            @OptionGroup var arguments: CatalogArguments.Publish
        }

        /// `clsfile catalog list`.
        struct List: ParsableCommand {
            static let configuration = CatalogArguments.List.configuration
            @OptionGroup var arguments: CatalogArguments.List
        }

        /// `clsfile catalog delete`.
        struct Delete: ParsableCommand {
            static let configuration = CatalogArguments.Delete.configuration
            @OptionGroup var arguments: CatalogArguments.Delete
        }

        /// `clsfile catalog token`.
        struct Token: ParsableCommand {
            static let configuration = CatalogArguments.Token.configuration
            @OptionGroup var arguments: CatalogArguments.Token
        }
    }
}
