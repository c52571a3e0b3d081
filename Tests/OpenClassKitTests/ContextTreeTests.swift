import Foundation
import Synchronization
import Testing
import StoreTestSupport
import TestSupport
@testable import OpenClassKit

/// The context tree of ClassKit 2018–2020: paths, the delegate, the provider, metadata, limits,
/// removal and the active context, each read back by another data store on the same file, as
/// another process would.
struct ContextTreeTests {
    /// A delegate that makes a context for every identifier and remembers each call.
    final class Recorder: CLSDataStoreDelegate, @unchecked Sendable {
        let calls = Mutex<[String]>([])
        func createContext(
            forIdentifier identifier: String, parentContext: CLSContext,
            parentIdentifierPath: [String]
        ) -> CLSContext? {
            calls.withLock { $0.append((parentIdentifierPath + [identifier]).joined(separator: "/")) }
            guard identifier != "missing" else { return nil }
            let type: CLSContextType = identifier.hasPrefix("quiz") ? .quiz : identifier.hasPrefix("chapter") ? .chapter : .book
            return CLSContext(type: type, identifier: identifier, title: identifier.capitalized)
        }
    }

    @Test func theDelegateIsAskedOnceForEachMissingIdentifierParentFirst() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorder = Recorder()
        store.delegate = recorder
        let path = ["book", "chapter1", "quiz1"]
        let found = try await store.contexts(matchingIdentifierPath: path)
        #expect(found.map(\.identifier) == path)
        #expect(found.map(\.type) == [.book, .chapter, .quiz])
        #expect(found.last?.identifierPath == ["clsfile"] + path)
        #expect(recorder.calls.withLock { $0 } == ["clsfile/book", "clsfile/book/chapter1", "clsfile/book/chapter1/quiz1"])

        // Again, here and in another data store: found, nothing asked. The path may start at the
        // main app context.
        _ = try await store.contexts(matchingIdentifierPath: path)
        let other = scratch.store()
        let otherRecorder = Recorder()
        other.delegate = otherRecorder
        let read = try await other.contexts(matchingIdentifierPath: ["clsfile"] + path)
        #expect(read.map(\.title) == ["Book", "Chapter1", "Quiz1"])
        #expect(recorder.calls.withLock { $0.count } == 3 && otherRecorder.calls.withLock { $0.isEmpty })

