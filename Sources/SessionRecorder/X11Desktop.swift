import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// An X11 display read for ``DesktopActivity``: the input idle time from the XScreenSaver
/// extension, and the process of the focused window from its `_NET_WM_PID`.
///
/// libX11 and libXss are loaded with `dlopen` when a session first needs them, never linked: every
/// other `clsfile` process (hooks start one per editor event) would pay for loading them.
///
/// The focused window is the window manager's `_NET_ACTIVE_WINDOW` on the root window. Without a
/// window manager that sets it, it is the X input focus (or, with the focus following the pointer,
/// the top-level window under the pointer) and the windows above it up to the root; the first with
/// a `_NET_WM_PID` tells. A window without `_NET_WM_PID` (old Xt and Tk programs such as xmessage,
/// xedit or wish set none) has no known owner, and a program on another machine or in another
/// process namespace gives a process id that is not the editor's.
///
/// X errors (a window destroyed between two requests) are ignored rather than ending the process,
/// as Xlib's default handler would; a lost connection ends the polling, not `clsfile`.
final class X11Desktop: DesktopActivity.Probe {
    private typealias Window = UInt
    private typealias Atom = UInt
    private typealias ErrorHandler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias ExitHandler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

    /// The functions of libX11 and libXss this uses.
    private struct Library {
        let openDisplay: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
        let closeDisplay: @convention(c) (OpaquePointer?) -> Int32
        let defaultRootWindow: @convention(c) (OpaquePointer?) -> Window
        let internAtom: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Atom
        let getWindowProperty:
            @convention(c) (
                OpaquePointer?, Window, Atom, Int, Int, Int32, Atom, UnsafeMutablePointer<Atom>?, UnsafeMutablePointer<Int32>?,
                UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
            ) -> Int32
        let free: @convention(c) (UnsafeMutableRawPointer?) -> Int32
        let getInputFocus: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Int32>?) -> Int32
        let queryTree:
            @convention(c) (
                OpaquePointer?, Window, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Window>?,
                UnsafeMutablePointer<UnsafeMutablePointer<Window>?>?, UnsafeMutablePointer<UInt32>?
            ) -> Int32
        let queryPointer:
            @convention(c) (
                OpaquePointer?, Window, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Int32>?,
                UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UInt32>?
            ) -> Int32
        let setErrorHandler: @convention(c) (ErrorHandler?) -> ErrorHandler?
        /// libX11 1.7 and later: without it a lost connection ends the process.
        let setIOErrorExitHandler: (@convention(c) (OpaquePointer?, ExitHandler?, UnsafeMutableRawPointer?) -> Void)?
        let screenSaverQueryExtension: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32
        let screenSaverQueryInfo: @convention(c) (OpaquePointer?, Window, UnsafeMutableRawPointer?) -> Int32

