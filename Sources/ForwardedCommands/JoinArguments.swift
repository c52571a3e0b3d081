import ArgumentParser
import CommandSupport

/// What `clsfile join URL --code CODE` takes; `clsfile-sync` runs it.
public struct JoinArguments: ForwardedArguments {
    /// Its name, summary and discussion.
    public static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a class on a class server with the code your teacher gave (student role).",
        discussion: """
            Registers this device's key (made with the student role) for the class, receives the \
            assignments the teacher made from the server's catalog (the work under each assigned \
            context reports to it), then sends the work already recorded on the documents that \
            class's teacher assigned you. From then on \
            every save of such a document queues its change for the class; `clsfile sync` sends \
            the queue, and hooks and `clsfile open` start a sync in the background. Join each of \
            your classes on the server: each gets only its own teacher's assignments. Joining a \
            class of another server leaves the classes of the previous one.
            """)

    @OptionGroup public var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The class server's address, such as https://class.example.org.", valueName: "url"))
    public var url: String

    @Option(name: .long, help: ArgumentHelp("The class's join code.", valueName: "code"))
    public var code: String

    @Option(name: .long, help: ArgumentHelp("Your name as the teacher sees it; the student role's name by default.", valueName: "name"))
    public var name: String?

    public init() {}
}
