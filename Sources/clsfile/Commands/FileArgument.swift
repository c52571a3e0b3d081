import ContentDetectors
import Foundation
import OpenClassKit
import SystemPackage

/// Turns a file argument into a URL without losing bytes of names that are not UTF-8.
///
/// Swift's `CommandLine.arguments` repairs invalid UTF-8, so the raw bytes are looked up in `argv`.
enum FileArgument {
    /// The URL of a file argument of this process.
    static func url(for argument: String) -> URL {
        URL(fileSystemPathBytes: rawBytes(for: argument) ?? Array(argument.utf8))
    }

    /// The path of a file argument of this process, as given (relative or not), its bytes kept.
    static func path(for argument: String) -> FilePath {
        FilePath(fileSystemBytes: rawBytes(for: argument) ?? Array(argument.utf8))
    }

    /// A file argument as messages name it: its bytes as given, those that are not UTF-8 as `\xNN`
    /// (Swift's repaired string would show them all as one replacement character).
    static func displayName(of argument: String) -> String {
        FileSystemPath.display(rawBytes(for: argument) ?? Array(argument.utf8))
    }

    /// The URL of a file argument, its bytes looked up among `rawArguments` (another process's
    /// arguments, as the hook agent receives them).
    static func url(for argument: String, among rawArguments: [[UInt8]]) -> URL {
        URL(fileSystemPathBytes: rawArguments.first { String(decoding: $0, as: UTF8.self) == argument } ?? Array(argument.utf8))
    }

    /// This process's arguments after the program name, as bytes.
    static var processArguments: [[UInt8]] {
        (1..<Int(CommandLine.argc)).compactMap { index in CommandLine.unsafeArgv[index].map { bytes(of: $0) } }
    }

    private static func rawBytes(for argument: String) -> [UInt8]? {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = bytes(of: pointer)
            if String(decoding: bytes, as: UTF8.self) == argument { return bytes }
        }
        return nil
    }

    private static func bytes(of pointer: UnsafeMutablePointer<CChar>) -> [UInt8] {
        Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
    }
}