        /// Loads the libraries; nil when either is missing or lacks a function.
        static func load() -> Library? {
            guard let x11 = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL),
                let xss = dlopen("libXss.so.1", RTLD_NOW | RTLD_LOCAL)
            else { return nil }
            func function<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) -> T? {
                dlsym(library, name).map { unsafeBitCast($0, to: type) }
            }
            guard let openDisplay = function(x11, "XOpenDisplay", as: (@convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?).self),
                let closeDisplay = function(x11, "XCloseDisplay", as: (@convention(c) (OpaquePointer?) -> Int32).self),
                let defaultRootWindow = function(x11, "XDefaultRootWindow", as: (@convention(c) (OpaquePointer?) -> Window).self),
                let internAtom = function(
                    x11, "XInternAtom", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Atom).self),
                let getWindowProperty = function(
                    x11, "XGetWindowProperty",
                    as: (@convention(c) (
                        OpaquePointer?, Window, Atom, Int, Int, Int32, Atom, UnsafeMutablePointer<Atom>?, UnsafeMutablePointer<Int32>?,
                        UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
                    ) -> Int32).self),
                let free = function(x11, "XFree", as: (@convention(c) (UnsafeMutableRawPointer?) -> Int32).self),
                let getInputFocus = function(
                    x11, "XGetInputFocus",
                    as: (@convention(c) (
                        OpaquePointer?, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Int32>?
                    ) -> Int32).self),
                let queryTree = function(
                    x11, "XQueryTree",
                    as: (@convention(c) (
                        OpaquePointer?, Window, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Window>?,
                        UnsafeMutablePointer<UnsafeMutablePointer<Window>?>?, UnsafeMutablePointer<UInt32>?
                    ) -> Int32).self),
                let queryPointer = function(
                    x11, "XQueryPointer",
                    as: (@convention(c) (
                        OpaquePointer?, Window, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Window>?, UnsafeMutablePointer<Int32>?,
                        UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
                        UnsafeMutablePointer<UInt32>?
                    ) -> Int32).self),
                let setErrorHandler = function(x11, "XSetErrorHandler", as: (@convention(c) (ErrorHandler?) -> ErrorHandler?).self),
                let screenSaverQueryExtension = function(
                    xss, "XScreenSaverQueryExtension",
                    as: (@convention(c) (
                        OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?
                    ) -> Int32).self),
                let screenSaverQueryInfo = function(
                    xss, "XScreenSaverQueryInfo",
                    as: (@convention(c) (
                        OpaquePointer?, Window, UnsafeMutableRawPointer?
                    ) -> Int32).self)
            else { return nil }
            return Library(
                openDisplay: openDisplay, closeDisplay: closeDisplay, defaultRootWindow: defaultRootWindow,
                internAtom: internAtom, getWindowProperty: getWindowProperty, free: free, getInputFocus: getInputFocus,
                queryTree: queryTree, queryPointer: queryPointer, setErrorHandler: setErrorHandler,
                setIOErrorExitHandler: function(
                    x11, "XSetIOErrorExitHandler",
                    as: (@convention(c) (
                        OpaquePointer?, ExitHandler?, UnsafeMutableRawPointer?
                    ) -> Void).self),
                screenSaverQueryExtension: screenSaverQueryExtension, screenSaverQueryInfo: screenSaverQueryInfo)
        }
    }

    /// `XScreenSaverInfo`: window (unsigned long), state and kind (int), til_or_since, idle and
    /// eventMask (unsigned long); idle is in milliseconds.
    private static let idleOffset: Int = {
        let long = MemoryLayout<UInt>.size
        return (long + 2 * MemoryLayout<Int32>.size + long - 1) / long * long + long
    }()
    private static let infoSize = 6 * MemoryLayout<UInt>.size

    private static let windowType: Atom = 33 // XA_WINDOW
    private static let cardinalType: Atom = 6 // XA_CARDINAL
    private static let pointerRoot: Window = 1

    private let library: Library
    private let display: OpaquePointer
    private let root: Window
    /// 0 when the window manager never made the atom: no window manager that tells the active window.
    private let activeWindowAtom: Atom
    private let pidAtom: Atom
    private let info: UnsafeMutableRawPointer
    /// Set to 1 by the I/O error exit handler when the connection is lost.
    private let lost: UnsafeMutablePointer<Int32>

    /// Connects to an X display.
    /// - Parameter display: The display's name, as in `DISPLAY`.
    /// - Returns: nil when the libraries are missing, the display cannot be opened, or it lacks the
    ///   XScreenSaver extension.
    init?(display name: String) {
        guard let library = Library.load() else { return nil }
        // A BadWindow from a window closed while being read must not end clsfile (Xlib's default
        // handler exits); the request's failure is seen in its status.
        _ = library.setErrorHandler { _, _ in 0 }
        guard let display = name.withCString({ library.openDisplay($0) }) else { return nil }
        var eventBase: Int32 = 0, errorBase: Int32 = 0
        guard library.screenSaverQueryExtension(display, &eventBase, &errorBase) != 0 else {
            _ = library.closeDisplay(display)
            return nil
        }
        lost = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        lost.initialize(to: 0)
        // With libX11 1.7 and later a lost connection calls this instead of exit(), and every
        // later request on the display fails.
        library.setIOErrorExitHandler?(display, { _, flag in flag?.storeBytes(of: 1, as: Int32.self) }, UnsafeMutableRawPointer(lost))
        self.library = library
        self.display = display
        root = library.defaultRootWindow(display)
        activeWindowAtom = library.internAtom(display, "_NET_ACTIVE_WINDOW", 1)
        pidAtom = library.internAtom(display, "_NET_WM_PID", 0)
        info = UnsafeMutableRawPointer.allocate(byteCount: Self.infoSize, alignment: MemoryLayout<UInt>.alignment)
        info.initializeMemory(as: UInt8.self, repeating: 0, count: Self.infoSize)
    }

    deinit {
        info.deallocate()
        lost.deallocate()
    }

    func idleTime() -> TimeInterval? {
        guard lost.pointee == 0, library.screenSaverQueryInfo(display, root, info) != 0, lost.pointee == 0 else { return nil }
        return TimeInterval(info.loadUnaligned(fromByteOffset: Self.idleOffset, as: UInt.self)) / 1000
    }

    func focusedProcess() -> pid_t? {
        guard lost.pointee == 0 else { return nil }
        if activeWindowAtom != 0, let active = cardinal(activeWindowAtom, of: root, type: Self.windowType) {
            // A window manager that names the active window: 0 when none is active.
            return active == 0 ? nil : cardinal(pidAtom, of: active, type: Self.cardinalType).flatMap { pid_t(exactly: $0) }
        }
        var focus: Window = 0
        var revert: Int32 = 0
        _ = library.getInputFocus(display, &focus, &revert)
        guard focus != 0 else { return nil }
        if focus == Self.pointerRoot {
            var rootReturn: Window = 0, child: Window = 0, x: Int32 = 0, y: Int32 = 0, windowX: Int32 = 0, windowY: Int32 = 0
            var mask: UInt32 = 0
            guard library.queryPointer(display, root, &rootReturn, &child, &x, &y, &windowX, &windowY, &mask) != 0,
                child != 0
            else { return nil }
            focus = child
        }
        // From the focused window up to the root: the first with a process id tells.
        var window = focus
        for _ in 0..<32 {
            guard window != 0, window != root, lost.pointee == 0 else { return nil }
            if let pid = cardinal(pidAtom, of: window, type: Self.cardinalType) { return pid_t(exactly: pid) }
            var rootReturn: Window = 0, parent: Window = 0
            var children: UnsafeMutablePointer<Window>?
            var count: UInt32 = 0
            guard library.queryTree(display, window, &rootReturn, &parent, &children, &count) != 0 else { return nil }
            if let children { _ = library.free(children) }
            window = parent
        }
        return nil
    }

    func close() {
        // After a lost connection Xlib has already torn it down as far as it can.
        if lost.pointee == 0 { _ = library.closeDisplay(display) }
    }

    /// The first 32-bit item of a window's property of a type: a window id or a number.
    private func cardinal(_ property: Atom, of window: Window, type: Atom) -> UInt? {
        var actualType: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, remaining: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let status = library.getWindowProperty(
            display, window, property, 0, 1, 0, type,
            &actualType, &format, &count, &remaining, &data)
        defer { if let data { _ = library.free(data) } }
        guard status == 0, lost.pointee == 0, actualType == type, format == 32, count >= 1, let data else { return nil }
        // Format 32 items are C longs in Xlib's buffer, whatever the size of a long.
        return UnsafeRawPointer(data).loadUnaligned(as: UInt.self)
    }
}
