/// The plainest form of a command line — `COMMAND ARGUMENT… [--name value | --name=value | --flag]`
/// — read without ArgumentParser.
///
/// Editors and tools start `clsfile hook` and `clsfile stats` once per event or file, and
/// ArgumentParser's reflection over the command tree costs about as much as the work itself. Those
/// commands read their usual form with this type (see ``HookCall`` and ``StatsCall``), with the same
/// conversions and checks; anything else — `--help`, an unknown or repeated option, a missing value
/// — gives nil, and ArgumentParser parses the call and reports what is wrong.
///
/// Plain arrays, not sets or dictionaries: in a static binary each generic type met for the first
/// time costs a scan of every protocol conformance.
public struct PlainArguments {
    /// The arguments that are not options, in order.
    public private(set) var positionals: [String] = []
    private var options: [(name: String, value: String)] = []
    private var flags: [String] = []

    /// Reads `arguments` (those after the program name) when they call `command`.
    /// - Parameters:
    ///   - valued: The options that take a value, each given at most once.
    ///   - flags: The options that take none, each given at most once.
    public init?(_ arguments: [String], command: String, valued: [String], flags allowedFlags: [String] = []) {
        guard arguments.first == command else { return nil }
        var index = arguments.startIndex + 1
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                positionals.append(argument)
                continue
            }
            if allowedFlags.contains(argument) {
                guard !flags.contains(argument) else { return nil }
                flags.append(argument)
                continue
            }
            var name = argument, value: String
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return nil }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty, valued.contains(name), self.value(of: name) == nil else { return nil }
            options.append((name, value))
        }
    }

    /// The value given to an option, or nil.
    public func value(of name: String) -> String? {
        options.first { $0.name == name }?.value
    }

    /// Whether a flag was given.
    public func has(_ flag: String) -> Bool {
        flags.contains(flag)
    }
}
