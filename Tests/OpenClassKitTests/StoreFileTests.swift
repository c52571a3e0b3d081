import Foundation
import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct StoreFileTests {
    private func mode(of path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    /// A store holding one file's activity, then changed behind clsfile's back with `sqlite3`.
    private func storeWithOneActivity(thenRun sql: String) async throws -> (Scratch, URL) {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: file).progress = 0.5
        try await store.save()
        let changed = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, sql])
        #expect(changed.status == 0, "\(changed.errorOutput)")
        return (scratch, file)
    }

    @Test func aNewStoreIsPrivateToItsUser() async throws {
        let scratch = try Scratch()
        let storeURL = scratch.url.appendingPathComponent("deep/clsfile/store.sqlite")
        let store = CLSDataStore(storeURL: storeURL)
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.progress = 0.1
        try await store.save()
        #expect(mode(of: storeURL.deletingLastPathComponent().path) == 0o700)
        #expect(mode(of: storeURL.path) == 0o600)
        #expect(mode(of: storeURL.path + "-wal") == 0o600)
    }

    @Test func aCorruptStoreIsReportedAndLeftUntouched() async throws {
        let scratch = try Scratch()
        let junk = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        try junk.write(to: scratch.storeURL)
        let file = try scratch.file("essay.txt")
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: file) }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains(scratch.storeURL.path) == true)
        #expect(error?.message.contains("left untouched") == true)
        #expect(try Data(contentsOf: scratch.storeURL) == junk)
    }

    @Test func aDamagedStoreIsReportedAndLeftUntouched() async throws {
        let (scratch, file) = try await storeWithOneActivity(thenRun: "PRAGMA wal_checkpoint(TRUNCATE);")
        // Everything is in the main file now: overwrite its table pages but keep page 1.
        var bytes = try Data(contentsOf: scratch.storeURL)
        for index in 4096..<bytes.count { bytes[index] = 0xA5 }
        try bytes.write(to: scratch.storeURL)
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: file) }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains(scratch.storeURL.path) == true)
        #expect(try Data(contentsOf: scratch.storeURL) == bytes)
    }

    /// A damaged page of one table is found by the first statement that reads it: the work of
    /// the save is refused with the store's path, and nothing is written to the file.
    @Test func aDamagedTableIsReportedWhenReadAndNothingIsWritten() async throws {
        let (scratch, file) = try await storeWithOneActivity(thenRun: "PRAGMA wal_checkpoint(TRUNCATE);")
        let sqlite3 = try Tool.sqlite3.require()
        let answer = try run(
            sqlite3, [scratch.storeURL.path, "SELECT rootpage FROM sqlite_master WHERE name = 'time_span'; PRAGMA page_size;"])
        let numbers = answer.output.split(separator: "\n").compactMap { Int($0) }
        let (page, size) = (try #require(numbers.first), try #require(numbers.last))
        var bytes = try Data(contentsOf: scratch.storeURL)
        for index in (page - 1) * size..<page * size { bytes[index] = 0xA5 }
        try bytes.write(to: scratch.storeURL)
        let error = await clsError {
            let store = scratch.store()
            let activity = try await store.fetchActivity(for: file)
            activity.start()
            activity.stop()
            try await store.save()
        }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains("the store \(scratch.storeURL.path) is damaged") == true, "\(String(describing: error))")
        #expect(error?.message.contains("what failed was not written: try `sqlite3 \(scratch.storeURL.path) .recover`") == true)
        #expect(try Data(contentsOf: scratch.storeURL) == bytes)
        // Nor to its log: the checkpoint emptied it, and no transaction was committed to it since.
        let log = (try? Data(contentsOf: URL(fileURLWithPath: scratch.storeURL.path + "-wal"))) ?? Data()
        #expect(log.isEmpty, "\(log.count) bytes in the write-ahead log")
    }

    @Test func anotherProgramsDatabaseIsRefused() async throws {
        let scratch = try Scratch()
        let created = try run(
            try Tool.sqlite3.require(),
            [scratch.storeURL.path, "CREATE TABLE contacts(name TEXT); INSERT INTO contacts VALUES ('Ada');"])
        #expect(created.status == 0, "\(created.errorOutput)")
        let before = try Data(contentsOf: scratch.storeURL)
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: try scratch.file("essay.txt")) }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains("another program") == true)
        #expect(try Data(contentsOf: scratch.storeURL) == before)
        #expect(!FileManager.default.fileExists(atPath: scratch.storeURL.path + "-wal"))
    }

    @Test func aStoreFromANewerClsfileIsRefusedAndLeftUntouched() async throws {
        let (scratch, file) = try await storeWithOneActivity(
            thenRun: "PRAGMA user_version = 99; PRAGMA wal_checkpoint(TRUNCATE);")
        let before = try Data(contentsOf: scratch.storeURL)
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: file) }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains("schema version 99") == true)
        #expect(error?.message.contains("update the program that uses it") == true)
        #expect(try Data(contentsOf: scratch.storeURL) == before)
    }

    @Test func aStorePathThatIsADirectoryIsRefused() async throws {
        let scratch = try Scratch()
        let store = CLSDataStore(storeURL: scratch.url)
        let error = await clsError { _ = try await store.fetchActivity(for: try scratch.file("essay.txt")) }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains("\(scratch.url.path) is a directory") == true)
    }

    @Test func aStoreInAReadOnlyFolderIsRefusedWithItsPath() async throws {
        let scratch = try Scratch()
        // Root ignores permissions, so the attempt runs as an unprivileged user when the tests run as root.
        #expect(chmod(scratch.url.path, 0o755) == 0)
        let file = try scratch.file("essay.txt")
        let locked = scratch.url.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        #expect(chmod(locked.path, 0o555) == 0)
        let storePath = locked.appendingPathComponent("store.sqlite").path
        let user: String? = geteuid() == 0 ? "65534" : nil
        let result = try runWorker(["start", storePath, file.path], as: user)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("cannot create the store \(storePath)"))
        #expect(result.errorOutput.contains("Permission denied"))
        #expect(!FileManager.default.fileExists(atPath: storePath))
    }

    @Test func oneStoreGivesOneInstancePerFile() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        async let first = store.fetchActivity(for: file)
        async let second = store.fetchActivity(for: file)
        let (one, two) = try await (first, second)
        #expect(one === two)
        #expect(one.context.parent === store.mainAppContext)
        #expect(one.context.identifierPath == ["clsfile", file.path])
        #expect(one.context.type == .document)
    }

    @Test func changesFromManyTasksAreAllSaved() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let activity = try await store.fetchActivity(for: file)
                    activity.addAdditionalActivityItem(CLSQuantityItem(identifier: "item-\(index)", title: "Item"))
                    activity.addProgressRange(fromStart: Double(index) / 50, toEnd: Double(index + 1) / 50)
                    try await store.save()
                }
            }
            try await group.waitForAll()
        }
        let stored = try await scratch.store().fetchActivity(for: file)
        #expect(stored.additionalActivityItems.count == 50)
        #expect(stored.progress == 1)
    }

    @Test func aDroppedActivityKeepsItsUnsavedChanges() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: file).progress = 0.4
        try await store.save()
        #expect(abs(try await scratch.store().fetchActivity(for: file).progress - 0.4) < 1e-12)
    }
}
