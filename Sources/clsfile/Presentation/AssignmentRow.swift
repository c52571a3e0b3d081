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
    /// The student's file; absent in a teacher's store, and for an app's context.
    var file: String?
    /// The assigned course context's identifier path, for a document or an app's context of it.
    var contextPath: [String]?
    /// True for an assignment of a context chosen in a class server's catalog: the work at or
    /// below ``contextPath`` reports to it, each context's as an assignment of its own.
    var coversContextTree: Bool
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
        contextPath = assignment.contextPath
        coversContextTree = assignment.coversContextTree
        acceptedAt = assignment.acceptedAt
        completedAt = assignment.completedAt
    }

    static func table(_ assignments: [Assignment]) -> String {
        guard !assignments.isEmpty else { return "No assignments." }
        let rows = assignments.map(AssignmentRow.init)
        let student = rows.contains { $0.file != nil || $0.acceptedAt != nil }
        var lines = [["ID", "TITLE", "CLASS", "DUE", "TARGET"] + (student ? ["DONE", "FILE"] : ["DOCUMENT"])]
        for row in rows {
            var line = [
                String(row.identifier.prefix(8)), row.title, row.className ?? "-",
                row.dueDate.map(Formatting.day) ?? "-", row.targetWords.map { "\($0) words" } ?? "-"
            ]
            line += student ? [row.completedAt == nil ? "no" : "yes", row.place] : [row.documentName]
            lines.append(line)
        }
        return Formatting.columns(lines).joined(separator: "\n")
    }

    /// Where a student's work on it is: the file, or the course context for an app's work.
    private var place: String {
        if let file { return file }
        guard let path = contextPath?.joined(separator: "/") else { return "(file not accepted)" }
        return coversContextTree ? "(every context under \(path))" : "(\(documentName) in \(path))"
    }

    static func json(_ assignments: [Assignment]) throws -> String {
        try Formatting.json(assignments.map(AssignmentRow.init))
    }
}
