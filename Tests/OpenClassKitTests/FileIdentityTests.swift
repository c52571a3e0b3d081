import Foundation
import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct FileIdentityTests {
    @Test func everyAliasOfOneFileReachesOneActivity() async throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("My Essays é")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("essay one.txt")
        try Data("words".utf8).write(to: file)
        let link = scratch.url.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let folderLink = scratch.url.appendingPathComponent("essays")
        try FileManager.default.createSymbolicLink(at: folderLink, withDestinationURL: folder)

        let aliases: [URL] = [
            file,
            URL(fileURLWithPath: "My Essays é/essay one.txt", relativeTo: scratch.url),
            URL(fileURLWithPath: scratch.url.path + "/My Essays é/./../My Essays é/essay one.txt"),
            link,
            folderLink.appendingPathComponent("essay one.txt"),
            try #require(URL(string: "file://" + scratch.url.path + "/My%20Essays%20%C3%A9/essay%20one.txt"))
        ]
        let store = scratch.store()
        let first = try await store.fetchActivity(for: file)
        for alias in aliases {
            let activity = try await store.fetchActivity(for: alias)
            #expect(activity === first, "alias \(alias.absoluteString) reached another activity")
        }
        #expect(first.context.fileURL?.path == file.resolvingSymlinksInPath().path)

        first.progress = 0.25
        try await store.save()
        let other = scratch.store()
        for alias in aliases {
            #expect(try await other.fetchActivity(for: alias).progress == 0.25)
        }
        #expect(try await other.allActivities().count == 1)
    }

    @Test func namesThatAreNotUTF8AreKeptAsBytes() async throws {
        let scratch = try Scratch()
        let path = Array(scratch.url.path.utf8) + Array("/essay-".utf8) + [0xFF, 0xFE] + Array(".txt".utf8)
        let descriptor = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        let url = try #require(URL(string: "file://" + scratch.url.path + "/essay-%FF%FE.txt"))

        let store = scratch.store()
        let activity = try await store.fetchActivity(for: url)
        activity.progress = 0.5
        try await store.save()
        let fileURL = try #require(activity.context.fileURL)
        #expect(fileURL.absoluteString.hasSuffix("essay-%FF%FE.txt"))
        #expect(try await scratch.store().fetchActivity(for: fileURL).progress == 0.5)
    }

    @Test func composedAndDecomposedSpellingsAreTwoFiles() async throws {
        let scratch = try Scratch()
        let composed = try scratch.file("caf\u{00E9}.txt")
        let decomposed = try scratch.file("cafe\u{0301}.txt")
        let store = scratch.store()
        let one = try await store.fetchActivity(for: composed)
        let two = try await store.fetchActivity(for: decomposed)
        #expect(one !== two)
        one.progress = 0.9
        try await store.save()
        #expect(try await scratch.store().fetchActivity(for: decomposed).progress == 0)
    }

    @Test func aFileMovedWithMvKeepsItsHistory() async throws {
        let scratch = try Scratch()
        let old = try scratch.file("draft.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: old)
        activity.start()
        activity.stop()
        activity.progress = 0.4
        try await store.save()

        let new = scratch.url.appendingPathComponent("final.txt")
        #expect(rename(old.path, new.path) == 0)
        let moved = try await scratch.store().fetchActivity(for: new)
        #expect(moved.progress == 0.4)
        #expect(moved.timeSpans.count == 1)
        #expect(moved.context.title == "final.txt")
        // The same store follows the move with the same instance.
        let same = try await store.fetchActivity(for: new)
        #expect(same === activity)
        #expect(same.context.fileURL?.lastPathComponent == "final.txt")
        #expect(try await scratch.store().allActivities().count == 1)
    }

    @Test func aNewFileAtAnOldPathIsNotTheMovedOne() async throws {
        let scratch = try Scratch()
        let old = try scratch.file("draft.txt")
        let store = scratch.store()
        store.mainAppContext.title = "clsfile"
        try await store.fetchActivity(for: old).progress = 0.7
        try await store.save()
        let new = scratch.url.appendingPathComponent("copy.txt")
        try FileManager.default.copyItem(at: old, to: new)
        #expect(try await scratch.store().fetchActivity(for: new).progress == 0)
        #expect(try await scratch.store().fetchActivity(for: old).progress == 0.7)
    }

    @Test func aDirectoryIsRefusedWithItsPath() async throws {
        let scratch = try Scratch()
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: scratch.url) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(scratch.url.path) == true)
        #expect(error?.message.contains("a directory") == true)
    }

    @Test func aFIFOIsRefusedWithoutBlocking() async throws {
        let scratch = try Scratch()
        let fifo = scratch.url.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: fifo) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("\(fifo.path) is a FIFO") == true)
    }

    @Test func aMissingFileIsRefusedWithItsPath() async throws {
        let scratch = try Scratch()
        let missing = scratch.url.appendingPathComponent("nowhere.txt")
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: missing) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(missing.path) == true)
        #expect(error?.message.contains("No such file") == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.storeURL.path), "a refused fetch must not create the store")
    }

    @Test func aURLThatIsNotAFileURLIsRefused() async throws {
        let scratch = try Scratch()
        let web = try #require(URL(string: "https://example.com/essay.txt"))
        let error = await clsError { _ = try await scratch.store().fetchActivity(for: web) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("https://example.com/essay.txt") == true)
    }

    @Test func aDeviceIsRefused() async throws {
        let error = await clsError {
            _ = try await (try Scratch()).store().fetchActivity(for: URL(fileURLWithPath: "/dev/null"))
        }
        #expect(error?.message.contains("/dev/null is a device") == true)
    }

    @Test func existingActivityCreatesNothing() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("unseen.txt")
        let store = scratch.store()
        #expect(try await store.existingActivity(for: file) == nil)
        #expect(try await store.allActivities().isEmpty)
        _ = try await store.fetchActivity(for: file)
        #expect(try await store.existingActivity(for: file) != nil)
    }
}
