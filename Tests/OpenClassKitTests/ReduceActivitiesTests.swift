import Foundation
import OpenClassKit
import Synchronization
import StoreTestSupport
import TestSupport
import Testing

/// `reduceActivities` reads the store ahead on one thread while the update runs on another, a
/// few batches of 256 activities apart: every activity must arrive once, in order, and an
/// update that fails must stop the reading and reach the caller.
struct ReduceActivitiesTests {
    /// More files than the reader may hold ahead (4 batches of 256), so it has to wait.
    private static let fileCount = 1_300

    private func storeWithManyFiles() async throws -> (Scratch, [URL]) {
        let scratch = try Scratch()
        let store = scratch.store()
        var files: [URL] = []
        for index in 0..<Self.fileCount {
            let file = try scratch.file(String(format: "f%04d.txt", index))
            let activity = try await store.fetchActivity(for: file)
            activity.progress = Double(index) / Double(Self.fileCount)
            files.append(file)
        }
        let first = try await store.fetchActivity(for: files[0])
        first.start(at: Date(timeIntervalSince1970: 1_736_758_800), continuingWithin: 0)
        first.stop(at: Date(timeIntervalSince1970: 1_736_758_800 + 90), idleTimeout: nil)
        try await store.save()
        return (scratch, files)
    }

    @Test func everyActivityArrivesOnceInTheOrderFilesWereFirstRecorded() async throws {
        let (scratch, files) = try await storeWithManyFiles()
        let read = try await scratch.store().reduceActivities(into: [(String, Double, Double)]()) { read, activity in
            read.append((activity.context.identifier, activity.progress, activity.recordedDuration()))
        }
        #expect(read.map(\.0) == files.map(\.path))
        #expect(read.enumerated().allSatisfy { abs($1.1 - Double($0) / Double(Self.fileCount)) < 1e-12 })
        #expect(read.first?.2 == 90)
        #expect(read.dropFirst().allSatisfy { $0.2 == 0 })
    }

    /// More reductions at once than Swift's pool has threads, each reader blocked while its
    /// worker lags: the workers are threads of their own, so every reduction finishes. (A worker
    /// started from a task once waited forever behind readers holding every pool thread.)
    @Test(.timeLimit(.minutes(1)))
    func moreReductionsAtOnceThanThreadsAllFinish() async throws {
        let (scratch, _) = try await storeWithManyFiles()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2) {
                let store = scratch.store()
                group.addTask {
                    try await store.reduceActivities(into: 0) { count, _ in
                        count += 1
                        if count % 100 == 0 { usleep(2_000) }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.count == 2 * ProcessInfo.processInfo.activeProcessorCount + 2)
        #expect(counts.allSatisfy { $0 == Self.fileCount })
    }

    private struct Refused: Error, Equatable {
        var at: Int
    }

    @Test func anUpdateThatThrowsStopsTheReadingAndItsErrorReachesTheCaller() async throws {
        let (scratch, files) = try await storeWithManyFiles()
        let store = scratch.store()
        let calls = Mutex(0)
        await #expect(throws: Refused(at: 300)) {
            _ = try await store.reduceActivities(into: 0) { count, _ in
                count += 1
                calls.withLock { $0 += 1 }
                if count == 300 { throw Refused(at: count) }
            }
        }
        #expect(calls.withLock { $0 } == 300)
        // The read ended: the same store still writes.
        let activity = try await store.fetchActivity(for: files[1])
        activity.progress = 1
        try await store.save()
        #expect(try await scratch.store().fetchActivity(for: files[1]).progress == 1)
    }

    @Test func aStoreThatCannotBeReadFailsTheReduceWithWhatIsWrong() async throws {
        let scratch = try Scratch()
        try Data(repeating: 0x41, count: 8192).write(to: scratch.storeURL)
        await #expect {
            _ = try await scratch.store().reduceActivities(into: 0) { count, _ in count += 1 }
        } throws: { error in
            (error as? CLSError)?.code == .databaseInaccessible && "\(error)".contains(scratch.storeURL.path)
        }
    }
}
