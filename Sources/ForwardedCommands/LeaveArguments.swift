import ArgumentParser
import CommandSupport

/// What `clsfile leave [--class CLASS]` takes; `clsfile-sync` runs it.
public struct LeaveArguments: ForwardedArguments {
    /// Its name, summary and discussion.
    public static let configuration = CommandConfiguration(
        commandName: "leave",
        abstract: "Stop syncing to a class, or to the class server: forget it, and drop what waits to be sent.",
        discussion: """
            Without --class, leaves every class joined and forgets the server; with it, leaves \
            that class only (leaving the last one forgets the server). What the server already \
            has stays there (your teacher can remove it); your own store keeps all your work. \
            Operations not sent yet are dropped: run `clsfile sync` first to send them. \
            `clsfile join` starts again, sending all that class's assigned work.
            """)

    @OptionGroup public var storeOptions: StoreOptions

    @Option(
        name: .customLong("class"), help: ArgumentHelp("The class to leave, by name or id, as clsfile status shows it.", valueName: "class")
    )
    public var schoolClass: String?

    public init() {}
}
