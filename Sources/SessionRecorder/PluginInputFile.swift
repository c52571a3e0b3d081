import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// The file in which an editor plugin keeps its count of the session file's input while
/// `clsfile open` runs the editor (see ``EditorSession/sessionInputVariable``).
///
/// Made empty and private (0600) in the temporary folder before the editor starts, read when the
/// editor exits, and removed. An empty or unreadable file means that no plugin counted, and the
/// terminal relay's figures are used.
struct PluginInputFile: Sendable {
    /// The file's path.
    let path: String

    /// Makes the file; nil when the temporary folder cannot take it (the relay's count is then used).
    init?() {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(folder)/clsfile-input-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { return nil }
        close(descriptor)
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What the plugin wrote, checked; nil when it wrote nothing valid.
    func figures() -> SessionEvent.InputFigures? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty,
            let counted = try? JSONDecoder().decode(Counted.self, from: data)
        else { return nil }
        return try? SessionEvent.InputFigures.checked(
            typed: counted.typed ?? 0, pasted: counted.pasted ?? 0, moved: counted.moved,
            largestPaste: counted.largestPaste)
    }

    func remove() {
        unlink(path)
    }

    private struct Counted: Decodable {
        var typed: Int?
        var pasted: Int?
        var moved: Int?
        var largestPaste: Int?
    }
}
