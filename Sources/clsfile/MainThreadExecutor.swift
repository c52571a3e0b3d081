import Foundation

/// Runs a task that ends the process, and everything it awaits, on the calling thread.
///
/// A hook process records one event and exits, and with Swift's usual executors that work hops
/// between threads the runtime first has to start: one for the asynchronous `main`, one for the
/// store's actor, each handing over to the next. Given as the task's executor preference, this
/// executor also runs the code of default actors (SE-0417), so a call that finds the store free
/// stays on the main thread and starts no worker thread. (A busy store is waited for on GRDB's
/// queue, and the call resumes here.) Nothing run this way may need the main actor: the main
/// thread is in this executor's loop and would never serve it.
final class MainThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Guarded by `condition`: jobs are enqueued from wherever an awaited operation resumes (a
    // timer of `Task.sleep`, GRDB's queue when the store is busy).
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body`, which exits the process, on the calling thread.
    static func run(_ body: @escaping @Sendable () async -> Never) -> Never {
        let executor = MainThreadExecutor()
        Task(executorPreference: executor) { await body() }
        while true {
            executor.condition.lock()
            while executor.jobs.isEmpty { executor.condition.wait() }
            let job = executor.jobs.removeFirst()
            executor.condition.unlock()
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        }
    }
}
