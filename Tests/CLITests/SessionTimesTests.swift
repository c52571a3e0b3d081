import Classroom
@testable import clsfile
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// A session that went on after a pause past the idle timeout: the student's evidence view and
/// the teacher's report show its active time, so that its row and the work's time agree.
struct SessionTimesTests {
    @Test func aPausedSessionShowsItsActiveTimeBesideTheWorksTime() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "Rivers carry water.\n")
        let store = CLSDataStore(storeURL: scratch.url.appendingPathComponent("store.sqlite"), configuration: .init(busyTimeout: 30))
        let activity = try await store.fetchActivity(for: file)
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
        activity.start(at: start)
        // 100.4 s of work, a pause of 420 s, 30.4 s more in the same run of the editor; then a
        // second session of 9.4 s. Rounded on its own, each would show 100 + 30 and 9.
        for offset in [60, 100.4, 520.4, 550.8] { activity.recordPulse(at: start.addingTimeInterval(offset), idleTimeout: 300) }
        activity.stop(at: start.addingTimeInterval(550.8), idleTimeout: 300)
        activity.start(at: start.addingTimeInterval(1200))
        activity.stop(at: start.addingTimeInterval(1209.4), idleTimeout: 300)
        try await store.save()

        let assignment = Assignment(
            identifier: "essay-1", title: "Essay", documentName: "essay.txt", documentDigest: "00",
            teacherKey: Identity().recipientPublicKey)
        let work = StudentWork(assignment: assignment, activity: activity)
        #expect(work.sessions.count == 2)
        let firstActive = try #require(work.sessions.first?.activeSeconds)
        #expect(abs(firstActive - 130.8) < 0.01)
        #expect(abs(work.activeSeconds - 140.2) < 0.01)

        let text = EvidenceText(assignment: assignment, work: work).text()
        #expect(text.contains("Time:       2m 20s in 2 sessions"), "\(text)")
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("  1 ") || $0.hasPrefix("  2 ") }
        // 2m 11s + 9s = 2m 20s; the first row's length from start to end would be 9m 11s.
        #expect(rows.count == 2 && rows[0].contains("2m 11s") && rows[1].contains(" 9s"), "\(text)")
        #expect(!text.contains("9m 11s"), "\(text)")

        // Work sent before sessions carried their active time: the time as recorded.
        var older = work
        for index in older.sessions.indices { older.sessions[index].activeSeconds = nil }
        let olderText = EvidenceText(assignment: assignment, work: older).text()
        #expect(olderText.contains("Time:       2m 20s in 2 sessions") && olderText.contains("9m 11s"), "\(olderText)")
    }
}
