import Foundation
import OpenClassKit

/// Turns a file argument into a URL without losing bytes of names that are not UTF-8.
///
/// Swift's `CommandLine.arguments` repairs invalid UTF-8, so the raw bytes are looked up in `argv`.
enum FileArgument {
    static func url(for argument: String) -> URL {
        URL(fileSystemPathBytes: rawBytes(for: argument) ?? Array(argument.utf8))
    }

    private static func rawBytes(for argument: String) -> [UInt8]? {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                    count: strlen(pointer)))
            if String(decoding: bytes, as: UTF8.self) == argument { return bytes }
        }
        return nil
    }
}
