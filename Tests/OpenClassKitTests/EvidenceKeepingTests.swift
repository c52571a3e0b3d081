import Foundation
@testable import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// How long a handout keeps process evidence, as the store records it, and a student's
/// withdrawal of the evidence not yet sent: what waits in the outbox is dropped, no more is
/// queued, the class is told, and taking it back sends the whole history again.
@Suite struct EvidenceKeepingTests {
    private let teacherKey = Data(repeating: 7, count: 65)

    private func assignment(_ title: String, evidence: ProcessEvidence? = .replay, keeping days: Int? = nil) -> Assignment {
        Assignment(
            identifier: UUID().uuidString.lowercased(), title: title, documentName: "\(title).txt",
            documentDigest: String(repeating: "ab", count: 32), teacherKey: teacherKey, processEvidence: evidence,
            keptEvidenceDays: days)
    }

    /// Sessions of a minute, each adding a line to the file and ending before now.
    private func write(_ sessions: Int, to file: URL, in store: CLSDataStore) async throws {
        var text = try String(contentsOf: file, encoding: .utf8)
        for index in 0..<sessions {
            text += "Line \(index): the river runs past the mill and on to the sea.\n"
            try Data(text.utf8).write(to: file)
            let activity = try await store.fetchActivity(for: file)
            let end = Date().addingTimeInterval(-Double(sessions - index) * 600)
            activity.start(at: end.addingTimeInterval(-60), continuingWithin: 0)
            activity.stop(at: end, idleTimeout: nil)
            try await store.save()
        }
    }

