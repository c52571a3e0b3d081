@testable import Classroom
import Foundation
@testable import OpenClassKit
import TestSupport
import Testing

/// Every page of `clsfile serve`, with a class of students, sessions, pastes, a writing history and
/// its replay, passes axe-core's WCAG 2.1 AA rules in Chromium and works with the keyboard alone.
@Suite(.serialized)
struct AccessibilityTests {
    /// Dan's essay with its writing history, three sessions, the second with a paste, and a
    /// snapshot at each row, for the pictures, the table and the replay.
    static func workWithHistory(for assignment: Assignment) throws -> StudentWork {
        let day = ClassFixture.start.addingTimeInterval(-3 * 86_400)
        let texts = [
            "Rivers\n",
            "Rivers\n\nThe river rises in the hills and runs past the mill.\n",
            "Rivers\n\nThe river rises in the hills and runs past the mill.\nA quotation pasted from my notes on the Severn.\n",
            "Rivers\n\nThe river rises in the hills and runs past the mill.\nA quotation pasted from my notes on the Severn.\nIt reaches the sea at last.\n"
        ]
        var records: [WritingSnapshotRecord] = []
        var previous: [UInt8] = []
        for (index, text) in texts.enumerated() {
            let start = day.addingTimeInterval(Double(max(0, index - 1)) * 86_400)
            let isStart = index == 0
            let end = start.addingTimeInterval(isStart ? 0 : 1_200)
            let entry = WritingHistoryEntry(
                date: end, sessionStart: start, sessionEnd: isStart ? nil : end, activeTime: isStart ? 0 : 900,
                openTime: isStart ? nil : 1_200, words: text.split(whereSeparator: \.isWhitespace).count,
                typedCharacters: isStart ? nil : 60 * index, pastedCharacters: isStart ? nil : (index == 2 ? 48 : 0),
                progress: Double(index) / 4, snapshotSize: text.utf8.count,
                sessionIdentifier: "session-\(max(1, index))", isSessionStart: isStart)
            let content = Array(text.utf8)
            if records.isEmpty {
                records.append(WritingSnapshotRecord(keyframeOf: content, entry: entry))
            } else {
                let delta = ContentDelta(operations: [.copy(offset: 0, count: previous.count), .insert(Array(content[previous.count...]))])
                records.append(
                    WritingSnapshotRecord(
                        entry: entry, delta: delta.encoded(), digest: HistoryTable.digest(of: try delta.applied(to: previous).content),
                        isKeyframe: false))
            }
            previous = content
        }
        var work = StudentWork(
            assignmentIdentifier: assignment.identifier, documentName: "essay.txt", activeSeconds: 2_700,
            sessions: (0..<3).map { index in
                StudentWork.Session(
                    start: day.addingTimeInterval(Double(index) * 86_400), end: day.addingTimeInterval(Double(index) * 86_400 + 1_200))
            },
            progress: 0.75, progressBasis: .targetWords, primaryItem: ClassFixture.quantity("total_word_count", "Word Count", 29),
            additionalItems: [
                ClassFixture.quantity("typed_characters", "Typed Characters", 360),
                ClassFixture.quantity("pasted_characters", "Pasted Characters", 48)
            ],
            completedAt: nil)
        work.history = records.map(\.entry)
        work.snapshots = records
        return work
    }

    @Test func everyDashboardPagePassesAxeAndTheKeyboard() async throws {
        let fixture = try await ClassFixture()
        try await ClassFixture.submit(to: fixture.store(), ClassFixture.dan, try Self.workWithHistory(for: fixture.essay))
        let server = try await fixture.serve()
        let base = server.url
        let essay = "/assignments/\(fixture.essay.identifier)"
        let pages = [
            base,
            DashboardTests.url(base, essay),
            DashboardTests.url(base, "/assignments/\(fixture.lab.identifier)"),
            DashboardTests.url(base, "\(essay)/students/\(ClassFixture.ada.id)"),
            DashboardTests.url(base, "\(essay)/students/\(ClassFixture.bob.id)"),
            DashboardTests.url(base, "\(essay)/students/\(ClassFixture.dan.id)"),
            DashboardTests.url(base, "\(essay)/students/\(ClassFixture.dan.id)/replay?step=1"),
            DashboardTests.url(base, "\(essay)/students/\(ClassFixture.dan.id)/replay?step=3"),
            DashboardTests.url(base, "/assignments/no-such-assignment")
        ]
        // The pages hold what they are checked for: the pictures, their table, the replay, a refusal.
        let student = try await Chromium.dumpDOM(pages[5], in: fixture.scratch.url)
        #expect(
            student.contains("id=\"session-bars\"") && student.contains("id=\"history-table\"") && student.contains("id=\"replay-link\""))
        let replay = try await Chromium.dumpDOM(pages[7], in: fixture.scratch.url)
        #expect(replay.contains("step 3 of 4") && replay.contains("<ins>"), "\(replay)")
        try await AxeCheck.expectNoViolations(pages, in: fixture.scratch.url)
    }
}
