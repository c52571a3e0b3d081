@testable import ClassServer
import Classroom
import Foundation
import OpenClassKit
import Testing

/// The report's JSON, made an assignment at a time and kept until it changes, is byte for byte
/// what encoding the whole report gives.
struct ReportEncoderTests {
    private func report(progress: Double) -> ClassReport {
        let assignments = (0..<3).map { number in
            let work = StudentWork(
                assignmentIdentifier: "a\(number)", documentName: "essay \(number).md", activeSeconds: 61.5,
                sessions: [
                    .init(
                        start: Date(timeIntervalSince1970: 1_790_000_000), end: Date(timeIntervalSince1970: 1_790_000_061),
                        isRunning: false)
                ],
                progress: number == 1 ? progress : 0.25, progressBasis: .targetWords,
                primaryItem: .init(kind: "quantity", identifier: "words", title: "Words \"counted\"", value: 412),
                additionalItems: [], completedAt: nil)
            let assignment = Assignment(
                identifier: "a\(number)", title: "Essay / \(number)", documentName: "essay \(number).md",
                documentDigest: "", teacherKey: nil, contextPath: number == 2 ? ["course", "ch1"] : nil)
            return ClassReport.summary(
                of: assignment,
                rows: [
                    ClassReport.StudentRow(
                        studentIdentifier: "s1", studentName: "Ada", submittedAt: Date(timeIntervalSince1970: 1_790_000_100), work: work)
                ])
        }
        return ClassReport(assignments: assignments)
    }

    @Test func theJSONIsTheWholeReportsWhetherKeptOrNot() throws {
        let encoder = ReportEncoder(), classID = UUID()
        for progress in [0.5, 0.5, 0.75] {
            let report = report(progress: progress)
            let whole = try ReportEncoder.encoder().encode(report)
            #expect(try encoder.encode(report, of: classID, page: .init(), next: nil) == whole)
            #expect(
                try ClassReport.jsonDecoder().decode(ClassReport.self, from: encoder.encode(report, of: classID, page: .init(), next: nil))
                    == report)
        }
        let empty = ClassReport(assignments: [])
        #expect(try encoder.encode(empty, of: classID, page: .init(), next: nil) == ReportEncoder.encoder().encode(empty))
    }

    /// A page that has a next one says where it is, as the last key, the rest as before.
    @Test func aPageWithANextOneEndsWithItsLink() throws {
        struct Page: Encodable {
            var assignments: [ClassReport.AssignmentSummary]
            var contexts: [ClassReport.ContextSummary]
            var next: String
        }
        let report = report(progress: 0.5), next = "/api/class-report.json?class=c&after=s1&limit=1"
        let page = try ReportEncoder().encode(report, of: UUID(), page: .init(after: nil, limit: 1), next: next)
        #expect(page == (try ReportEncoder.encoder().encode(Page(assignments: report.assignments, contexts: report.contexts, next: next))))
    }
}
