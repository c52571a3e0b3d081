import Foundation
import Testing

/// Python packages from PyPI that a test runs (the LTI platform's `lti1p3platform`), installed
/// into a virtual environment of their own under `.build/test-venvs/NAME` the first time, and
/// again when the requirements file changes.
///
/// Like ``Tool``: on a person's machine without python3's venv module, or without a network to
/// reach PyPI, the test is skipped saying what to install; under `CI=true` it fails instead.
public enum PythonPackages {
    /// The Python of an environment with the packages of `requirements` installed.
    /// - Parameter name: The environment's folder name.
    public static func python(
        named name: String, requirements: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> URL {
        let python3 = try Tool("python3", package: "python3-venv").require(sourceLocation: sourceLocation)
        let wanted = try Data(contentsOf: requirements)
        let folder = packageRoot.appendingPathComponent(".build/test-venvs/\(name)")
        let python = folder.appendingPathComponent("bin/python")
        // The requirements installed, kept beside them: the same file, nothing to install.
        let marker = folder.appendingPathComponent("installed-requirements.txt")
        if (try? Data(contentsOf: marker)) == wanted { return python }
        try? FileManager.default.removeItem(at: folder)
        let made = try run(python3, ["-m", "venv", folder.path])
        guard made.status == 0 else {
            try unavailable(
                "python3 cannot make a virtual environment (\(made.errorOutput.prefix(200))): apt-get install -y python3-venv",
                sourceLocation)
        }
        let installed = try run(folder.appendingPathComponent("bin/pip"), ["install", "-q", "-r", requirements.path])
        guard installed.status == 0 else {
            try unavailable(
                "pip could not install \(requirements.lastPathComponent) from PyPI (no network?): \(installed.errorOutput.suffix(300))",
                sourceLocation)
        }
        try wanted.write(to: marker)
        return python
    }

    /// The package's folder: two above this file's.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Skips the test saying what to do, or under `CI=true` fails it.
    static func unavailable(_ advice: String, _ sourceLocation: SourceLocation) throws -> Never {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            throw Tool.MissingTool(description: "\(advice) (CI must run every test)")
        }
        try Test.cancel("skipped: \(advice)", sourceLocation: sourceLocation)
    }
}
