import Foundation
import Testing

/// A program some tests need that a fresh machine may lack, and the Debian package that has it.
///
/// A test asks for it with ``require(sourceLocation:)``: on a person's machine a missing program
/// skips the test with the package to install, so README's `swift test --no-parallel` passes on a
/// fresh machine; under `CI=true` (`.ci/run` installs every package) a missing program fails the
/// test, so CI never skips one.
public struct Tool: Sendable, CustomStringConvertible {
    /// The names the program goes by, the usual one first.
    public let names: [String]
    /// The Debian package to install.
    public let package: String
    /// Folders to look in after `PATH`, for programs a package keeps off it.
    public let folders: @Sendable () -> [String]
    /// False for a file that is not a program (a library, a script another program loads).
    public let isProgram: Bool

    public init(_ names: String..., package: String, folders: @escaping @Sendable () -> [String] = { [] }) {
        self.names = names
        self.package = package
        self.folders = folders
        self.isProgram = true
    }

    /// A file a package installs that no test runs itself, at a fixed path.
    public init(file path: String, package: String) {
        let url = URL(fileURLWithPath: path)
        self.names = [url.lastPathComponent]
        self.package = package
        self.folders = { [url.deletingLastPathComponent().path] }
        self.isProgram = false
    }

    public static let vim = Tool("vim", package: "vim")
    public static let nvim = Tool("nvim", package: "neovim")
    public static let emacs = Tool("emacs", package: "emacs-nox")
    public static let tmux = Tool("tmux", package: "tmux")
    public static let node = Tool("node", "nodejs", package: "nodejs")
    public static let sqlite3 = Tool("sqlite3", package: "sqlite3")
    /// Which programs a process starts (`strace -f -e trace=execve`).
    public static let strace = Tool("strace", package: "strace")
    public static let openssl = Tool("openssl", package: "openssl")
    public static let chromium = Tool("chromium", "chromium-browser", "google-chrome", package: "chromium")
    /// The WebDriver of Debian's Chromium, through which the accessibility check drives it.
    public static let chromedriver = Tool("chromedriver", package: "chromium-driver")
    /// An X server without a screen, a window manager, a program that types into windows and one
    /// that reads their properties: the desktop of the GUI editor tests (``VirtualDesktop``).
    public static let xvfb = Tool("Xvfb", package: "xvfb")
    public static let openbox = Tool("openbox", package: "openbox")
    public static let xdotool = Tool("xdotool", package: "xdotool")
    public static let xprop = Tool("xprop", package: "x11-utils")
    public static let xclip = Tool("xclip", package: "xclip")
    public static let soffice = Tool("soffice", "libreoffice", package: "libreoffice-writer")
    public static let unopkg = Tool("unopkg", package: "libreoffice-common")
    /// LibreOffice's loader of Python-UNO components, which Python extensions need.
    public static let pythonUNO = Tool(
        file: "/usr/lib/libreoffice/program/pythonloader.py",
        package: "libreoffice-script-provider-python")
    /// PostgreSQL's server programs, which Debian keeps in /usr/lib/postgresql/VERSION/bin.
    public static let initdb = Tool("initdb", package: "postgresql") {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// The program that copies a running cluster to make a replica, in the same folder.
    public static let pgBasebackup = Tool("pg_basebackup", package: "postgresql-client") { initdb.folders() }
    /// Debian keeps nginx in /usr/sbin, which a person's PATH may lack.
    public static let nginx = Tool("nginx", package: "nginx") { ["/usr/sbin"] }

    public var description: String { names[0] }

    /// Where the program is on `PATH`, or nil when it is not installed.
    public var url: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for name in names {
            for folder in (isProgram ? path.split(separator: ":").map(String.init) : []) + folders() {
                let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
                if isProgram
                    ? FileManager.default.isExecutableFile(atPath: candidate.path)
                    : FileManager.default.fileExists(atPath: candidate.path)
                {
                    return candidate
                }
            }
        }
        return nil
    }

    /// The program's path, or its name when it is not installed (for a test that required it
    /// already).
    public var path: String { url?.path ?? names[0] }

    /// The program, for a test that cannot run without it.
    /// - Throws: When it is missing: a cancellation that skips the test with the package to install;
    ///   under `CI=true`, an error that fails it.
    public func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        if let url { return url }
        let advice = "\(self) is not installed: apt-get install -y \(package)"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            throw MissingTool(description: "\(advice) (CI must run every test; .ci/run installs it)")
        }
        try Test.cancel("skipped: \(advice)", sourceLocation: sourceLocation)
    }

    /// Requires several programs at once; see ``require(sourceLocation:)``.
    public static func require(_ tools: Tool..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        for tool in tools { _ = try tool.require(sourceLocation: sourceLocation) }
    }

    /// Why a test that needs a program failed under CI.
    public struct MissingTool: Error, CustomStringConvertible {
        public var description: String
    }
}
