import ArgumentParser

/// `--verbose`: a failure shows what failed underneath its message (``CommandFailure/cause``),
/// such as the system's or the database's own error.
///
/// Each program's root command includes it, and every command of the program takes it:
/// ArgumentParser reads a root command's options wherever they stand, so `clsfile list
/// --verbose` is `clsfile --verbose list`.
///
/// ```swift
/// struct Tool: AsyncParsableCommand {
///     @OptionGroup var verboseOption: VerboseOption
/// }
/// ```
public struct VerboseOption: ParsableArguments {
    @Flag(name: .customLong("verbose"), help: "On a failure, print what failed underneath too (any command).")
    public var isVerbose = false

    public init() {}

    /// Keeps the choice for ``reportingFailures(_:)``: the root command is parsed, but the
    /// command that runs is the subcommand, which does not hold this option.
    public func validate() throws {
        Diagnostics.isVerbose = isVerbose
    }
}
