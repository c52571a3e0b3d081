internal import CTerminal
import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// The blocking loop of an editor session, run on a thread of its own: relays the terminal, turns
/// input and file changes into pulses, passes signals on, and returns when the editor ends.
struct SessionLoop: @unchecked Sendable {
    // `@unchecked Sendable`: the loop is handed to one thread and used only there; `pulses` is itself Sendable.
    let editor: EditorProcess
    /// The pseudo-terminal master, or -1 without a relay.
    let master: Int32
    /// The file to watch on disk when there is no relay.
    let watchedFile: [UInt8]?
    let pulses: PulseLog
    /// The read end of ``SignalRelay``'s pipe, installed before the editor started.
    let signals: Int32
    /// The desktop's input to the editor's windows (a GUI editor's typing, which neither the relay
    /// nor the file shows until a save); nil without a desktop.
    let desktop: DesktopActivity?

    /// Runs until the editor exits; returns its status as a shell reports it.
    func run() -> Int32 {
        let watcher = watchedFile.flatMap(FileWatcher.init(path:))
        defer {
            watcher?.stop()
            desktop?.stop()
        }
        var input: Int32 = master >= 0 ? STDIN_FILENO : -1
        var output = master
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let status = editor.exitStatus() {
                if output >= 0 { drain(output, &buffer) }
                return status
            }
            var descriptors = [input, output, signals, watcher?.descriptor ?? -1].map {
                pollfd(fd: $0, events: Int16(POLLIN), revents: 0)
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 250)
            if let inputAt = desktop?.poll() { pulses.pulse(at: inputAt) }
            guard ready > 0 else { continue }
            if descriptors[0].revents != 0 {
                let count = read(input, &buffer, buffer.count)
                if count > 0 {
                    writeAll(master, buffer[0..<count])
                    pulses.pulse(input: buffer[0..<count])
                } else {
                    input = -1
                }
            }
            if descriptors[1].revents != 0 {
                let count = read(output, &buffer, buffer.count)
                if count > 0 { writeAll(STDOUT_FILENO, buffer[0..<count]) } else { output = -1 }
            }
            if descriptors[2].revents != 0 {
                for number in SignalRelay.drain(signals) {
                    switch number {
                    case SIGWINCH where master >= 0:
                        var rows: UInt16 = 0, columns: UInt16 = 0
                        if clsfile_get_window_size(STDIN_FILENO, &rows, &columns) == 0 {
                            _ = clsfile_set_window_size(master, rows, columns)
                        }
                    case SIGTERM, SIGHUP:
                        editor.send(number)
                    default:
                        break
                    }
                }
            }
            if descriptors[3].revents != 0, watcher?.fileChanged() == true {
                pulses.pulse()
            }
        }
    }

    /// Copies what the editor printed last, until the terminal has nothing more.
    private func drain(_ descriptor: Int32, _ buffer: inout [UInt8]) {
        var ready = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        while poll(&ready, 1, 50) > 0 {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return }
            writeAll(STDOUT_FILENO, buffer[0..<count])
        }
    }

    private func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) {
        var remaining = bytes
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            remaining = remaining.dropFirst(written)
        }
    }
}
