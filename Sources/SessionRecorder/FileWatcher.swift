import Foundation
import OpenClassKit

#if canImport(Glibc)
internal import Glibc
#endif

/// Tells when a file changes on disk, with inotify on its folder, so that editors that save by
/// writing a new file and renaming it are seen too.
struct FileWatcher {
    let descriptor: Int32
    private let watch: Int32
    private let name: [UInt8]

    /// Watches a file, its path given as the file system spells it; nil when inotify cannot be used.
    init?(path: [UInt8]) {
        let slash = path.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(path[..<$0]) } ?? [UInt8(ascii: ".")]
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        let watch = FileSystemPath.withCString(folder) { inotify_add_watch(fd, $0, mask) }
        guard watch >= 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
        self.watch = watch
        name = slash.map { Array(path[path.index(after: $0)...]) } ?? path
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

    /// Stops watching. Closing an inotify descriptor waits until the kernel has retired its watches
    /// (a delayed work item and an RCU grace period: 10 to 20 ms here, which was most of what
    /// `clsfile open` added to an editor). Removing the watch now starts that retirement at once,
    /// and the close, which waits for its end, runs on a thread of its own while the session is
    /// measured and saved.
    func stop() {
        inotify_rm_watch(descriptor, watch)
        let descriptor = self.descriptor
        Thread.detachNewThread { close(descriptor) }
    }
}