        // Many calls at once for a new path: one call per identifier.
        let third = scratch.store()
        let thirdRecorder = Recorder()
        third.delegate = thirdRecorder
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await third.contexts(matchingIdentifierPath: ["book", "chapter2", "quiz2"]).count } }
            for try await count in group { #expect(count == 3) }
        }
        #expect(thirdRecorder.calls.withLock { $0 } == ["clsfile/book/chapter2", "clsfile/book/chapter2/quiz2"])

        // A delegate that makes nothing ends the path there.
        #expect(try await store.contexts(matchingIdentifierPath: ["book", "missing", "deeper"]).map(\.identifier) == ["book"])
    }

    @Test func everyMetadataPropertyRoundTrips() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let chapter = CLSContext(type: .custom, identifier: "chapter-7", title: "Chapter 7: Fractions")
        store.mainAppContext.addChildContext(chapter)
        chapter.customTypeName = "Unit"
        chapter.displayOrder = 7
        chapter.topic = .math
        chapter.summary = String(repeating: "é", count: 4_000)
        chapter.thumbnail = TestImages.png(width: 330, height: 80)
        chapter.isAssignable = false
        chapter.suggestedAge = NSRange(location: 9, length: 3)
        chapter.suggestedCompletionTime = NSRange(location: 20, length: 25)
        chapter.addProgressReportingCapabilities([
            CLSProgressReportingCapability(kind: .score, details: "out of 10"),
            CLSProgressReportingCapability(kind: .percent, details: nil)
        ])
        chapter.universalLinkURL = URL(string: "https://example.com/book/7?x=1#top")
        try await store.save()

        let read = try #require(try await scratch.store().contexts(matchingIdentifierPath: ["chapter-7"]).first)
        #expect(read.type == .custom && read.title == "Chapter 7: Fractions" && read.customTypeName == "Unit")
        #expect(read.displayOrder == 7 && read.topic == .math && read.summary == chapter.summary)
        #expect(read.thumbnail == chapter.thumbnail && read.isAssignable == false)
        #expect(read.suggestedAge == NSRange(location: 9, length: 3))
        #expect(read.suggestedCompletionTime == NSRange(location: 20, length: 25))
        #expect(
            read.progressReportingCapabilities == [
                CLSProgressReportingCapability(kind: .duration, details: nil),
                CLSProgressReportingCapability(kind: .score, details: "out of 10"),
                CLSProgressReportingCapability(kind: .percent, details: nil)
            ])
        #expect(read.universalLinkURL == chapter.universalLinkURL)
        #expect(abs(read.dateCreated.timeIntervalSince(chapter.dateCreated)) < 0.001)

        // Defaults, and a title changed later, also round-trip.
        let plain = CLSContext(type: .section, identifier: "plain", title: "Plain")
        store.mainAppContext.addChildContext(plain)
        try await store.save()
        plain.title = "Renamed"
        chapter.resetProgressReportingCapabilities()
        try await store.save()
        let fresh = scratch.store()
        let readPlain = try #require(try await fresh.contexts(matchingIdentifierPath: ["plain"]).first)
        #expect(readPlain.title == "Renamed" && readPlain.isAssignable && readPlain.topic == nil && readPlain.displayOrder == 0)
        #expect(readPlain.suggestedAge == NSRange(location: 0, length: Int.max - 1))
        #expect(readPlain.progressReportingCapabilities == [CLSProgressReportingCapability(kind: .duration, details: nil)])
        #expect(try await fresh.contexts(matchingIdentifierPath: ["chapter-7"]).first?.progressReportingCapabilities.count == 1)
    }

    /// A changed title of a file's context is saved too.
    @Test func aFileContextsTitleIsSaved() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: file).context.title = "My essay"
        try await store.save()
        #expect(try await scratch.store().fetchActivity(for: file).context.title == "My essay")
    }

    @Test func everyLimitIsRefusedWithClassKitsCode() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorder = Recorder() // held: the data store holds its delegate weakly
        store.delegate = recorder
        let nine = (1...8).map { "level\($0)" }
        let deep = await #expect(throws: CLSError.self) { try await store.contexts(matchingIdentifierPath: nine) }
        #expect(deep?.code == .limits)
        #expect(try await store.contexts(matchingIdentifierPath: Array(nine.prefix(7))).count == 7)
        let long = [String(repeating: "a", count: 200), String(repeating: "b", count: 256 - 200 - "clsfile".count + 1)]
        let tooLong = await #expect(throws: CLSError.self) { try await store.contexts(matchingIdentifierPath: long) }
        #expect(tooLong?.code == .limits && tooLong?.message.contains("257 characters") == true)

        func refused(_ change: (CLSContext) -> Void) async -> CLSError? {
            let context = CLSContext(type: .task, identifier: "task-\(UUID().uuidString.prefix(8))", title: "Task")
            store.mainAppContext.addChildContext(context)
            change(context)
            let error = await #expect(throws: CLSError.self) { try await store.save() }
            store.remove(context)
            try? await store.save()
            return error
        }
        let summary = await refused { $0.summary = String(repeating: "x", count: 4_001) }
        #expect(summary?.code == .limits && summary?.message.contains("4001 characters") == true)
        let big = await refused { $0.thumbnail = TestImages.pngHeader(width: 331, height: 100) }
        #expect(big?.code == .limits && big?.message.contains("331×100 pixels") == true)
        let small = await refused { $0.thumbnail = TestImages.pngHeader(width: 100, height: 79) }
        #expect(small?.code == .limits)
        let junk = await refused { $0.thumbnail = Data("GIF89a".utf8) }
        #expect(junk?.message.contains("not a PNG or JPEG") == true)
        let jpeg = CLSContext(type: .task, identifier: "jpeg", title: "JPEG")
        store.mainAppContext.addChildContext(jpeg)
        jpeg.thumbnail = TestImages.jpeg(width: 200, height: 150)
        try await store.save()
        let title = await refused { $0.title = String(repeating: "t", count: 257) }
        #expect(title?.code == .limits && title?.object != nil)
    }

    /// A thumbnail whose header alone is right (a PNG's IHDR of 100 × 100, then junk) is not kept:
    /// the save is refused and another data store reads no thumbnail; the real image is kept.
    @Test func aThumbnailThatDoesNotDecodeIsNotSaved() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let chapter = CLSContext(type: .chapter, identifier: "chapter-1", title: "Chapter 1")
        store.mainAppContext.addChildContext(chapter)
        try await store.save()
        chapter.thumbnail = TestImages.pngHeader(width: 100, height: 100) + Data(repeating: 0x41, count: 500)
        let refused = await #expect(throws: CLSError.self) { try await store.save() }
        #expect(refused?.code == .limits, "\(String(describing: refused))")
        #expect(
            refused?.message.contains("chapter-1 cannot keep its thumbnail: the thumbnail's PNG data is damaged (libpng: ") == true,
            "\(refused?.message ?? "")")
        #expect(try await scratch.store().contexts(matchingIdentifierPath: ["chapter-1"]).first?.thumbnail == nil)

        chapter.thumbnail = TestImages.png(width: 100, height: 100)
        try await store.save()
        #expect(try await scratch.store().contexts(matchingIdentifierPath: ["chapter-1"]).first?.thumbnail == chapter.thumbnail)
    }

    /// A block predicate sees every stored app context, parents first, never a file's.
    @Test func contextsMatchingABlockPredicate() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorder = Recorder()
        store.delegate = recorder
        _ = try await store.contexts(matchingIdentifierPath: ["book", "chapter1", "quiz1"])
        _ = try await store.contexts(matchingIdentifierPath: ["book", "chapter2", "quiz2"])
        _ = try await store.fetchActivity(for: try scratch.file("essay.txt"))
        try await store.save()

        let other = scratch.store()
        let quizzes = try await other.contexts(matching: NSPredicate { context, _ in (context as? CLSContext)?.type == .quiz })
        #expect(quizzes.map(\.identifierPath) == [["clsfile", "book", "chapter1", "quiz1"], ["clsfile", "book", "chapter2", "quiz2"]])
        let all = try await other.contexts(matching: NSPredicate(value: true))
        #expect(all.map(\.identifier) == ["book", "chapter1", "chapter2", "quiz1", "quiz2"])
        #expect(all[1].parent === all[0], "one instance per context")
    }

    /// Identifiers are unique among siblings: a second context of the same identifier is refused,
    /// and so is a delegate that makes a context of another identifier than asked.
    @Test func duplicateSiblingsAndAWrongDelegateAreRefused() async throws {
        let scratch = try Scratch()
        let first = scratch.store(), second = scratch.store()
        first.mainAppContext.addChildContext(CLSContext(type: .book, identifier: "book", title: "Book"))
        try await first.save()
        second.mainAppContext.addChildContext(CLSContext(type: .book, identifier: "book", title: "Another book"))
        let duplicate = await clsError { try await second.save() }
        #expect(duplicate?.code == .invalidCreate && duplicate?.message.contains("already exists under the same parent") == true)

        final class Wrong: CLSDataStoreDelegate {
            func createContext(
                forIdentifier identifier: String, parentContext: CLSContext,
                parentIdentifierPath: [String]
            ) -> CLSContext? {
                CLSContext(type: .quiz, identifier: identifier + "-other", title: "Other")
            }
        }
        let third = scratch.store()
        let wrong = Wrong()
        third.delegate = wrong
        let error = await clsError { _ = try await third.contexts(matchingIdentifierPath: ["quiz"]) }
        #expect(error?.code == .invalidCreate && error?.message.contains("was asked for 'quiz'") == true, "\(error?.message ?? "")")
    }

    @Test func removingAContextRemovesItsDescendantsOnSave() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorder = Recorder() // held: the data store holds its delegate weakly
        store.delegate = recorder
        let path = try await store.contexts(matchingIdentifierPath: ["book", "chapter1", "quiz1"])
        store.remove(path[1])
        #expect(path[1].parent == nil && path[0].loadedChildren.isEmpty)
        let before = try await scratch.store().contexts(matchingIdentifierPath: ["book", "chapter1", "quiz1"])
        #expect(before.count == 3, "removed only at the save")
        try await store.save()
        let other = scratch.store()
        #expect(try await other.contexts(matchingIdentifierPath: ["book", "chapter1", "quiz1"]).map(\.identifier) == ["book"])
        let rows = try run(
            try Tool.sqlite3.require(),
            [scratch.storeURL.path, "SELECT count(*) FROM context WHERE identifier LIKE 'quiz%' OR identifier LIKE 'chapter%'"])
        #expect(rows.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func aProviderFillsChildrenOnceWhenFirstAskedFor() async throws {
        final class Provider: CLSContextProvider, @unchecked Sendable {
            let calls = Mutex(0)
            func updateDescendants(of context: CLSContext) async throws {
                calls.withLock { $0 += 1 }
                for number in 1...3 {
                    context.addChildContext(CLSContext(type: .level, identifier: "level\(number)", title: "Level \(number)"))
                }
            }
        }
        let scratch = try Scratch()
        let store = scratch.store()
        let provider = Provider()
        store.contextProvider = provider
        let level = try await store.mainAppContext.descendant(matchingIdentifierPath: ["level2"])
        #expect(level?.title == "Level 2")
        #expect(try await store.mainAppContext.descendant(matchingIdentifierPath: ["level9"]) == nil)
        #expect(provider.calls.withLock { $0 } == 1)
        #expect(try await scratch.store().mainAppContext.descendant(matchingIdentifierPath: ["level3"])?.title == "Level 3")
    }

    @Test func oneContextIsActiveAndADeadProcessLeavesNone() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorder = Recorder() // held: the data store holds its delegate weakly
        store.delegate = recorder
        let path = try await store.contexts(matchingIdentifierPath: ["book", "chapter1"])
        let other = try await store.contexts(matchingIdentifierPath: ["book", "chapter2"])
        // Another data store on the file, held: a context's parent is held by its data store's tree.
        let reader = scratch.store()
        #expect(reader.activeContext == nil)
        path[1].becomeActive()
        #expect(path[1].isActive)
        #expect(reader.activeContext?.identifierPath == ["clsfile", "book", "chapter1"])
        other[1].becomeActive()
        #expect(reader.activeContext?.identifierPath == ["clsfile", "book", "chapter2"])
        other[1].resignActive()
        #expect(reader.activeContext == nil && !other[1].isActive)

        // Made active by a process that then exits: no context is active.
        let worker = try runWorker(["activate", scratch.storeURL.path, "book/chapter1"])
        #expect(worker.status == 0, "\(worker.errorOutput)")
        #expect(scratch.store().activeContext == nil)
    }

    @Test func attemptsRoundTripAcrossProcessesAndANewOneStopsThePrevious() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorder = Recorder()
        store.delegate = recorder
        let path = ["book", "chapter1", "quiz1"]
        let quiz = try #require(try await store.contexts(matchingIdentifierPath: path).last)
        #expect(quiz.currentActivity == nil)

        let first = quiz.createNewActivity()
        #expect(quiz.currentActivity === first)
        first.start()
        first.addProgressRange(fromStart: 0, toEnd: 0.5)
        first.primaryActivityItem = CLSScoreItem(identifier: "score", title: "Score", score: 3, maxScore: 10)
        first.addAdditionalActivityItem(CLSBinaryItem(identifier: "passed", title: "Passed", type: .passFail))
        try await store.save()

        // Another data store reads it through the context, as another process would.
        let reader = scratch.store()
        let readQuiz = try #require(try await reader.contexts(matchingIdentifierPath: path).last)
        let read = try #require(readQuiz.currentActivity)
        #expect(read.progress == 0.5 && read.isStarted)
        #expect((read.primaryActivityItem as? CLSScoreItem)?.score == 3 && read.additionalActivityItems.map(\.identifier) == ["passed"])
        #expect(read.context === readQuiz && read.context.identifierPath == ["clsfile"] + path)
        #expect(readQuiz.currentActivity === read)
        #expect(reader.runningActivity?.context.identifierPath == ["clsfile"] + path)

        // A second attempt stops the first for good and starts empty.
        let second = quiz.createNewActivity()
        #expect(!first.isStarted && second !== first)
        second.start()
        second.progress = 0.2
        try await store.save()
        let later = scratch.store()
        let again = try #require(try await later.contexts(matchingIdentifierPath: path).last?.currentActivity)
        #expect(again.progress == 0.2 && again.primaryActivityItem == nil && again.isStarted)
        #expect(readQuiz.currentActivity?.progress == 0.2)

        // A third in another process, which is then killed: its work stays, its span ends at its
        // last save, and neither it nor its context is left running or active.
        let worker = try runWorker(["attempt-and-die", scratch.storeURL.path, path.joined(separator: "/")])
        #expect(worker.status == SIGKILL, "\(worker.errorOutput)")
        let afterKill = scratch.store()
        let third = try #require(try await afterKill.contexts(matchingIdentifierPath: path).last?.currentActivity)
        #expect((third.primaryActivityItem as? CLSScoreItem)?.score == 9)
        #expect(!third.isStarted && third.timeSpans.count == 1)
        #expect(afterKill.activeContext == nil)
        // The worker's attempt stopped this process's second one in the store.
        #expect(afterKill.runningActivity == nil)
    }

    @Test func aDocumentBelongsToOneContext() async throws {
        let scratch = try Scratch()
        _ = try scratch.file("notes.md", "Letters.\n")
        func entry(_ path: [String], document: String?) throws -> CourseManifest.Entry {
            let json =
                #"{"identifierPath": \#(String(decoding: try JSONEncoder().encode(path), as: UTF8.self)), "title": "T", "type": "chapter"}"#
            return CourseManifest.Entry(
                data: try JSONDecoder().decode(CourseManifest.ContextData.self, from: Data(json.utf8)), document: document)
        }
        let manifest = CourseManifest(
            contexts: [try entry(["ch1"], document: "notes.md"), try entry(["ch2"], document: "notes.md")],
            folder: scratch.url)
        let error = await clsError { _ = try await scratch.store().importContexts(manifest) }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message.contains(
                "\(scratch.url.path)/notes.md is already the document of the context ch1; a document belongs to one context: name it once in the manifest"
            ) == true,
            "\(error?.message ?? "")")
    }

    @Test func anAttemptOfAContextAddedAfterwardsIsSavedWithIt() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let quiz = CLSContext(type: .quiz, identifier: "quiz", title: "Quiz")
        let activity = quiz.createNewActivity()
        activity.progress = 0.75
        store.mainAppContext.addChildContext(quiz)
        try await store.save()
        let read = try #require(try await scratch.store().contexts(matchingIdentifierPath: ["quiz"]).last?.currentActivity)
        #expect(read.progress == 0.75)

        // An attempt whose context never joins the tree is refused with the reason.
        let loose = CLSContext(type: .quiz, identifier: "loose", title: "Loose")
        let orphan = loose.createNewActivity()
        orphan.progress = 0.5
        store.mainAppContext.addChildContext(loose)
        loose.removeFromParent()
        let error = await clsError { try await store.save() }
        #expect(error?.code == .invalidCreate && error?.object === orphan)
        #expect(error?.message.contains("the context is not in the data store's tree") == true)
        // Refused once, it does not block later saves; its context added again, it is saved.
        try await store.save()
        store.mainAppContext.addChildContext(loose)
        try await store.save()
        #expect(try await scratch.store().contexts(matchingIdentifierPath: ["loose"]).last?.currentActivity?.progress == 0.5)
    }
}
