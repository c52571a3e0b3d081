import ArgumentParser

/// `clsfile-server student forget`: what the administrator does to one student's data.
struct StudentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "student", abstract: "Act on one student's account.",
        subcommands: [Forget.self])
}
