import Foundation
import OpenClassKit
import Testing
import TestSupport
@testable import Classroom

struct XAPIStatementBuilderTests {
    static let account = "5d0f7c1e-2b1a-4c3d-9e8f-0a1b2c3d4e5f"
    /// 2025-03-01T09:30:05Z, with a fraction that must be cut.
    static let t0 = Date(timeIntervalSince1970: 1_740_821_405.75)

    static func work(
        progress: Double = 0.42, words: Double? = 412, done: Date? = nil,
        sessions: [(Double, Double)] = [(0, 1800), (3600, 5400.5)]
    ) -> StudentWork {
        StudentWork(
            assignmentIdentifier: "a1b2c3d4-0000-4000-8000-000000000001", documentName: "essay.txt",
            activeSeconds: sessions.map { $0.1 - $0.0 }.reduce(0, +),
            sessions: sessions.map { .init(start: t0.addingTimeInterval($0.0), end: t0.addingTimeInterval($0.1)) },
            progress: progress,
            primaryItem: words.map { StudentWork.Item(kind: "quantity", identifier: "total_word_count", title: "Word Count", value: $0) },
            additionalItems: [], completedAt: done)
    }

    static func export(
        _ work: StudentWork, readAt: Date = t0.addingTimeInterval(86_400),
        configuration: XAPIStatementBuilder.Configuration = .init()
    ) throws -> (statements: [XAPIStatement], data: Data) {
        let statements = XAPIStatementBuilder(configuration: configuration)
            .statements(actor: account, title: "Essay on rivers", work: work, readAt: readAt)
        return (statements, try XAPIStatement.jsonArray(statements))
    }

    // MARK: Formats

    @Test(arguments: [
        (3723.5, "PT1H2M3.5S"), (0, "PT0S"), (45, "PT45S"), (3600, "PT1H"), (60.25, "PT1M0.25S"),
        (0.29, "PT0.29S"), (90_000, "PT25H"), (59.999, "PT59.99S"), (-3, "PT0S"), (.nan, "PT0S"), (.infinity, "PT0S"),
        (1e17, "PT27777777777777H")
    ])
    func durationsAreISO8601ToTheHundredth(seconds: Double, expected: String) {
        #expect(XAPIFormat.duration(seconds: seconds) == expected)
    }

    @Test func timestampsAreUTCCutToTheSecond() {
        #expect(XAPIFormat.timestamp(Self.t0) == "2025-03-01T09:30:05Z")
        #expect(XAPIFormat.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(XAPIFormat.timestamp(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
    }

