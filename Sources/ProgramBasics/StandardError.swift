#if canImport(Glibc)
internal import Glibc
#endif

/// The lines clsfile's programs write on standard error: one a message, after `clsfile: `, its
/// control characters shown escaped (``TerminalText``), so that a message reads the same from
/// every program and an editor plugin can show it as it is.
public enum StandardError {
    /// What every line starts with.
    public static let prefix = "clsfile: "

    /// The line of a message: the prefix, the message escaped, a newline.
    public static func line(_ message: String) -> String {
        prefix + TerminalText.escaped(message) + "\n"
    }

    /// Writes bytes on standard error as they are, all of them unless it is closed.
    public static func write(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}
