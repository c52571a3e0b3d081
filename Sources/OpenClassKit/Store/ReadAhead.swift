import Foundation
internal import NIOConcurrencyHelpers

/// Hands batches from the task that reads the store to a thread of its own that works on them,
/// so that reading and working run on two cores at once. At most `capacity` batches wait, so a
/// store of any size is worked through in bounded memory.
///
/// The reader blocks while the batches wait; the worker is a thread, never a task, so a blocked
/// reader cannot keep it from running, however few threads Swift's pool has.
final class ReadAhead<Element: Sendable>: Sendable {
    /// Thrown to the reader once the worker has stopped.
    struct Stopped: Error {}

    private struct State {
        var batches: [[Element]] = []
        var isFinished = false
        var failure: (any Error)?
        var isStopped = false
    }

    private let state = NIOLockedValueBox(State())
    /// Signalled once a batch, and once at the end.
    private let filled = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore

    init(capacity: Int) {
        // Made at 0 and raised: libdispatch traps when a semaphore goes while below the value it
        // was made with, as `room` is when the worker stops with batches still out.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { room.signal() }
    }

    /// Reader: hands a batch over, first waiting while `capacity` batches wait.
    /// - Throws: ``Stopped`` once the worker has stopped: stop reading.
    func send(_ batch: [Element]) throws {
        room.wait()
        let isStopped = state.withLockedValue { state in
            if !state.isStopped { state.batches.append(batch) }
            return state.isStopped
        }
        guard !isStopped else {
            room.signal()
            throw Stopped()
        }
        filled.signal()
    }

    /// Reader: there are no more batches; `error` is why reading ended early, if it did.
    func finish(throwing error: (any Error)?) {
        state.withLockedValue { state in
            state.isFinished = true
            state.failure = error
        }
        filled.signal()
    }

    /// Worker: the next batch, waiting for it; nil after the last.
    /// - Throws: What ended the reading early.
    func receive() throws -> [Element]? {
        filled.wait()
        let next = try state.withLockedValue { state -> [Element]? in
            if !state.batches.isEmpty { return state.batches.removeFirst() }
            if let failure = state.failure { throw failure }
            return nil
        }
        if next != nil { room.signal() }
        return next
    }

    /// Worker: it takes no more batches; a reader waiting for room wakes and stops.
    func stop() {
        state.withLockedValue { $0.isStopped = true }
        room.signal()
    }

    /// Starts `work` on a thread of its own, at once: not from a task, which a reader blocked
    /// on the only threads of Swift's pool would keep from ever running.
    /// - Returns: What gives the work's value once it has ended.
    static func startThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) -> ThreadOutcome<Value> {
        let outcome = ThreadOutcome<Value>()
        Thread { outcome.finish(Result(catching: work)) }.start()
        return outcome
    }
}

/// What a thread's work gave, awaited from a task.
final class ThreadOutcome<Value: Sendable>: Sendable {
    private let state = NIOLockedValueBox<(result: Result<Value, any Error>?, waiter: CheckedContinuation<Value, any Error>?)>((nil, nil))

    fileprivate func finish(_ result: Result<Value, any Error>) {
        let waiter = state.withLockedValue { state in
            state.result = result
            return state.waiter.take()
        }
        waiter?.resume(with: result)
    }

    /// The work's value, waiting for it.
    /// - Throws: What the work threw.
    var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result = state.withLockedValue { state in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }
}
