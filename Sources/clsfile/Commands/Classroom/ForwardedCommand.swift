import ArgumentParser

/// The commands another program beside `clsfile` runs (see ``HelperProgram``): `serve`
/// (`clsfile-serve`), and `join`, `sync`, `status`, `leave`, `register` and `catalog`
/// (`clsfile-sync`). Their entries below describe them to `clsfile --help`; `EntryPoint` hands
/// the calls over before ArgumentParser sees them, so none of them runs here.
enum ForwardedCommand {
    /// `clsfile serve`: the teacher's view as web pages, served by `clsfile-serve`, so that the
    /// web server stays out of the program editor plugins start on every event.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the teacher's view of the class as web pages (teacher role).",
            discussion: "Run `clsfile serve --help` for its options.")
        @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The options of clsfile serve.", valueName: "options"))
        var options: [String] = []
    }

    /// `clsfile join`.
    struct Join: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "join", abstract: "Join a class on a class server with its code (student role).",
            discussion: "Run `clsfile join --help` for its options.")
        @Argument(parsing: .captureForPassthrough) var options: [String] = []
    }

    /// `clsfile sync`.
    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync", abstract: "Send queued work on assigned documents to the class server (student role).",
            discussion: "Run `clsfile sync --help` for its options.")
        @Argument(parsing: .captureForPassthrough) var options: [String] = []
    }

    /// `clsfile status`.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show the class server, the classes joined, what waits to be sent, and the last sync.",
            discussion: "Run `clsfile status --help` for its options.")
        @Argument(parsing: .captureForPassthrough) var options: [String] = []
    }

    /// `clsfile leave`.
    struct Leave: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "leave", abstract: "Stop syncing to a class or the class server, dropping what waits to be sent.",
            discussion: "Run `clsfile leave --help` for its options.")
        @Argument(parsing: .captureForPassthrough) var options: [String] = []
    }

    /// `clsfile register`.
    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register", abstract: "Register your handouts' assignments with your class on the class server (teacher role).",
            discussion: "Run `clsfile register --help` for its options.")
        @Argument(parsing: .captureForPassthrough) var options: [String] = []
    }

    /// `clsfile catalog`.
    struct Catalog: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalog", abstract: "Publish a course's contexts to a class server's catalog (content tools).",
            discussion: "Run `clsfile catalog --help` for its subcommands.")
        @Argument(parsing: .captureForPassthrough) var options: [String] = []
    }
}
