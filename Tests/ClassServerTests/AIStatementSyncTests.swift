@testable import ClassServer
import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// The statement of AI use over a class server: `clsfile done --ai-use` records it, the sync
/// carries it, the server's report (and the teacher's `class-report --server`) shows it, and the
/// later statement stands.
@Suite(.serialized)
struct AIStatementSyncTests {
    @Test func aStatementRecordedWithDoneReachesTheServersReportAndTheLaterOneStands() async throws {
        let room = try await SyncTests.Classroom()
        // A second handout, which asks for a statement, registered with the class.
        let reflection = room.shared.appendingPathComponent("reflection.md")
        try Data("# What I learned\n".utf8).write(to: reflection)
        try room.teacher.clsfile(
            "assign", reflection.path, "--title", "Reflection", "--ai-statement", "required", "--server", room.server.url.absoluteString)
        let (ada, _) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let copy = try room.copy("reflection.md", from: room.shared, for: ada)
        let accepted = try ada.clsfile("accept", copy.path + ".clshandout")
        #expect(accepted.output.contains("asks you to say how you used AI tools"), "\(accepted.output)")

        let note = "I asked a chatbot what a reflection should cover, then wrote it myself."
        var lock: SyncLock? = try SyncTests.holdSyncLock(of: ada)
        let done = try ada.clsfile("done", copy.path, "--ai-use", "ideas", "--ai-note", note)
        #expect(done.output.contains("AI use: AI for ideas"), "\(done.output)")
        lock = nil
        try ada.clsfile("sync")
        #expect(try await ada.store(.student).syncOutboxDepth() == 0)

        var report = try await room.report()
        let summary = try #require(report.assignments.first { $0.title == "Reflection" })
        #expect(summary.aiStatementRequirement == .required, "as the teacher registered it")
        let row = try #require(summary.students.first)
        #expect(row.work.aiStatement?.use == .ideas && row.work.aiStatement?.note == note)
        #expect(
            row.work == (try await SyncTests.ownWork(of: ada, essay: copy)), "the server's work is the student's own, statement and all")
        let essaySummary = try #require(report.assignments.first { $0.title == "Essay on rivers" })
        #expect(essaySummary.aiStatementRequirement == nil && !essaySummary.showsAIStatements)

        // The teacher's terminal report reads it from the server.
        let text = try room.teacher.clsfile("class-report", "--server", room.server.url.absoluteString, "Reflection").output
        #expect(text.contains("AI statement required") && text.contains("AI USE") && text.contains("ideas"), "\(text)")

        // A later statement replaces it, note and all; saying it again changes nothing.
        lock = try SyncTests.holdSyncLock(of: ada)
        try ada.clsfile("done", copy.path, "--ai-use", "none")
        lock = nil
        try ada.clsfile("sync")
        report = try await room.report()
        let later = try #require(report.assignments.first { $0.title == "Reflection" }?.students.first?.work.aiStatement)
        #expect(later.use == .notUsed && later.note == nil)
        withExtendedLifetime(lock) {}
    }
}

/// What the server refuses in a statement before anything is applied.
struct AIStatementOperationCheckTests {
    static func operation(use: String, note: String? = nil, statedAt: Double = Date().timeIntervalSince1970 - 60) -> SyncOperation {
        var operation = SyncOperation(
            assignmentIdentifier: "essay", attempt: 1, madeAt: Date().timeIntervalSince1970 - 60,
            assignment: .init(title: "Essay", documentName: "essay.md"))
        operation.aiStatement = .init(use: use, note: note, statedAt: statedAt)
        return operation
    }

    @Test func aGoodStatementPasses() throws {
        try OperationCheck.check([Self.operation(use: "drafting", note: "It wrote my first draft; I rewrote it.")])
    }

    @Test(arguments: [
        (Self.operation(use: "cheating"), "unknown kind 'cheating'", ServerError.Code.invalidValue),
        (Self.operation(use: "ideas", note: String(repeating: "n", count: 2_001)), "more than 2000", .tooLarge),
        (Self.operation(use: "ideas", note: "two\u{0}lines"), "control character", .invalidValue),
        (Self.operation(use: "ideas", note: "bell\u{7}"), "control character", .invalidValue),
        (Self.operation(use: "ideas", statedAt: Date().timeIntervalSince1970 + 86_400), "not a date between 2000 and now", .invalidValue)
    ])
    func aBadStatementIsRefused(operation: SyncOperation, saying text: String, code: ServerError.Code) {
        let error = #expect(throws: ServerError.self) { try OperationCheck.check([operation]) }
        #expect(error?.code == code)
        #expect(error?.message.contains(text) == true, "\(error?.message ?? "")")
    }

    @Test func aHandoutAskingForAnUnknownRequirementIsRefused() {
        var info = SyncOperation.AssignmentInfo(title: "Essay", documentName: "essay.md")
        info.aiStatement = "sometimes"
        var operation = Self.operation(use: "none")
        operation.assignment = info
        let error = #expect(throws: ServerError.self) { try OperationCheck.check([operation]) }
        #expect(error?.message.contains("AI statement requirement 'sometimes'") == true, "\(error?.message ?? "")")
    }
}
