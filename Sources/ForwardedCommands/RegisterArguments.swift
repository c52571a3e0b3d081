import ArgumentParser
import CommandSupport

/// What `clsfile register --server URL` takes; `clsfile-sync` runs it.
public struct RegisterArguments: ForwardedArguments {
    /// Its name, summary and discussion.
    public static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register your handouts' assignments with your class on the class server (teacher role).",
        discussion: """
            The class server takes students' work only on the assignments a class has, and its \
            report shows each as its teacher registered it (title, due date, target, document), \
            never as a student's work says. `clsfile assign --server URL` registers each new \
            handout; this registers those made before: every assignment of yours for the class \
            (or without a class), or those named with --assignment. Registering again updates \
            them. Students' work on an assignment not registered yet waits on their machines and \
            goes with their next sync after it is.
            """)

    @OptionGroup public var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The class server's address.", valueName: "url"))
    public var server: String

    @Option(
        name: .customLong("class"), help: ArgumentHelp("The class, by name or id; needed when you teach more than one.", valueName: "class")
    )
    public var className: String?

    @Option(
        name: .customLong("assignment"),
        help: ArgumentHelp(
            "An assignment's id (clsfile assignments lists them); all of the class's by default.",
            valueName: "id"))
    public var identifiers: [String] = []

    public init() {}
}
