#if canImport(Glibc)
import Glibc
#endif

/// The heaps glibc's allocator keeps for the threads of a long-lived process.
///
/// glibc gives the threads of a process up to eight heaps (arenas) a processor, each holding the
/// memory freed in it for reuse: a `clsfile hook --stdio` that served editors for two minutes of
/// heavy use held about 7 MB more in its heaps than in one (`Benchmarks/Soak`: 15 MB grown
/// against 8 MB, with the same events). The long-lived hooks, `--stdio` and the hook agent, record
/// one event at a time, so a second heap buys them nothing. It must be said before the threads
/// start: a thread keeps the heap it was given.
enum AllocatorArenas {
    /// Makes the threads of this process share one heap from now on.
    static func useOne() {
        #if canImport(Glibc)
        // `mallopt` is glibc's, and its header is not in the Glibc module: it is looked up.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        // M_ARENA_MAX in <malloc.h>.
        let arenaMaximum: Int32 = -8
        guard let mallopt = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(mallopt, to: Mallopt.self)(arenaMaximum, 1)
        #endif
    }
}
