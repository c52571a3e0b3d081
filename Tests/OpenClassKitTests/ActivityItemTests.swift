import Foundation
import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

struct ActivityItemTests {
    @Test func anItemWithAnExistingIdentifierReplacesIt() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        for round in 1...3 {
            let activity = try await store.fetchActivity(for: file)
            let grade = CLSScoreItem(identifier: "grade", title: "Readability Grade", score: Double(round), maxScore: 18)
            activity.addAdditionalActivityItem(grade)
            activity.addAdditionalActivityItem(CLSBinaryItem(identifier: "done", title: "Done", type: .yesNo))
            try await store.save()
        }
        let activity = try await scratch.store().fetchActivity(for: file)
        #expect(activity.additionalActivityItems.map(\.identifier).sorted() == ["done", "grade"])
        let grade = try #require(activity.additionalActivityItems.first { $0.identifier == "grade" } as? CLSScoreItem)
        #expect(grade.score == 3)
        #expect(grade.maxScore == 18)
        #expect(grade.title == "Readability Grade")
        let done = try #require(activity.additionalActivityItems.first { $0.identifier == "done" } as? CLSBinaryItem)
        #expect(done.valueType == .yesNo)
        #expect(done.value == false)
    }

    @Test func aFetchedItemChangedInPlaceIsSaved() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        let words = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        words.quantity = 100
        activity.primaryActivityItem = words
        try await store.save()

        // Change the same item after the save, without touching the activity.
        words.quantity = 250
        try await store.save()
        let reread = try await scratch.store().fetchActivity(for: file)
        #expect((reread.primaryActivityItem as? CLSQuantityItem)?.quantity == 250)

        let again = try #require(try await store.fetchActivity(for: file).primaryActivityItem as? CLSQuantityItem)
        #expect(again === words)
    }

    @Test func changingThePrimaryItemSubclassIsRejected() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.primaryActivityItem = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        try await store.save()

        let other = scratch.store()
        let second = try await other.fetchActivity(for: file)
        second.primaryActivityItem = CLSScoreItem(identifier: "grade", title: "Grade", score: 1, maxScore: 2)
        second.progress = 0.5
        let error = await clsError { try await other.save() }
        #expect(error?.code == .invalidModification)
        #expect(error?.message.contains("quantity") == true)
        #expect(error?.message.contains("score") == true)
        #expect(error?.message.contains(file.lastPathComponent) == true)

        let stored = try await scratch.store().fetchActivity(for: file)
        #expect(stored.primaryActivityItem is CLSQuantityItem)
        #expect(stored.progress == 0, "a failed save writes nothing")
    }

    /// Clearing the primary item, or every item, and setting one of another subclass in one save
    /// or in two is refused all the same: the first primary item saved fixes the subclass.
    @Test func clearingThePrimaryItemDoesNotOpenTheWayToAnotherSubclass() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.primaryActivityItem = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        try await store.save()

        activity.primaryActivityItem = nil
        activity.primaryActivityItem = CLSBinaryItem(identifier: "passed", title: "Passed", type: .passFail)
        #expect(await clsError { try await store.save() }?.code == .invalidModification)

        let other = scratch.store()
        let second = try await other.fetchActivity(for: file)
        second.removeAllActivityItems()
        try await other.save()
        #expect(try await scratch.store().fetchActivity(for: file).primaryActivityItem == nil)
        second.primaryActivityItem = CLSScoreItem(identifier: "grade", title: "Grade", score: 1, maxScore: 2)
        let error = await clsError { try await other.save() }
        #expect(error?.code == .invalidModification && error?.message.contains("quantity") == true)
        second.primaryActivityItem = CLSQuantityItem(identifier: "words", title: "Words")
        try await other.save()
    }

    /// One activity with a bad item and one without: the good one is saved, and the error says
    /// which objects were saved and which failed, under ClassKit's user-info keys.
    @Test func aSaveWithOneBadActivityIsAPartialFailure() async throws {
        let scratch = try Scratch()
        let good = try scratch.file("good.txt"), bad = try scratch.file("bad.txt")
        let store = scratch.store()
        let saved = try await store.fetchActivity(for: good)
        saved.progress = 0.5
        let failing = try await store.fetchActivity(for: bad)
        let score = CLSScoreItem(identifier: "quiz", title: "Quiz", score: 5, maxScore: 4)
        failing.primaryActivityItem = score
        let error = await clsError { try await store.save() }
        #expect(error?.code == .partialFailure)
        #expect(error?.successfulObjects.count == 1 && error?.successfulObjects.first === saved)
        #expect(error?.underlyingErrors.count == 1 && error?.underlyingErrors.first?.object === score)
        #expect(error?.message.contains("1 of 2 changed activities were saved") == true, "\(error?.message ?? "")")
        let info = (error as NSError?)?.userInfo ?? [:]
        #expect((info[CLSErrorSuccessfulObjectsKey] as? [CLSObject])?.first === saved)
        #expect((info[CLSErrorUnderlyingErrorsKey] as? [CLSError])?.count == 1)
        #expect((error as NSError?)?.code == CLSError.Code.partialFailure.rawValue)
        #expect(try await scratch.store().fetchActivity(for: good).progress == 0.5)

        // Alone, the bad activity's error is its own, about the item; fixed, it saves.
        let alone = await clsError { try await store.save() }
        #expect(alone?.code == .invalidArgument && alone?.object === score)
        score.score = 3
        try await store.save()
        #expect((try await scratch.store().fetchActivity(for: bad).primaryActivityItem as? CLSScoreItem)?.score == 3)
    }

    @Test func aNewPrimaryItemOfTheSameSubclassReplacesTheOld() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.primaryActivityItem = CLSQuantityItem(identifier: "words", title: "Words")
        try await store.save()
        activity.primaryActivityItem = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        try await store.save()
        let stored = try await scratch.store().fetchActivity(for: file)
        #expect(stored.primaryActivityItem?.identifier == "total_word_count")
        #expect(stored.additionalActivityItems.isEmpty)
    }

    @Test func unsavedChangesNeverReachTheStore() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.start()
        activity.progress = 0.9
        activity.primaryActivityItem = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        activity.addAdditionalActivityItem(CLSBinaryItem(identifier: "b", title: "B", type: .passFail))

        let stored = try await scratch.store().fetchActivity(for: file)
        #expect(!stored.isStarted)
        #expect(stored.progress == 0)
        #expect(stored.primaryActivityItem == nil)
        #expect(stored.additionalActivityItems.isEmpty)
    }

    @Test func removeAllActivityItemsClearsBothSlotsOnSave() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: file)
        activity.primaryActivityItem = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        activity.addAdditionalActivityItem(CLSBinaryItem(identifier: "b", title: "B", type: .passFail))
        try await store.save()
        activity.removeAllActivityItems()
        #expect(try await scratch.store().fetchActivity(for: file).additionalActivityItems.count == 1)
        try await store.save()
        let stored = try await scratch.store().fetchActivity(for: file)
        #expect(stored.primaryActivityItem == nil)
        #expect(stored.additionalActivityItems.isEmpty)
    }

    @Test func aScoreAboveItsMaximumIsRejectedAtSave() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.addAdditionalActivityItem(CLSScoreItem(identifier: "quiz", title: "Quiz", score: 12, maxScore: 10))
        let error = await clsError { try await store.save() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("quiz") == true)
    }

    @Test func itemsFromAnotherProcessAreMergedNotOverwritten() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let first = scratch.store(), second = scratch.store()
        let one = try await first.fetchActivity(for: file)
        let two = try await second.fetchActivity(for: file)
        one.addAdditionalActivityItem(CLSBinaryItem(identifier: "from-one", title: "One", type: .trueFalse))
        two.addAdditionalActivityItem(CLSBinaryItem(identifier: "from-two", title: "Two", type: .trueFalse))
        try await first.save()
        try await second.save()
        #expect(two.additionalActivityItems.map(\.identifier).sorted() == ["from-one", "from-two"])
        let one2 = try await first.fetchActivity(for: file)
        #expect(one2.additionalActivityItems.map(\.identifier).sorted() == ["from-one", "from-two"])
    }

    @Test func theCompletionHandlerFormsWork() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        let activity: CLSActivity = try await withCheckedThrowingContinuation { continuation in
            store.fetchActivity(for: file) { activity, error in
                if let activity { continuation.resume(returning: activity) } else { continuation.resume(throwing: error!) }
            }
        }
        activity.progress = 0.3
        let error: (any Error)? = await withCheckedContinuation { continuation in
            store.save { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        #expect(try await scratch.store().fetchActivity(for: file).progress == 0.3)

        let failure: (any Error)? = await withCheckedContinuation { continuation in
            store.fetchActivity(for: scratch.url) { _, error in continuation.resume(returning: error) }
        }
        #expect((failure as? CLSError)?.code == .invalidArgument)
    }

    @Test func everyItemNamesItsKindAsTheStoreDoes() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let activity = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        activity.primaryActivityItem = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
        activity.addAdditionalActivityItem(CLSScoreItem(identifier: ItemIdentifier.checklist, title: "Checklist", score: 1, maxScore: 2))
        activity.addAdditionalActivityItem(CLSBinaryItem(identifier: ItemIdentifier.reading, title: "Reading", type: .yesNo))
        try await store.save()
        let stored = try run(
            try Tool.sqlite3.require(), [scratch.storeURL.path, "SELECT identifier || ':' || kind FROM activity_item ORDER BY identifier"])
        let kinds = [activity.primaryActivityItem].compactMap { $0 } + activity.additionalActivityItems
        #expect(
            stored.output.split(separator: "\n").map(String.init)
                == kinds.map { "\($0.identifier):\($0.kind.rawValue)" }.sorted())
        #expect(kinds.map(\.kind) == [.quantity, .score, .binary])
    }
}
