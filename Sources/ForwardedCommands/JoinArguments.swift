import ArgumentParser
import CommandSupport

/// What `clsfile join URL --code CODE` takes; `clsfile-sync` runs it.
public struct JoinArguments: ForwardedArguments {
    /// Its name, summary and discussion.
    public static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join a class on a class server with the code your teacher gave, or the token of your LMS course.",
        discussion: """
            Registers this device's key (made with the student role) for the class, receives the \
            assignments the teacher made from the server's catalog (the work under each assigned \
            context reports to it), then sends the work already recorded on the documents that \
            class's teacher assigned you. From then on \
            every save of such a document queues its change for the class; `clsfile sync` sends \
            the queue, and hooks and `clsfile open` start a sync in the background. Join each of \
            your classes on the server: each gets only its own teacher's assignments. Joining a \
            class of another server leaves the classes of the previous one.

            When the class is a course of your school's LMS, open clsfile from the course there: \
            the page shows `clsfile join URL --lti TOKEN`, which ties this device to your LMS \
            account instead of a code. A student joins the course's class; a teacher (teacher \
            role) ties their clsfile to the class, then registers their handouts with \
            `clsfile register --server URL`.
            """)

    @OptionGroup public var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The class server's address, such as https://class.example.org.", valueName: "url"))
    public var url: String

    @Option(name: .long, help: ArgumentHelp("The class's join code.", valueName: "code"))
    public var code: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Instead of a code, the one-use token your course's page in the LMS showed (LTI): ties this device to your LMS account (student or teacher role).",
            valueName: "token"))
    public var lti: String?

    @Option(name: .long, help: ArgumentHelp("Your name as the teacher sees it; the student role's name by default.", valueName: "name"))
    public var name: String?

    public init() {}
}
