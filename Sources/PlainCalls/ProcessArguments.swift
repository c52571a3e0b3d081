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

    /// The bytes of each of `arguments`, looked up in `argv` in one pass, in order, as a command's
    /// positional arguments come (a lookup per argument scanned `argv` each time: `stats` of 20,000
    /// files took 6.4 s). One not found there is its UTF-8.
    public static func bytes(ofEach arguments: [String]) -> [[UInt8]] {
        var given = all[...]
        return arguments.map { argument in
            var rest = given
            while let next = rest.popFirst() {
                guard String(decoding: next, as: UTF8.self) == argument else { continue }
                given = rest
                return next
            }
            return Array(argument.utf8)
        }
    }

    private static func bytes(of pointer: UnsafeMutablePointer<CChar>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }
}
