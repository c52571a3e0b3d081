import Foundation
import OpenClassKit
import SessionRecorder
import StoreTestSupport
import Testing
import TestSupport

/// Sessions written by dictation or an input method: marked in the store, their input typed and
/// never pasted, whether a session says so or the store's setting does.
struct DictationTests {
    private func quantity(_ identifier: String, in activity: CLSActivity) -> Double? {
        (activity.additionalActivityItems.first { $0.identifier == identifier } as? CLSQuantityItem)?.quantity
    }

    /// One session from open to close, with what a plugin counted.
    private func session(_ file: URL, recorder: SessionRecorder, isDictated: Bool?, typed: Int, pasted: Int) async throws {
        var open = SessionEvent(kind: .open, file: file)
        open.isDictated = isDictated
        try await recorder.record(open)
        var close = SessionEvent(kind: .close, file: file, input: .init(typed: typed, pasted: pasted, largestPaste: pasted))
        close.isDictated = isDictated
        try await recorder.record(close)
    }

    @Test func aDictatedSessionIsMarkedAndItsPastesCountAsTyped() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "Rivers carry water.\n")
        let store = scratch.store()
        let recorder = SessionRecorder(store: store)
        try await session(file, recorder: recorder, isDictated: nil, typed: 10, pasted: 40)
        try await session(file, recorder: recorder, isDictated: true, typed: 5, pasted: 70)
        let activity = try await store.fetchActivity(for: file)
        #expect(quantity(ItemIdentifier.typedCharacters, in: activity) == 85, "10 typed, then 5 typed and 70 dictated")
        #expect(quantity(ItemIdentifier.pastedCharacters, in: activity) == 40, "the dictated burst is not a paste")
        #expect(quantity(ItemIdentifier.largestPaste, in: activity) == 40)
        let identifiers = activity.workSessionIdentifiers
        #expect(identifiers.count == 2)
        #expect(try await store.dictatedSessions(of: activity) == [identifiers[1]])
        // The history's rows name the same sessions: the dictated one added nothing pasted.
        let sessions = try await store.writingHistory(for: file).sessions
        #expect(sessions.map(\.entry.sessionIdentifier) == identifiers.map(Optional.some))
        #expect(sessions.map(\.pastedCharacters) == [40, 0] && sessions.map(\.typedCharacters) == [10, 75])
    }

    @Test func theStoresSettingMarksEverySessionUntilTurnedOff() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "Rivers carry water.\n")
        let store = scratch.store()
        #expect(try await store.isDictating() == false)
        try await store.setDictating(true)
        #expect(try await store.isDictating())
        let recorder = SessionRecorder(store: store)
        try await session(file, recorder: recorder, isDictated: nil, typed: 3, pasted: 30)
        // A session that says it is not dictated is not, whatever the setting.
        try await session(file, recorder: recorder, isDictated: false, typed: 4, pasted: 20)
        try await store.setDictating(false)
        try await session(file, recorder: recorder, isDictated: nil, typed: 2, pasted: 9)
        let activity = try await store.fetchActivity(for: file)
        #expect(try await store.dictatedSessions(of: activity) == [activity.workSessionIdentifiers[0]])
        #expect(quantity(ItemIdentifier.pastedCharacters, in: activity) == 29, "20 and 9 pasted")
        #expect(quantity(ItemIdentifier.typedCharacters, in: activity) == 39, "30 dictated and 3, 4 and 2 typed")
    }
}
