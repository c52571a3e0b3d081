import ArgumentParser

/// The options of a command another program runs, with its name and help: the program parses
/// them, and `clsfile` shows them in its help, manual pages and completions.
public protocol ForwardedArguments: ParsableArguments {
    /// The command's name, summary and discussion.
    static var configuration: CommandConfiguration { get }
}
