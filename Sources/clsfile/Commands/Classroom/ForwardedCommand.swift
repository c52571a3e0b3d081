import ArgumentParser

/// The commands another program beside `clsfile` runs: `serve` (`clsfile-serve`), and `join`,
/// `sync`, `status`, `leave`, `register` and `catalog` (`clsfile-sync`), whose web server and HTTP client stay out of the
/// program editor plugins start on every event. Their entries below give `clsfile --help` its
/// lines; `EntryPoint` hands the calls over before ArgumentParser sees them.
enum ForwardedCommand {
    /// The program, its arguments and the command's name for a call of a forwarded command
    /// (`clsfile help sync` too); nil for any other call.
    static func forwarding(_ arguments: [String]) -> (program: String, arguments: [String], command: String)? {
        var arguments = arguments
        var asksHelp = false
        if arguments.count == 2, arguments[0] == "help" {
            arguments = [arguments[1]]
            asksHelp = true
        }
        guard let command = arguments.first else { return nil }
        let rest = asksHelp ? ["--help"] : Array(arguments.dropFirst())
        switch command {
        case "serve": return ("clsfile-serve", rest, command)
        case "join", "sync", "status", "leave", "register", "catalog": return ("clsfile-sync", [command] + rest, command)
        default: return nil
        }
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
