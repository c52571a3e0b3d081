import Foundation
import Testing

/// Headless Chromium, as a person's browser sees the dashboard.
public enum Chromium {
    /// Chromium's executable: a test without it is skipped with the package to install, and
    /// fails under CI (see ``Tool``).
    public static func executable() throws -> String {
        try Tool.chromium.require().path
    }

    public struct ChromiumError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The DOM of a page after Chromium loaded it.
    public static func dumpDOM(_ url: String, in folder: URL) async throws -> String {
        let process = try await run(["--dump-dom", url], in: folder, name: "chromium-dom")
        return process.output
    }

    /// A screenshot of a page, as PNG bytes.
    public static func screenshot(_ url: String, to file: URL, width: Int = 1200, height: Int = 900, in folder: URL) async throws -> Data {
        _ = try await run(
            ["--screenshot=\(file.path)", "--window-size=\(width),\(height)", "--hide-scrollbars", url], in: folder, name: "chromium-shot")
        return try Data(contentsOf: file)
    }

    private static func run(_ arguments: [String], in folder: URL, name: String) async throws -> SpawnedProcess {
        let profile = folder.appendingPathComponent("chromium-profile")
        let process = try SpawnedProcess(
            try executable(),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--disable-dev-shm-usage", "--user-data-dir=\(profile.path)"
            ] + arguments, in: folder, name: name)
        guard let status = await process.wait(timeout: 120) else {
            throw ChromiumError(description: "chromium did not finish within 120 s: \(process.errorOutput.suffix(2000))")
        }
        guard status == 0 else {
            throw ChromiumError(description: "chromium exited with \(status): \(process.errorOutput.suffix(2000))")
        }
        return process
    }
}
