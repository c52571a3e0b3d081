#if canImport(Glibc)
import Glibc
#endif

/// This process's arguments as the bytes it was given: Swift's `CommandLine.arguments` repairs
/// invalid UTF-8, and a file's name need not be UTF-8.
public enum ProcessArguments {
    /// The arguments after the program name, as bytes.
    public static var all: [[UInt8]] {
        (1..<Int(CommandLine.argc)).compactMap { index in CommandLine.unsafeArgv[index].map(bytes(of:)) }
    }

    /// The bytes of the argument that `CommandLine.arguments` gives as `argument`; nil when none does.
    public static func bytes(of argument: String) -> [UInt8]? {
        for index in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = bytes(of: pointer)
            if String(decoding: bytes, as: UTF8.self) == argument { return bytes }
        }
        return nil
    }

    private static func bytes(of pointer: UnsafeMutablePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }
}
