import Foundation
import OpenClassKit
import PlainCalls

/// Turns a file argument into a URL without losing bytes of names that are not UTF-8.
///
/// Swift's `CommandLine.arguments` repairs invalid UTF-8, so the raw bytes are looked up in `argv`.
enum FileArgument {
    /// The URL of a file argument of this process.
    static func url(for argument: String) -> URL {
        URL(fileSystemPathBytes: ProcessArguments.bytes(of: argument) ?? Array(argument.utf8))
    }

    /// A file argument as messages name it: its bytes as given, those that are not UTF-8 as `\xNN`
    /// (Swift's repaired string would show them all as one replacement character).
    static func displayName(of argument: String) -> String {
        FileSystemPath.display(ProcessArguments.bytes(of: argument) ?? Array(argument.utf8))
    }

    /// The URL of a file argument, its bytes looked up among `rawArguments` (another process's
    /// arguments, as the hook agent receives them).
    static func url(for argument: String, among rawArguments: [[UInt8]]) -> URL {
        URL(fileSystemPathBytes: rawArguments.first { String(decoding: $0, as: UTF8.self) == argument } ?? Array(argument.utf8))
    }
}
