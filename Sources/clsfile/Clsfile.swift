import ArgumentParser
import CommandSupport

/// The `clsfile` command: parses arguments and prints; the work happens in the libraries.
/// ``EntryPoint`` starts it.
struct Clsfile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clsfile",
        abstract: "Record and report the time, progress and word count of work on files.",
        discussion: """
            Activities are kept in one SQLite store: --store PATH, else $CLSFILE_STORE, else the \
            store of the development-mode role (clsfile role: $XDG_DATA_HOME/clsfile/teacher/ or \
            student/store.sqlite), else $XDG_DATA_HOME/clsfile/store.sqlite \
            (~/.local/share/clsfile/store.sqlite).

            Exit codes (clsfile open exits with the editor's code once the editor ran): 0 success; \
            1 an unexpected failure; 64 a usage error, or a command for another role; 66 a file \
            that is missing or not a regular file (or whose folder is missing), or not assigned; 69 an editor that cannot be \
            started, or an address clsfile serve cannot listen on; 65 a document that cannot be \
            counted (unsupported, damaged, over a safety limit, or needing libmagic when it cannot \
            be loaded), or a handout or submission file that is malformed, edited, damaged or not \
            yours; 74 a store or spool that cannot be opened, read or written; 75 a store another process kept \
            locked when clsfile open ended (the session waits in the store's spool for the next call); \
            77 a device key the class server does not accept (join, sync and the other class-server commands).
            """,
        version: "0.1.0",
        groupedSubcommands: [
            CommandGroup(
                name: "Recording",
                subcommands: [
                    OpenCommand.self, HookCommand.self, ShowCommand.self, ReplayCommand.self, ListCommand.self, ReportCommand.self,
                    ForgetCommand.self, RoleCommand.self, SettingsCommand.self, ResetCommand.self
                ]),
            CommandGroup(name: "Student", subcommands: [AcceptCommand.self, DoneCommand.self, EvidenceCommand.self, SubmitCommand.self]),
            CommandGroup(
                name: "Teacher",
                subcommands: [
                    AssignCommand.self, AssignmentsCommand.self, CollectCommand.self, TrustKeyCommand.self, ClassReportCommand.self,
                    ExpireCommand.self, ExportCommand.self, ForwardedCommand.Serve.self
                ]),
            CommandGroup(
                name: "Class server",
                subcommands: [
                    ForwardedCommand.Join.self, ForwardedCommand.Sync.self, ForwardedCommand.Status.self, ForwardedCommand.Leave.self,
                    ForwardedCommand.Register.self
                ]),
            CommandGroup(name: "Content tools", subcommands: [StatsCommand.self, ContextsCommand.self, ForwardedCommand.Catalog.self])
        ]
    )

    @OptionGroup var verboseOption: VerboseOption
}
