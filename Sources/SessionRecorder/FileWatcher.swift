import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Tells when a file changes on disk, with inotify on its folder, so that editors that save by
/// writing a new file and renaming it are seen too.
struct FileWatcher {
    let descriptor: Int32
    private let name: [UInt8]

    /// Watches a file; nil when inotify cannot be used.
    init?(path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
        name = Array((path as NSString).lastPathComponent.utf8)
    }

    /// Reads waiting events; true when one concerns the file.
    func fileChanged() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var changed = false
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes {
                    Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                if nameBytes.elementsEqual(name) { changed = true }
                offset += header + length
            }
        }
    }

    func stop() {
        close(descriptor)
    }
}