    @Test func nameBasedUUIDsAreRFC4122Version5() {
        let dns: [UInt8] = [0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        // The published value of uuid5(NAMESPACE_DNS, "python.org").
        #expect(NameBasedUUID.version5("python.org", namespace: dns) == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
        #expect(NameBasedUUID.version5("x") == NameBasedUUID.version5("x"))
        #expect(NameBasedUUID.version5("x") != NameBasedUUID.version5("y"))
    }

    // MARK: Statements

    @Test func aDoneWorkGivesTheCmi5SequenceAndPassesTheValidator() throws {
        let done = Self.t0.addingTimeInterval(5000)
        let (statements, data) = try Self.export(Self.work(done: done))
        #expect(XAPIValidator.problems(inExport: data) == [])
        #expect(
            statements.map(\.verb.display["en-US"]) == ["initialized", "terminated", "initialized", "completed", "progressed", "terminated"]
        )
        #expect(
            statements.map(\.timestamp) == [
                "2025-03-01T09:30:05Z", "2025-03-01T10:00:05Z", "2025-03-01T10:30:05Z",
                "2025-03-01T10:53:25Z", "2025-03-01T11:00:06Z", "2025-03-01T11:00:06Z"
            ])
        #expect(statements[1].result?.duration == "PT30M")
        #expect(statements[5].result?.duration == "PT30M1S", "times are cut to the second before the length is taken")
        let completed = statements[3]
        #expect(completed.result?.completion == true)
        #expect(completed.result?.duration == "PT53M20S", "the active time up to when it was marked done")
        let progressed = statements[4]
        #expect(progressed.result?.extensions == [XAPIStatementBuilder.progressExtension: 42, XAPIStatementBuilder.wordCountExtension: 412])
        #expect(progressed.verb.id == "http://adlnet.gov/expapi/verbs/progressed")
        #expect(Set(statements.map(\.context.registration)).count == 1)
        #expect(statements.allSatisfy { $0.object.id == "https://clsfile.invalid/xapi/assignments/a1b2c3d4-0000-4000-8000-000000000001" })
        #expect(statements[0].context.extensions == statements[1].context.extensions)
        #expect(statements[0].context.extensions != statements[2].context.extensions)
    }

    @Test func theCompletedDurationIsTheActiveTimeAndNoPauseCounts() throws {
        func completed(
            _ sessions: [(start: Double, end: Double, active: Double)], inAll total: Double? = nil, doneAt done: Double
        ) throws -> XAPIStatement? {
            let work = StudentWork(
                assignmentIdentifier: "a1b2c3d4-0000-4000-8000-000000000001", documentName: "essay.txt",
                activeSeconds: total ?? sessions.map(\.active).reduce(0, +),
                sessions: sessions.map {
                    .init(start: Self.t0.addingTimeInterval($0.start), end: Self.t0.addingTimeInterval($0.end), activeSeconds: $0.active)
                },
                progress: 0.5, primaryItem: nil, additionalItems: [], completedAt: Self.t0.addingTimeInterval(done))
            return try Self.export(work).statements.first { $0.verb.id.hasSuffix("/completed") }
        }
        // An hour open with a 40-minute pause past the idle timeout, marked done after it.
        let afterAPause = try completed([(0, 3600, 1200)], doneAt: 4000)
        #expect(afterAPause?.result?.duration == "PT20M", "the work's active time, as the class report shows it")
        let statements = try Self.export(
            StudentWork(
                assignmentIdentifier: "a1", documentName: "essay.txt", activeSeconds: 1200,
                sessions: [.init(start: Self.t0, end: Self.t0.addingTimeInterval(3600), activeSeconds: 1200)],
                progress: 0, primaryItem: nil, additionalItems: [], completedAt: nil)
        ).statements
        #expect(
            statements.first { $0.verb.id.hasSuffix("/terminated") }?.result?.duration == "PT1H",
            "a session's own statement keeps its length, as cmi5's session time")
        // Marked done during a session: its active time counts up to then at most.
        #expect(try completed([(0, 1800, 1800), (3600, 7200, 600)], doneAt: 4000)?.result?.duration == "PT36M40S")
        #expect(try completed([(0, 1800, 1800), (3600, 7200, 600)], doneAt: 3700)?.result?.duration == "PT31M40S")
        // Sessions of two devices at once never count more than the work's whole.
        #expect(try completed([(0, 1800, 1800), (0.4, 1800, 1800)], inAll: 1800, doneAt: 1700)?.result?.duration == "PT30M")
    }

    @Test func workNotDoneHasNoCompletedStatement() throws {
        let (statements, data) = try Self.export(Self.work())
        #expect(XAPIValidator.problems(inExport: data) == [])
        #expect(!statements.contains { $0.verb.id.hasSuffix("/completed") })
        #expect(statements.filter { $0.verb.id.hasSuffix("/progressed") }.count == 1)
    }

    @Test func workNeverOpenedGivesOnlyWhatWasDone() throws {
        #expect(try Self.export(Self.work(sessions: [])).statements.isEmpty)
        let done = try Self.export(Self.work(done: Self.t0, sessions: []))
        #expect(done.statements.map(\.verb.display["en-US"]) == ["completed"])
        #expect(done.statements[0].result?.duration == "PT0S")
        #expect(XAPIValidator.problems(inExport: done.data) == [])
    }

    @Test(arguments: [(0.0, 0), (0.29, 29), (0.999, 99), (1.0, 100), (1.7, 100), (-0.2, 0)])
    func progressIsAWholePercentCutDown(progress: Double, percent: Int) throws {
        let statements = try Self.export(Self.work(progress: progress)).statements
        let progressed = try #require(statements.first { $0.verb.id.hasSuffix("/progressed") })
        #expect(progressed.result?.extensions?[XAPIStatementBuilder.progressExtension] == percent)
    }

    @Test func onlyAWordCountItemBecomesTheWordCount() throws {
        var work = Self.work(words: nil)
        #expect(
            try Self.export(work).statements.contains { $0.result?.extensions?[XAPIStatementBuilder.wordCountExtension] != nil } == false)
        work.primaryItem = StudentWork.Item(kind: "score", identifier: "total_word_count", title: "Grade", value: 7, maxScore: 10)
        #expect(
            try Self.export(work).statements.contains { $0.result?.extensions?[XAPIStatementBuilder.wordCountExtension] != nil } == false)
    }

    @Test func aRunningSessionIsInitializedButNotTerminated() throws {
        let work = Self.work(sessions: [(0, 1800), (3600, 7200)])
        let (statements, data) = try Self.export(work, readAt: Self.t0.addingTimeInterval(7000))
        #expect(XAPIValidator.problems(inExport: data) == [])
        #expect(statements.map(\.verb.display["en-US"]) == ["initialized", "terminated", "initialized", "progressed"])
        #expect(statements[3].timestamp == statements[2].timestamp, "progress is measured when the running session started")
    }

    @Test func exportingTwiceGivesTheSameBytesAndUniqueIds() throws {
        let work = Self.work(done: Self.t0.addingTimeInterval(5000))
        let first = try Self.export(work), second = try Self.export(work)
        #expect(first.data == second.data)
        #expect(Set(first.statements.map(\.id)).count == first.statements.count)
    }

    @Test func changedWorkGetsNewIdsOnlyWhereItChanged() throws {
        let before = try Self.export(Self.work()).statements
        let after = try Self.export(Self.work(progress: 0.5)).statements
        #expect(before.count == after.count)
        for (old, new) in zip(before, after) {
            if old.verb.id.hasSuffix("/progressed") { #expect(old.id != new.id) } else { #expect(old == new) }
        }
    }

    @Test func theActorIsAnAccountOnTheConfiguredHomePage() throws {
        let (statements, data) = try Self.export(Self.work(), configuration: .init(homePage: "https://school.example"))
        #expect(statements.allSatisfy { $0.actor == .init(account: .init(homePage: "https://school.example", name: Self.account)) })
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("mbox") && !text.contains("essay.txt"))
        let other = try Self.export(Self.work()).statements
        #expect(other[0].id != statements[0].id, "another actor makes other statements")
    }

    /// What the teacher reads back from a submission (dates cut to the second by the file) gives
    /// the statements the student exported.
    @Test func theTeachersExportOfASubmissionIsTheStudentsExport() throws {
        let work = Self.work(done: Self.t0.addingTimeInterval(5000))
        let submittedAt = Self.t0.addingTimeInterval(6000)
        let student = XAPIStatementBuilder().statements(actor: Self.account, title: "Essay on rivers", work: work, readAt: submittedAt)
        let reread = try JSONCoding.decoder.decode(StudentWork.self, from: try JSONCoding.encoder.encode(work))
        #expect(reread != work, "the fixture has fractions of seconds that a submission drops")
        let row = ClassReport.StudentRow(
            studentIdentifier: Self.account, studentName: "Ada Lovelace",
            submittedAt: Date(timeIntervalSince1970: submittedAt.timeIntervalSince1970.rounded(.down)), work: reread)
        let assignment = Assignment(
            identifier: work.assignmentIdentifier, title: "Essay on rivers", documentName: "essay.txt",
            documentDigest: "", teacherKey: Data(count: 32))
        let report = ClassReport(assignments: [ClassReport.summary(of: assignment, rows: [row])])
        let teacher = XAPIStatementBuilder().statements(for: report)
        #expect(teacher == student)
        #expect(!String(decoding: try XAPIStatement.jsonArray(teacher), as: UTF8.self).contains("Ada"))
    }

    @Test func aSessionRunningWhenSubmittedHasNoTerminatedInTheTeachersExport() throws {
        let work = Self.work(sessions: [(0, 1800), (3600, 6000)])
        let row = ClassReport.StudentRow(
            studentIdentifier: Self.account, studentName: "Ada", submittedAt: Self.t0.addingTimeInterval(6000), work: work)
        let assignment = Assignment(
            identifier: work.assignmentIdentifier, title: "T", documentName: "essay.txt",
            documentDigest: "", teacherKey: Data(count: 32))
        let statements = XAPIStatementBuilder().statements(
            for: ClassReport(assignments: [ClassReport.summary(of: assignment, rows: [row])]))
        #expect(statements.filter { $0.verb.id.hasSuffix("/terminated") }.count == 1)
    }

    @Test func aSessionClosedInTheSecondOfTheSubmissionWaitsForTheNextOne() throws {
        let work = Self.work(sessions: [(0, 1800)])
        let assignment = Assignment(
            identifier: work.assignmentIdentifier, title: "T", documentName: "essay.txt",
            documentDigest: "", teacherKey: Data(count: 32))
        func terminated(submittedAfter seconds: Double) -> Int {
            let submittedAt = Date(timeIntervalSince1970: Self.t0.addingTimeInterval(seconds).timeIntervalSince1970.rounded(.down))
            let row = ClassReport.StudentRow(studentIdentifier: Self.account, studentName: "Ada", submittedAt: submittedAt, work: work)
            return XAPIStatementBuilder().statements(for: ClassReport(assignments: [ClassReport.summary(of: assignment, rows: [row])]))
                .filter { $0.verb.id.hasSuffix("/terminated") }.count
        }
        #expect(terminated(submittedAfter: 1800.2) == 0)
        #expect(terminated(submittedAfter: 1801) == 1)
    }

    @Test func markedSessionsNeedNoGuessAboutTheSecondOfTheSubmission() throws {
        let assignment = Assignment(
            identifier: Self.work().assignmentIdentifier, title: "T", documentName: "essay.txt",
            documentDigest: "", teacherKey: Data(count: 32))
        func terminated(running: Bool) -> Int {
            var work = Self.work(sessions: [(0, 1800)])
            work.sessions[0].isRunning = running
            // Submitted in the very second the session ended (or was read, while running).
            let submittedAt = Self.t0.addingTimeInterval(1800)
            let row = ClassReport.StudentRow(studentIdentifier: Self.account, studentName: "Ada", submittedAt: submittedAt, work: work)
            return XAPIStatementBuilder().statements(for: ClassReport(assignments: [ClassReport.summary(of: assignment, rows: [row])]))
                .filter { $0.verb.id.hasSuffix("/terminated") }.count
        }
        #expect(terminated(running: false) == 1)
        #expect(terminated(running: true) == 0)
    }

    @Test func sessionsStartingInTheSameSecondAreOne() throws {
        let (statements, data) = try Self.export(Self.work(sessions: [(0, 100), (0.1, 200)]))
        #expect(XAPIValidator.problems(inExport: data) == [])
        #expect(statements.map(\.verb.display["en-US"]) == ["initialized", "progressed", "terminated"])
        #expect(statements[2].result?.duration == "PT3M20S")
    }

    @Test func activityIRIsEncodeWhatIsNotUnreserved() {
        #expect(XAPIStatementBuilder.activityIRI(assignment: "a b/c") == "https://clsfile.invalid/xapi/assignments/a%20b%2Fc")
    }
}
