import Foundation
@testable import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// A student's statement of AI use: what a note may hold, how the store keeps it with the
/// assignment and queues it for a class server, and how the server's merge keeps the later one.
@Suite struct AIStatementTests {
    private let teacherKey = Data(repeating: 7, count: 65)

    private func assignment(_ title: String, asking requirement: AIStatement.Requirement? = nil) -> Assignment {
        Assignment(
            identifier: UUID().uuidString.lowercased(), title: title, documentName: "\(title).txt",
            documentDigest: String(repeating: "ab", count: 32), teacherKey: teacherKey, aiStatementRequirement: requirement)
    }

    // MARK: The statement

    @Test func aNoteIsOneParagraphOfAtMostTwoThousandCharacters() throws {
        let longest = String(repeating: "é", count: AIStatement.maximumNoteLength)
        #expect(try AIStatement(use: .editing, note: longest).note == longest)
        #expect(try AIStatement(use: .notUsed, note: "").note == nil, "an empty note is no note")

        let tooLong = #expect(throws: CLSError.self) { try AIStatement(use: .editing, note: longest + "e") }
        #expect(tooLong?.code == .invalidArgument)
        #expect(
            tooLong?.message.contains("2001 characters") == true && tooLong?.message.contains("more than 2000") == true,
            "\(tooLong?.message ?? "")")
        // Few characters, many bytes: one character of 4,000 combining marks (8,001 bytes).
        let heavy = "a" + String(repeating: "\u{301}", count: 4_000)
        #expect(heavy.count == 1)
        #expect(AIStatement.problem(withNote: heavy)?.contains("bytes") == true)

