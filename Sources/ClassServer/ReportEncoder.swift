import ClassDashboard
import Classroom
import Foundation
internal import NIOConcurrencyHelpers

/// Encodes class reports as JSON, each assignment apart, keeping the JSON of an assignment until
/// its summary changes: a teacher's report reloaded while a few students work encodes only the
/// assignments whose work changed.
///
/// The bytes are those of ``ClassDashboard/DashboardPages/reportEncoder()`` encoding the whole
/// report: the assignments are the top-level object's first key, the contexts its second, and
/// the link to the next page, when there is one, its third (`next`).
final class ReportEncoder: Sendable {
    private struct Key: Hashable {
        var classID: UUID
        var page: ServerDatabase.StudentPage
        var assignment: String
    }

    private let kept = NIOLockedValueBox<[Key: (summary: ClassReport.AssignmentSummary, json: Data)]>([:])
    /// The most assignments kept, over all classes; past that the cache starts again.
    static let capacity = 20_000

    /// - Parameters:
    ///   - page: The page of students the report holds, each of whose assignments is kept apart.
    ///   - next: The address of the next page, if one follows.
    func encode(_ report: ClassReport, of classID: UUID, page: ServerDatabase.StudentPage, next: String?) throws -> Data {
        let encoder = Self.encoder()
        var parts: [Data] = []
        parts.reserveCapacity(report.assignments.count)
        for summary in report.assignments {
            let key = Key(classID: classID, page: page, assignment: summary.identifier)
            if let held = kept.withLockedValue({ $0[key] }), held.summary == summary {
                parts.append(held.json)
                continue
            }
            let json = try encoder.encode(summary)
            kept.withLockedValue { kept in
                if kept.count >= Self.capacity { kept.removeAll(keepingCapacity: true) }
                kept[key] = (summary, json)
            }
            parts.append(json)
        }
        var data = Data(#"{"assignments":["#.utf8)
        for (index, part) in parts.enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            data.append(part)
        }
        data.append(contentsOf: Array(#"],"contexts":"#.utf8))
        data.append(try encoder.encode(report.contexts))
        if let next {
            data.append(contentsOf: Array(#","next":"#.utf8))
            data.append(try encoder.encode(next))
        }
        data.append(UInt8(ascii: "}"))
        return data
    }

    static func encoder() -> JSONEncoder { DashboardPages.reportEncoder() }
}
