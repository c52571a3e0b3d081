import Foundation

/// A report as JSON, and a report put together from pages of its students, as a class server
/// answers `GET /api/class-report.json` a page at a time.
extension ClassReport {
    /// How a report is given as JSON (`api/class-report.json`): sorted keys, ISO 8601 dates in
    /// whole seconds, slashes as they are.
    public static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Reads a report as ``jsonEncoder()`` writes it.
    public static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The whole class from the pages of its report, each holding some of the students' rows:
    /// each assignment's rows from every page, by name as in one report, each student's once.
    ///
    /// Every page holds the class's summaries (averages, counts, contexts), the first page's are
    /// kept; an assignment or a context that first appears on a later page (work that arrived
    /// meanwhile) is added with that page's.
    /// - Parameter pages: The pages in the order they were read; none gives an empty report.
    public init(mergingPages pages: [ClassReport]) {
        var merged = pages.first ?? ClassReport(assignments: [])
        var seen = merged.assignments.map { Set($0.students.map(\.studentIdentifier)) }
        for page in pages.dropFirst() {
            for assignment in page.assignments {
                guard let index = merged.assignments.firstIndex(where: { $0.identifier == assignment.identifier }) else {
                    merged.assignments.append(assignment)
                    seen.append(Set(assignment.students.map(\.studentIdentifier)))
                    continue
                }
                merged.assignments[index].students += assignment.students.filter { seen[index].insert($0.studentIdentifier).inserted }
            }
            merged.contexts += page.contexts.filter { context in
                !merged.contexts.contains { $0.identifierPath == context.identifierPath }
            }
        }
        for index in merged.assignments.indices {
            merged.assignments[index].students.sort { ($0.studentName, $0.studentIdentifier) < ($1.studentName, $1.studentIdentifier) }
        }
        merged.assignments.sort { ($0.title, $0.identifier) < ($1.title, $1.identifier) }
        self = merged
    }
}
