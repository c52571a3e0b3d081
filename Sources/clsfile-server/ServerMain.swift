import ArgumentParser
import NIOCore
import NIOPosix

/// Runs ``ServerCommand`` with Swift concurrency's tasks on the event loops that carry the HTTP
/// and PostgreSQL connections, so that a request does not hop between two pools of threads at
/// every query it awaits.
@main
enum ServerMain {
    static func main() async {
        // On the main thread, before any other task runs: the only place it may be done.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await ServerCommand.main(nil)
    }
}