        for control in ["line one\nline two", "a\tb", "bell\u{7}", "escape \u{1B}[2J", "c1 \u{85}"] {
            let refused = #expect(throws: CLSError.self, "\(control.debugDescription)") { try AIStatement(use: .ideas, note: control) }
            #expect(refused?.message.contains("control character") == true)
        }
    }

    @Test func theKindsAreTheFiveTheHandoutNames() {
        #expect(AIStatement.Use.allCases.map(\.rawValue) == ["none", "ideas", "feedback", "editing", "drafting"])
        #expect(AIStatement.Requirement.statement(for: nil) == nil)
        #expect(AIStatement.Requirement.statement(for: .required)?.contains("work without it is not submitted") == true)
        #expect(AIStatement.Requirement.statement(for: .optional)?.contains("it is up to you") == true)
    }

    // MARK: The store

    @Test func theStoreKeepsTheRequirementAndTheLatestAnswerWithTheAssignment() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt")
        let asked = assignment("essay", asking: .required)
        try await store.acceptAssignment(asked, for: essay)
        var held = try #require(try await store.assignment(for: essay))
        #expect(held.aiStatementRequirement == .required && held.aiStatement == nil)

        let first = try AIStatement(
            use: .ideas, note: "Asked for three ways to begin.", statedAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await store.recordAIStatement(first, forAssignment: asked.identifier)
        held = try #require(try await store.assignment(for: essay))
        #expect(held.aiStatement == first)
        let second = try AIStatement(use: .notUsed, statedAt: Date(timeIntervalSince1970: 1_800_000_100))
        try await store.recordAIStatement(second, forAssignment: asked.identifier)
        #expect(try await store.assignments().map(\.aiStatement) == [second], "the one given last replaces it, note and all")

        // A teacher's store records the requirement, never an answer.
        let teacher = CLSDataStore(storeURL: scratch.url.appendingPathComponent("teacher.sqlite"))
        let plain = assignment("poem")
        try await teacher.recordAssignment(asked)
        try await teacher.recordAssignment(plain)
        #expect(
            try await teacher.assignments().map(\.aiStatementRequirement).sorted { ($0?.rawValue ?? "") < ($1?.rawValue ?? "") } == [
                nil, .required
            ])

        // Removing the assignment removes its statement.
        #expect(try await store.removeAssignment(identifier: asked.identifier))
        let left = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, "SELECT count(*) FROM ai_statement"])
        #expect(left.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test func aStatementOnAnAssignmentNotAcceptedIsRefused() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let recorded = assignment("essay")
        try await store.recordAssignment(recorded)
        for identifier in [recorded.identifier, "no-such-assignment"] {
            let error = await #expect(throws: CLSError.self) {
                try await store.recordAIStatement(try AIStatement(use: .notUsed), forAssignment: identifier)
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("no accepted assignment \(identifier)") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aStatementIsQueuedForTheClassAndEverySnapshotCarriesIt() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt")
        let asked = assignment("essay", asking: .optional)
        try await store.acceptAssignment(asked, for: essay)
        try await store.fetchActivity(for: essay).progress = 0.3
        try await store.save()
        // Whole seconds, which the store's REAL column and a Date keep alike.
        let statement = try AIStatement(
            use: .feedback, note: "A chatbot found two run-on sentences.", statedAt: Date(timeIntervalSince1970: 1_790_000_000))
        // No class joined: kept in the store, queued for nobody.
        try await store.recordAIStatement(statement, forAssignment: asked.identifier)
        #expect(try await store.syncOutboxDepth() == 0)

        // Joining sends the work so far, the statement with it.
        let membership = ClassServerMembership(
            serverURL: URL(string: "https://class.example.org")!, accountID: UUID(), classID: UUID(), className: "7B",
            teacherKey: teacherKey)
        #expect(try await store.joinClassServer(membership) == 1)
        var waiting = try await store.pendingSyncOperations(limit: 10)
        #expect(waiting.map(\.operation.replacesWork) == [true])
        #expect(waiting.first?.operation.aiStatement == SyncOperation.AIStatementRecord(statement))
        #expect(waiting.first?.operation.assignment.aiStatement == "optional")
        try await store.acknowledgeSyncOperations(waiting.map(\.sequence))

        // A save carries no statement; a new one goes in an operation of its own.
        try await store.fetchActivity(for: essay).progress = 0.6
        try await store.save()
        let changed = try AIStatement(use: .editing, statedAt: Date(timeIntervalSince1970: 1_790_000_100))
        try await store.recordAIStatement(changed, forAssignment: asked.identifier)
        waiting = try await store.pendingSyncOperations(limit: 10)
        #expect(waiting.map { $0.operation.aiStatement?.use } == [nil, "editing"])
        #expect(waiting.last?.operation.aiStatement?.statement == changed)
    }

    // MARK: The server's merge

    private func operation(at madeAt: Double, attempt: Int = 1, stating use: String? = nil, at statedAt: Double = 0) -> SyncOperation {
        var operation = SyncOperation(
            assignmentIdentifier: "a", attempt: attempt, madeAt: madeAt, assignment: .init(title: "A", documentName: "a.txt"))
        operation.aiStatement = use.map { SyncOperation.AIStatementRecord(use: $0, statedAt: statedAt) }
        return operation
    }

    @Test func theLaterStatementStandsInWhateverOrderItComesAndOutlivesANewStart() {
        let ideas = operation(at: 1_800_000_010, stating: "ideas", at: 1_800_000_010)
        let drafting = operation(at: 1_800_000_020, stating: "drafting", at: 1_800_000_020)
        for order in [[ideas, drafting], [drafting, ideas]] {
            var work = WorkState(startingWith: order[0])
            work.apply(contentsOf: order)
            #expect(work.aiStatement?.use == "drafting")
        }
        var work = WorkState(startingWith: ideas)
        work.apply(contentsOf: [ideas, operation(at: 1_800_000_030)])
        #expect(work.aiStatement?.use == "ideas", "an operation without a statement leaves it")

        // A snapshot or a new attempt starts the work again; the statement is the assignment's.
        var snapshot = operation(at: 1_800_000_040)
        snapshot.replacesWork = true
        work.apply(contentsOf: [snapshot, operation(at: 1_800_000_050, attempt: 2)])
        #expect(work.attempt == 2 && work.aiStatement?.use == "ideas")
        // An operation of an earlier attempt changes no work, but its later statement stands.
        work.apply(operation(at: 1_800_000_060, attempt: 1, stating: "feedback", at: 1_800_000_060))
        #expect(work.attempt == 2 && work.aiStatement?.use == "feedback")

        let encoded = try? JSONEncoder().encode(work)
        #expect(encoded.flatMap { try? JSONDecoder().decode(WorkState.self, from: $0) } == work)
        let old =
            #"{"assignmentIdentifier":"a","assignment":{"title":"A","documentName":"a.txt"},"attempt":1,"spans":[],"ranges":[],"items":[],"updatedAt":1}"#
        #expect(
            (try? JSONDecoder().decode(WorkState.self, from: Data(old.utf8)))?.aiStatement == nil, "work stored before statements reads")
    }
}
