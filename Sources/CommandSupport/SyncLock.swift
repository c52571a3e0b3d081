import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// The lock a sync of a store holds while it sends (`STORE.sync-lock` beside the store): a
/// background sync takes it, and a hook that finds it held starts none.
public final class SyncLock {
    private let descriptor: Int32

    /// Takes the lock of a store, without waiting; nil when another process holds it or it
    /// cannot be made (a folder that cannot be written: then no background sync runs).
    public init?(of storeURL: URL) {
        descriptor = open(storeURL.path + ".sync-lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
    }

    /// Whether no process holds the lock of a store now.
    public static func isFree(of storeURL: URL) -> Bool {
        SyncLock(of: storeURL) != nil
    }

    deinit { close(descriptor) }
}
