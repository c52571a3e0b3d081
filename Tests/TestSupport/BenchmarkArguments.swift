import Foundation

/// The options of a benchmark's command line (`--name VALUE`), and how it stops on a failure.
public struct BenchmarkArguments: Sendable {
    /// The benchmark's name, which its failures start with.
    public let program: String
    private let arguments: [String]

    public init(program: String, arguments: [String] = CommandLine.arguments) {
        self.program = program
        self.arguments = arguments
    }

    /// The value after `name`, if given.
    public func text(_ name: String) -> String? {
        arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }

    /// The number after `name`, or `value`.
    public func option(_ name: String, default value: Int) -> Int {
        text(name).flatMap { Int($0) } ?? value
    }

    /// Prints a failure and exits with status 1.
    public func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
        exit(1)
    }
}
