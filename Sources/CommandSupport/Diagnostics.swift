import Foundation

/// What clsfile's programs tell people on standard error: one line each, after `clsfile: `, so
/// that a message reads the same from every command, and an editor plugin can show it as is.
public enum Diagnostics {
    /// What every line starts with.
    public static let prefix = "clsfile: "

    /// Writes a line on standard error.
    /// - Parameter text: What happened, on which path, and what to do.
    public static func warn(_ text: String) {
        FileHandle.standardError.write(Data((prefix + text + "\n").utf8))
    }
}
