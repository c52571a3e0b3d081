import Foundation
import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

struct ProgressTests {
    @Test func overlappingAndRepeatedRangesCountOnce() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("book.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.addProgressRange(fromStart: 0.1, toEnd: 0.3)
        activity.addProgressRange(fromStart: 0.2, toEnd: 0.5)
        activity.addProgressRange(fromStart: 0.1, toEnd: 0.3)
        activity.addProgressRange(fromStart: 0.8, toEnd: 0.9)
        #expect(abs(activity.progress - 0.5) < 1e-12)
        #expect(activity.progressRanges == [0.1...0.5, 0.8...0.9])
        try await store.save()

        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(abs(reread.progress - 0.5) < 1e-12)
        reread.addProgressRange(fromStart: 0.45, toEnd: 0.85)
        #expect(abs(reread.progress - 0.8) < 1e-12)
    }

    @Test func theSetterAddsTheRangeFromZero() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.addProgressRange(fromStart: 0.5, toEnd: 0.7)
        activity.progress = 0.3
        #expect(abs(activity.progress - 0.5) < 1e-12)
        activity.progress = 0.6
        #expect(abs(activity.progress - 0.7) < 1e-12)
        activity.progress = 0.2
        #expect(abs(activity.progress - 0.7) < 1e-12, "setting less never takes progress back")
    }

    @Test(arguments: [(1.5, 1.0), (-0.3, 0.0), (0.0, 0.0), (1.0, 1.0)])
    func valuesOutsideZeroToOneAreClamped(value: Double, expected: Double) async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.progress = value
        #expect(activity.progress == expected)
        try await store.save()
        #expect(try await scratch.store().fetchActivity(for: try scratch.file("essay.txt")).progress == expected)
    }

    @Test func notANumberIsRejectedAtSaveAndNothingIsWritten() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.addProgressRange(fromStart: 0, toEnd: 0.2)
        activity.progress = .nan
        let error = await clsError { try await store.save() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("nan") == true)
        #expect(try await scratch.store().fetchActivity(for: file).progress == 0)
        // The valid change stays pending and the next save writes it.
        try await store.save()
        #expect(abs(try await scratch.store().fetchActivity(for: file).progress - 0.2) < 1e-12)
    }

    @Test func aRangeThatEndsBeforeItStartsIsRejected() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.addProgressRange(fromStart: 0.6, toEnd: 0.4)
        #expect(activity.progress == 0)
        let error = await clsError { try await store.save() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("0.6") == true)
    }

    @Test func manySmallRangesStayCorrectAfterCompaction() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        for step in 1...100 {
            activity.progress = Double(step) / 200
            try await store.save()
        }
        activity.addProgressRange(fromStart: 0.9, toEnd: 1)
        try await store.save()
        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(abs(reread.progress - 0.6) < 1e-12)
        #expect(reread.progressRanges == [0...0.5, 0.9...1])
    }

    @Test func aNewBasisStartsProgressAgainAndIsKept() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.progress = 0.8
        try await store.save()
        activity.progressBasis = .targetWords
        #expect(activity.progress == 0, "the unnamed 80% is not united with the new basis")
        activity.progress = 0.3
        try await store.save()

        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(reread.progressBasis == .targetWords)
        #expect(abs(reread.progress - 0.3) < 1e-12)
        // The same basis again keeps the ranges; another one in another store clears them there too.
        reread.progressBasis = .targetWords
        #expect(abs(reread.progress - 0.3) < 1e-12)
        let other = scratch.store()
        let third = try await other.fetchActivity(for: file)
        third.progressBasis = .viewedShare
        third.addProgressRange(fromStart: 0.5, toEnd: 0.6)
        try await other.save()
        let last = try await scratch.store().fetchActivity(for: file)
        #expect(last.progressBasis == .viewedShare)
        #expect(last.progressRanges == [0.5...0.6])
    }

    @Test func aBasisChangedAndChangedBackBeforeASaveStillClearsTheStoredRanges() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("book.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.progressBasis = .viewedShare
        activity.addProgressRange(fromStart: 0, toEnd: 0.4)
        try await store.save()
        activity.progressBasis = .targetWords
        activity.progressBasis = .viewedShare
        activity.addProgressRange(fromStart: 0.7, toEnd: 0.8)
        #expect(activity.progressRanges == [0.7...0.8])
        try await store.save()
        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(reread.progressRanges == [0.7...0.8], "the stored 0…0.4 was cleared in memory, so it is cleared on disk")
    }

    @Test func restartingProgressClearsItUnderTheSameBasis() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.progressBasis = .targetWords
        activity.progress = 0.62
        try await store.save()
        activity.restartProgress(measuring: .targetWords)
        activity.progress = 0.31
        try await store.save()
        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(reread.progressBasis == .targetWords)
        #expect(reread.progressRanges == [0...0.31])
    }

    @Test func rangesOfABasisAnotherProcessReplacedAreDropped() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("book.txt")
        let reader = scratch.store(), writer = scratch.store()
        let read = try await reader.fetchActivity(for: file)
        read.progressBasis = .viewedShare
        try await reader.save()
        let written = try await writer.fetchActivity(for: file)
        written.progressBasis = .targetWords
        written.progress = 0.2
        try await writer.save()
        // The reader still believes the file is read: its range measures a basis that is gone.
        read.addProgressRange(fromStart: 0, toEnd: 0.9)
        try await reader.save()
        #expect(read.progressBasis == .targetWords)
        let reread = try await scratch.store().fetchActivity(for: file)
        #expect(reread.progressBasis == .targetWords)
        #expect(reread.progressRanges == [0...0.2], "a 90% read is not 90% of the words")
    }

    /// A store keeps its recent activities and saves without reading them back; another writer in
    /// between must still be seen, on the next fetch and by the next save.
    @Test func aHeldActivitySeesWhatAnotherWriterSaved() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let mine = scratch.store(), theirs = scratch.store()
        let held = try await mine.fetchActivity(for: file)
        held.progress = 0.2
        try await mine.save()
        #expect(try await mine.fetchActivity(for: file) === held, "a recent activity is kept")

        let other = try await theirs.fetchActivity(for: file)
        other.addProgressRange(fromStart: 0.5, toEnd: 0.7)
        other.addAdditionalActivityItem(CLSQuantityItem(identifier: "open_time", title: "Open Time"))
        try await theirs.save()

        let again = try await mine.fetchActivity(for: file)
        #expect(again === held)
        #expect(again.progressRanges == [0...0.2, 0.5...0.7], "the other writer's range is read")
        #expect(again.additionalActivityItems.map(\.identifier) == ["open_time"])
        // And a save made on a view that missed a write reads the activity back.
        other.addProgressRange(fromStart: 0.9, toEnd: 1)
        try await theirs.save()
        held.addProgressRange(fromStart: 0.3, toEnd: 0.4)
        try await mine.save()
        #expect(held.progressRanges == [0...0.2, 0.3...0.4, 0.5...0.7, 0.9...1])
    }
}
