import Foundation
import Testing

/// axe-core's WCAG 2.1 AA rules and a keyboard check, run on pages in a real headless Chromium by
/// `Tests/Accessibility/axe_check.py` (selenium and axe-selenium-python from PyPI, in a virtual
/// environment of their own), with the current axe-core (``axeCoreVersion``).
///
/// Without chromedriver, Chromium or python3's venv the test is skipped saying what to install;
/// under `CI=true` it fails instead (see ``Tool``).
public enum AxeCheck {
    /// What the check found on one page.
    public struct Page: Decodable, Sendable {
        public var url: String
        public var violations: [Violation]
        /// What a keyboard user cannot do: an element they cannot reach, or one whose focus is not drawn.
        public var keyboard: [String]

        /// Whether nothing was found.
        public var passes: Bool { violations.isEmpty && keyboard.isEmpty }

        /// The violations and keyboard problems, a line each, for a test's failure message.
        public var report: String {
            let rules = violations.map { violation in
                "\(violation.id) (\(violation.impact ?? "?")): \(violation.help)\n"
                    + violation.nodes.map { "    \($0.target.joined(separator: " ")): \($0.html)\n      \($0.summary)" }
                    .joined(separator: "\n")
            }
            return ([url] + rules + keyboard.map { "keyboard: \($0)" }).joined(separator: "\n  ")
        }
    }

    /// A rule of axe-core that a page breaks, with the elements that break it.
    public struct Violation: Decodable, Sendable {
        public var id: String
        public var impact: String?
        public var help: String
        public var nodes: [Node]

        public struct Node: Decodable, Sendable {
            public var target: [String]
            public var html: String
            public var summary: String
        }
    }

    public struct CheckError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The folder of the checker and its requirements.
    static let folder = PythonPackages.packageRoot.appendingPathComponent("Tests/Accessibility")

    /// Checks pages, in one browser, in order.
    /// - Parameters:
    ///   - pages: URLs, or HTML files as `file:` URLs.
    ///   - folder: Where the checker keeps its output (`axe-check.out`, `axe-check.err`).
    /// - Returns: A result per page, in the order given.
    public static func check(_ pages: [String], in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Page] {
        try Tool.require(.chromium, .chromedriver, sourceLocation: sourceLocation)
        let python = try PythonPackages.python(
            named: "axe", requirements: Self.folder.appendingPathComponent("requirements.txt"), sourceLocation: sourceLocation)
        // CLSFILE_AXE_SCRIPT=FILE checks with another axe.min.js; else the current axe-core.
        let script = [
            "--axe-script",
            try ProcessInfo.processInfo.environment["CLSFILE_AXE_SCRIPT"]
                ?? currentAxeScript(python: python, sourceLocation: sourceLocation).path
        ]
        let process = try SpawnedProcess(
            python.path, [Self.folder.appendingPathComponent("axe_check.py").path] + script + pages, in: folder, name: "axe-check")
        guard let status = await process.wait(timeout: 120 + 30 * Double(pages.count)) else {
            throw CheckError(description: "axe_check.py did not finish: \(process.errorOutput.suffix(2000))")
        }
        guard status == 0 || status == 1 else {
            throw CheckError(description: "axe_check.py could not check the pages (exit \(status)): \(process.errorOutput.suffix(2000))")
        }
        struct Output: Decodable { var pages: [Page] }
        let output = try JSONDecoder().decode(Output.self, from: Data(process.output.utf8))
        guard output.pages.count == pages.count else {
            throw CheckError(description: "axe_check.py checked \(output.pages.count) of \(pages.count) pages")
        }
        return output.pages
    }

    /// The version of axe-core the pages are checked with, and the PyPI package that ships it.
    public static let axeCoreVersion = "4.12.1"
    static let axePackage = "axe-playwright-python==0.1.8"

    /// axe-core ``axeCoreVersion`` (axe-selenium-python bundles 3.1, which has no WCAG 2.1 rules
    /// and misses what 4.x finds, such as `link-in-text-block`), as the PyPI package
    /// axe-playwright-python ships its `axe.min.js`: downloaded once, without its dependencies
    /// (Playwright is not needed: the script is injected through Selenium), beside the checker's
    /// environment.
    static func currentAxeScript(python: URL, sourceLocation: SourceLocation) throws -> URL {
        let folder = PythonPackages.packageRoot.appendingPathComponent(".build/test-venvs/axe-core-\(axeCoreVersion)")
        let script = folder.appendingPathComponent("axe_playwright_python/axe.min.js")
        if FileManager.default.fileExists(atPath: script.path) { return script }
        let downloaded = try run(python, ["-m", "pip", "download", "-q", "--no-deps", "-d", folder.path, axePackage])
        let wheel = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.first { $0.hasSuffix(".whl") }
        guard downloaded.status == 0, let wheel else {
            try PythonPackages.unavailable(
                "pip could not download \(axePackage), which ships axe-core \(axeCoreVersion), into \(folder.path) (no network to PyPI?): "
                    + "\(downloaded.errorOutput.suffix(300)); or set CLSFILE_AXE_SCRIPT to an axe.min.js", sourceLocation)
        }
        let unpacked = try run(python, ["-m", "zipfile", "-e", folder.appendingPathComponent(wheel).path, folder.path])
        guard unpacked.status == 0, FileManager.default.fileExists(atPath: script.path) else {
            throw CheckError(
                description:
                    "\(folder.appendingPathComponent(wheel).path) holds no axe_playwright_python/axe.min.js (\(unpacked.errorOutput.suffix(300))): "
                    + "remove \(folder.path) and run the test again, or set CLSFILE_AXE_SCRIPT")
        }
        return script
    }

    /// Checks pages and expects of each no violation and no keyboard problem, naming what it found.
    public static func expectNoViolations(
        _ pages: [String], in folder: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for page in try await check(pages, in: folder, sourceLocation: sourceLocation) {
            #expect(page.passes, "\(page.report)", sourceLocation: sourceLocation)
        }
    }
}
