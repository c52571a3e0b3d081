import Foundation
import OpenClassKit
import Testing
import TestSupport
@testable import Classroom

/// The statement of AI use inside a student's work: sealed and signed with it, checked when
/// collected, and written into the xAPI statements that sum the work up.
struct AIStatementWorkTests {
    let teacher = Identity()
    let student = Identity()
    let assignment: Assignment
    let work: StudentWork
    let file = URL(fileURLWithPath: "/inbox/ada.clssubmission")
    /// Whole seconds, as the file's ISO 8601 dates keep them.
    static let stated = Date(timeIntervalSince1970: 1_760_000_000)

    init() throws {
        assignment = Assignment(
            identifier: "essay-1", title: "Essay", documentName: "essay.txt", documentDigest: "00",
            teacherKey: teacher.recipientPublicKey, aiStatementRequirement: .required)
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
        var work = StudentWork(
            assignmentIdentifier: "essay-1", documentName: "essay.txt", activeSeconds: 600,
            sessions: [.init(start: start, end: start.addingTimeInterval(600))], progress: 0.5,
            primaryItem: .init(kind: "quantity", identifier: "total_word_count", title: "Word Count", value: 120),
            additionalItems: [], completedAt: start.addingTimeInterval(600))
        work.aiStatement = try AIStatement(
            use: .drafting, note: "It drafted my second paragraph; I rewrote half of it.", statedAt: Self.stated)
        self.work = work
    }

    @Test func theStatementIsSealedWithTheWorkAndOpensAsItWasGiven() throws {
        let sealed = try SubmissionFile(work: work, handout: assignment, student: "ada-account", studentName: "Ada", identity: student)
        let opened = try sealed.openWork(with: assignment, teacher: teacher, file: file).work
        #expect(opened.aiStatement == work.aiStatement)
        try opened.validate(file: file)
        // The header, which anyone can read, says nothing of it.
        let header = String(decoding: try JSONCoding.encoder.encode(sealed), as: UTF8.self)
        #expect(!header.contains("drafting") && !header.contains("aiStatement"))
    }

    /// Anyone holding the handout can encrypt work to the teacher; only the student can sign it.
    @Test func aStatementChangedInsideASealedSubmissionFailsVerification() throws {
        let sealed = try SubmissionFile(work: work, handout: assignment, student: "ada-account", studentName: "Ada", identity: student)
        var milder = work
        milder.aiStatement = try AIStatement(use: .notUsed, statedAt: Self.stated)
        let resealed = try SubmissionFile(
            work: milder, handout: assignment, student: "ada-account", studentName: "Ada", identity: Identity(),
            submittedAt: sealed.submittedAt)
        var tampered = sealed
        tampered.encapsulatedKey = resealed.encapsulatedKey
        tampered.sealed = resealed.sealed
        let error = #expect(throws: ClassroomError.self) { try tampered.openWork(with: assignment, teacher: teacher, file: file) }
        #expect(error?.code == .damagedFile)
        #expect(error?.message.contains("was changed or damaged after the student signed it") == true, "\(error?.message ?? "")")
        // Signed as well by the one who changed it, it names another key: the teacher's pin catches that.
        #expect(resealed.studentKey != sealed.studentKey)
    }

    /// A changed clsfile could seal any statement; the teacher's checks refuse what no clsfile writes.
    @Test(arguments: [
        (#""note":"line one\nline two""#, "control character"),
        (#""note":"\#(String(repeating: "x", count: 2_001))""#, "more than 2000"),
        (#""statedAt":"2090-01-01T00:00:00Z""#, "not between 2000 and now")
    ])
    func aSealedStatementOutOfBoundsIsRefusedAtCollect(field: String, problem: String) throws {
        let fields = [#""use":"ideas""#, #""note":"fine""#, #""statedAt":"2025-11-01T00:00:00Z""#]
        let key = field.prefix { $0 != ":" }
        let json = "{" + fields.map { $0.hasPrefix(key) ? field : $0 }.joined(separator: ",") + "}"
        var changed = work
        changed.aiStatement = try JSONCoding.decoder.decode(AIStatement.self, from: Data(json.utf8))
        let sealed = try SubmissionFile(work: changed, handout: assignment, student: "ada-account", studentName: "Ada", identity: student)
        let opened = try sealed.openWork(with: assignment, teacher: teacher, file: file).work
        let error = #expect(throws: ClassroomError.self) { try opened.validate(file: file) }
        #expect(error?.code == .invalidValue)
        #expect(
            error?.message.contains("statement of AI use") == true && error?.message.contains(problem) == true, "\(error?.message ?? "")")
    }

    @Test func theReportSaysWhetherTheHandoutAsksAndShowsWhatEachStudentSaid() {
        var silent = work
        silent.aiStatement = nil
        let rows = [
            ClassReport.StudentRow(studentIdentifier: "ada", studentName: "Ada", submittedAt: Self.stated, work: work),
            ClassReport.StudentRow(studentIdentifier: "bob", studentName: "Bob", submittedAt: Self.stated, work: silent)
        ]
        let summary = ClassReport.summary(of: assignment, rows: rows)
        #expect(summary.aiStatementRequirement == .required && summary.showsAIStatements)
        var unasked = assignment
        unasked.aiStatementRequirement = nil
        #expect(ClassReport.summary(of: unasked, rows: rows).showsAIStatements, "a student may say it unasked")
        #expect(!ClassReport.summary(of: unasked, rows: [rows[1]]).showsAIStatements)
    }

    // MARK: xAPI

    @Test func theStatementIsInTheContextOfProgressedAndCompletedOnly() throws {
        let builder = XAPIStatementBuilder()
        let statements = builder.statements(actor: "5d0f7c1e", assignment: assignment, work: work, readAt: Date())
        let data = try XAPIStatement.jsonArray(statements)
        #expect(XAPIValidator.problems(inExport: data) == [])
        for statement in statements {
            let extensions = statement.context.extensions ?? [:]
            switch statement.verb.id {
            case XAPIStatementBuilder.Verb.progressed.iri, XAPIStatementBuilder.Verb.completed.iri:
                #expect(extensions[XAPIStatementBuilder.aiUseExtension] == "drafting", "\(statement.verb.id)")
                #expect(extensions[XAPIStatementBuilder.aiUseNoteExtension] == work.aiStatement?.note)
            default:
                #expect(
                    extensions[XAPIStatementBuilder.aiUseExtension] == nil && extensions[XAPIStatementBuilder.aiUseNoteExtension] == nil)
            }
        }
        #expect(Set(statements.map(\.verb.id)).count == 4)

        // Without a note, the kind alone; without a statement, the statements of before, and
        // the ones that changed get new ids.
        var kindOnly = work
        kindOnly.aiStatement = try AIStatement(use: .notUsed, statedAt: Self.stated)
        let plain = builder.statements(actor: "5d0f7c1e", assignment: assignment, work: kindOnly, readAt: Date())
        #expect(plain.compactMap { $0.context.extensions?[XAPIStatementBuilder.aiUseExtension] } == ["none", "none"])
        #expect(plain.allSatisfy { $0.context.extensions?[XAPIStatementBuilder.aiUseNoteExtension] == nil })
        var none = work
        none.aiStatement = nil
        let before = builder.statements(actor: "5d0f7c1e", assignment: assignment, work: none, readAt: Date())
        #expect(before.allSatisfy { ($0.context.extensions ?? [:]).keys.allSatisfy { !$0.contains("ai-use") } })
        let changedIDs = Set(statements.map(\.id)).subtracting(before.map(\.id))
        #expect(changedIDs.count == 2, "progressed and completed: \(changedIDs)")
    }
}
