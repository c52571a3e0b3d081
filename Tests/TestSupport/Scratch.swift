import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder for one test, removed when the test ends.
public final class Scratch: Sendable {
    public let url: URL

    public init() throws {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("clsfile-test-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw POSIXError(.EIO) }
        url = URL(fileURLWithPath: String(cString: made))
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes a file and returns its URL.
    @discardableResult
    public func file(_ name: String, _ text: String = "some words\n") throws -> URL {
        let url = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }
}
