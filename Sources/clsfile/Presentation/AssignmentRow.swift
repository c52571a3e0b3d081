import Foundation
import OpenClassKit

/// One assignment's line in `clsfile assignments`.
struct AssignmentRow: Encodable {
    var identifier: String
    var title: String
    var className: String?
    var dueDate: Date?
    var targetWords: Int?
    var instructions: String?
    var documentName: String
    /// The student's file; absent in a teacher's store.
    var file: String?
    var acceptedAt: Date?
    var completedAt: Date?

    init(_ assignment: Assignment) {
        identifier = assignment.identifier
        title = assignment.title
        className = assignment.className
        dueDate = assignment.dueDate
        targetWords = assignment.targetWordCount
        instructions = assignment.instructions
        documentName = assignment.documentName
        file = assignment.documentURL?.path(percentEncoded: false)
        acceptedAt = assignment.acceptedAt
        completedAt = assignment.completedAt
    }

    static func table(_ assignments: [Assignment]) -> String {
        guard !assignments.isEmpty else { return "No assignments." }
        let rows = assignments.map(AssignmentRow.init)
        let student = rows.contains { $0.file != nil }
        var lines = [["ID", "TITLE", "CLASS", "DUE", "TARGET"] + (student ? ["DONE", "FILE"] : ["DOCUMENT"])]
        for row in rows {
            var line = [String(row.identifier.prefix(8)), row.title, row.className ?? "-",
                        row.dueDate.map(Formatting.day) ?? "-", row.targetWords.map { "\($0) words" } ?? "-"]
            line += student ? [row.completedAt == nil ? "no" : "yes", row.file ?? "(file not accepted)"] : [row.documentName]
            lines.append(line)
        }
        return Formatting.columns(lines).joined(separator: "\n")
    }

    static func json(_ assignments: [Assignment]) throws -> String {
        try Formatting.json(assignments.map(AssignmentRow.init))
    }
}
