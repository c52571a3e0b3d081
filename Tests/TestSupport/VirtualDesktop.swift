import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private X11 desktop for one test: Xvfb on a display number it picks itself, with openbox as
/// the window manager (bare Xvfb has none, so `_NET_ACTIVE_WINDOW` is never set and
/// `xdotool windowactivate` fails). Every program on it ends when the test drops it: the server's
/// end closes their connections.
///
/// Requires ``Tool/xvfb``, ``Tool/openbox``, ``Tool/xdotool`` and ``Tool/xprop``.
public final class VirtualDesktop: @unchecked Sendable {
    // @unchecked: the processes are only used from the test that owns the desktop, one call at a time.
    private let server: SpawnedProcess
    private let windowManager: SpawnedProcess
    private let folder: URL
    /// The display's name, such as `:93`, for `DISPLAY`.
    public let display: String

    /// Starts the server and the window manager and waits until the window manager runs.
    /// - Parameter folder: Where the server's and the window manager's output go.
    public init(logsIn folder: URL) throws {
        self.folder = folder
        // -displayfd 1: the server takes a free display number and writes it to standard output.
        server = try SpawnedProcess(
            Tool.xvfb.path, ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            in: folder, name: "xvfb")
        var number: String?
        let deadline = Date().addingTimeInterval(20)
        while number == nil, Date() < deadline {
            let output = server.output
            if output.hasSuffix("\n"), let value = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) {
                number = "\(value)"
            } else {
                usleep(50_000)
            }
        }
        guard let number else {
            throw Failure(description: "Xvfb gave no display number in 20 s: \(server.errorOutput)")
        }
        display = ":\(number)"
        windowManager = try SpawnedProcess(
            Tool.openbox.path, ["--sm-disable"], environment: ["DISPLAY": display],
            in: folder, name: "openbox")
        while Date() < deadline {
            if run(Tool.xprop.path, ["-root", "_NET_SUPPORTING_WM_CHECK"]).output.contains("window id") { return }
            usleep(100_000)
        }
        throw Failure(description: "openbox did not start on \(display) in 20 s: \(windowManager.errorOutput)")
    }

    deinit {
        windowManager.signal(SIGTERM)
        server.signal(SIGTERM)
        windowManager.waitBlocking(timeout: 5)
        server.waitBlocking(timeout: 5)
    }

    /// Runs a program on the display and waits for it (at most `timeout` seconds).
    @discardableResult
    public func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval = 30
    ) -> ProcessResult {
        runBounded(
            executable, arguments, environment: environment.merging(["DISPLAY": display]) { $1 },
            timeout: timeout, capturingIn: folder)
    }

    /// Runs xdotool on the display.
    @discardableResult
    public func xdotool(_ arguments: String...) -> ProcessResult {
        xdotool(arguments)
    }

    /// Runs xdotool on the display, waiting at most `timeout` seconds (a `search --sync` waits for its window).
    @discardableResult
    public func xdotool(_ arguments: [String], timeout: TimeInterval = 30) -> ProcessResult {
        run(Tool.xdotool.path, arguments, timeout: timeout)
    }

    /// The first window whose name matches a pattern, once one exists.
    /// - Returns: Its id, or nil when none appeared within the time.
    public func window(named pattern: String, within seconds: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let id = xdotool("search", "--name", pattern).output.split(separator: "\n").first { return String(id) }
            usleep(250_000)
        }
        return nil
    }

    /// Why the desktop could not start.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
