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

    typealias Join = Forwarded<JoinArguments>
    typealias Sync = Forwarded<SyncArguments>
    typealias Status = Forwarded<StatusArguments>
    typealias Leave = Forwarded<LeaveArguments>
    typealias Register = Forwarded<RegisterArguments>

    /// `clsfile catalog` and its subcommands.
    struct Catalog: ParsableCommand {
        static let configuration = CatalogArguments.configuration(
            subcommands: [Keygen.self, Publish.self, List.self, Delete.self, Token.self])

        typealias Keygen = Forwarded<CatalogArguments.Keygen>
        typealias Publish = Forwarded<CatalogArguments.Publish>
        typealias List = Forwarded<CatalogArguments.List>
        typealias Delete = Forwarded<CatalogArguments.Delete>
        typealias Token = Forwarded<CatalogArguments.Token>
    }

    /// The entry of one forwarded command: its name, help and options as the program that runs it
    /// declares them.
    struct Forwarded<Arguments: ForwardedArguments>: ParsableCommand {
        static var configuration: CommandConfiguration { Arguments.configuration }
        @OptionGroup var arguments: Arguments
    }
}