    @Test func theHandoutsDaysAreKeptWithTheAssignmentAndTheDefaultIsOneHundredEighty() async throws {
        let scratch = try Scratch()
        let teacher = scratch.store()
        let kept = assignment("essay", keeping: 45), unsaid = assignment("poem")
        try await teacher.recordAssignment(kept)
        try await teacher.recordAssignment(unsaid)
        let held = Dictionary(uniqueKeysWithValues: try await teacher.assignments().map { ($0.identifier, $0) })
        #expect(held[kept.identifier]?.keptEvidenceDays == 45 && held[kept.identifier]?.evidenceKeptDays == 45)
        #expect(held[unsaid.identifier]?.keptEvidenceDays == nil && held[unsaid.identifier]?.evidenceKeptDays == 180)
        #expect(ProcessEvidence.defaultKeptDays == 180)

        for days in [0, -3, ProcessEvidence.maximumKeptDays + 1] {
            let error = await #expect(throws: CLSError.self) { try await teacher.recordAssignment(assignment("bad", keeping: days)) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("\(days) days, not between 1 and 36600") == true, "\(error?.message ?? "")")
        }
        #expect(try await teacher.assignments().count == 2, "a refused assignment leaves nothing")
        #expect(
            ProcessEvidence.keepingStatement(days: 45, withdrawnAt: nil, assignment: "1f3c9a2b-0000").contains(
                "keep it 45 days after your work last changed"))
        #expect(
            ProcessEvidence.keepingStatement(days: 45, withdrawnAt: nil, assignment: "1f3c9a2b-0000").contains(
                "`clsfile evidence 1f3c9a2b --withdraw` keeps it here"))
        #expect(ProcessEvidence.keepingStatement(days: 1, withdrawnAt: nil, assignment: "1f3c9a2b-0000").contains("keep it 1 day after"))
    }

    @Test func aWithdrawalDropsTheHistoryWaitingQueuesNoMoreAndTellsTheClass() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt", "")
        let asked = assignment("essay")
        try await store.acceptAssignment(asked, for: essay)
        let membership = ClassServerMembership(
            serverURL: URL(string: "https://class.example.org")!, accountID: UUID(), classID: UUID(), className: "7B",
            teacherKey: teacherKey)
        _ = try await store.joinClassServer(membership)
        try await write(2, to: essay, in: store)
        let before = try await store.pendingSyncOperations(limit: 500).map(\.operation)
        let rowsBefore = before.flatMap { $0.historyRows ?? [] }
        #expect(rowsBefore.count >= 2 && rowsBefore.allSatisfy { $0.snapshot != nil }, "the rows and their snapshots wait to go")

        let withdrawn = Date(timeIntervalSince1970: 1_800_000_000)
        let dropped = try await store.withdrawEvidence(ofAssignment: asked.identifier, at: withdrawn)
        #expect(dropped == before.filter { $0.historyRows != nil || $0.removedHistoryRows != nil }.count && dropped > 0)
        var waiting = try await store.pendingSyncOperations(limit: 500).map(\.operation)
        #expect(waiting.allSatisfy { $0.historyRows == nil && $0.removedHistoryRows == nil })
        #expect(waiting.filter { $0.evidenceWithdrawnAt == withdrawn.timeIntervalSince1970 }.count == 1, "the class is told once")
        #expect(waiting.count == before.count - dropped + 1, "the figures still go")
        #expect(try await store.assignment(for: essay)?.evidenceWithdrawnAt == withdrawn)

        // Later sessions queue their figures and no history; withdrawing again keeps the first date.
        try await write(1, to: essay, in: store)
        waiting = try await store.pendingSyncOperations(limit: 500).map(\.operation)
        #expect(waiting.count > before.count - dropped + 1 && waiting.allSatisfy { $0.historyRows == nil })
        #expect(try await store.withdrawEvidence(ofAssignment: asked.identifier, at: withdrawn.addingTimeInterval(60)) == 0)
        #expect(try await store.assignment(for: essay)?.evidenceWithdrawnAt == withdrawn)

        // Taken back: a snapshot of the work, then every row the store holds, with its snapshot.
        #expect(try await store.restoreEvidence(ofAssignment: asked.identifier))
        #expect(try await store.assignment(for: essay)?.evidenceWithdrawnAt == nil)
        waiting = try await store.pendingSyncOperations(limit: 500).map(\.operation)
        let snapshot = try #require(waiting.lastIndex { $0.replacesWork })
        let restored = waiting[snapshot...]
        #expect(restored.first?.evidenceWithdrawnAt == nil)
        let held = try await store.writingHistory(for: essay).entries
        #expect(restored.flatMap { $0.historyRows ?? [] }.map(\.entry) == held && held.count >= 3)
        #expect(try await store.restoreEvidence(ofAssignment: asked.identifier) == false, "not withdrawn: nothing changes")
    }

    @Test func withdrawingNeedsAnAcceptedAssignment() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorded = assignment("essay")
        try await store.recordAssignment(recorded)
        for identifier in [recorded.identifier, "no-such-assignment"] {
            let error = await #expect(throws: CLSError.self) { try await store.withdrawEvidence(ofAssignment: identifier) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("no accepted assignment \(identifier)") == true, "\(error?.message ?? "")")
        }
    }

    @Test func theServersMergeKeepsTheFirstWithdrawalUntilASnapshotSaysOtherwise() {
        let info = SyncOperation.AssignmentInfo(title: "Essay", documentName: "essay.txt", processEvidence: .figures)
        func operation(withdrawnAt date: Double?, replacing: Bool = false) -> SyncOperation {
            var operation = SyncOperation(assignmentIdentifier: "essay", attempt: 1, madeAt: 1_800_000_000, assignment: info)
            operation.evidenceWithdrawnAt = date
            operation.replacesWork = replacing
            return operation
        }
        var work = WorkState(startingWith: operation(withdrawnAt: nil))
        work.apply(contentsOf: [operation(withdrawnAt: 1_800_000_100), operation(withdrawnAt: nil), operation(withdrawnAt: 1_800_000_200)])
        #expect(work.evidenceWithdrawnAt == 1_800_000_100)
        work.apply(operation(withdrawnAt: nil, replacing: true))
        #expect(work.evidenceWithdrawnAt == nil, "a snapshot without it is the student taking it back")
    }
}
