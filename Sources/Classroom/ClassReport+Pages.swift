import Foundation

/// A report as JSON, a page of its students, and a report put together from pages, as a class
/// server answers `GET /api/class-report.json` a page at a time.
extension ClassReport {
    /// The students a page of a report holds when the request names no `limit`.
    public static let studentsPerPage = 200
    /// The most students a page holds, whatever `limit` asks.
    public static let maximumStudentsPerPage = 1_000

    /// The students a page holds, as a request's `limit` asks for them.
    /// - Throws: ``ClassroomError`` `.invalidValue` naming the value when it is not a number of
    ///   students from 1 to ``maximumStudentsPerPage``.
    public static func studentsPerPage(limit text: String) throws(ClassroomError) -> Int {
        guard let limit = Int(text), (1...maximumStudentsPerPage).contains(limit) else {
            throw ClassroomError(.invalidValue, "limit is a number of students from 1 to \(maximumStudentsPerPage), not \(text.prefix(20))")
        }
        return limit
    }

    /// A page of the report: the rows of at most `limit` students, those whose identifiers sort
    /// first after `after`, with the summaries (averages, counts, contexts) of the whole class,
    /// as a class server's page has them. An assignment none of the page's students worked on
    /// keeps its summary and has no rows.
    ///
    /// A page starts after an identifier, not at an offset, so that a student who arrives between
    /// two pages moves no other from one page to the next.
    /// - Parameters:
    ///   - after: The identifier the page before ended with; nil for the first page.
    ///   - limit: The most students; at least 1.
    /// - Returns: The page, and the `after` of the next one (nil when no student follows).
    public func page(after: String?, limit: Int) -> (report: ClassReport, nextAfter: String?) {
        // A student with submissions kept aside only is on a page too.
        let everyone = Set(assignments.flatMap { $0.students.map(\.studentIdentifier) + $0.keptAside.map(\.studentIdentifier) })
        let following = everyone.filter { student in after.map { student > $0 } ?? true }.sorted()
        let shown = Set(following.prefix(max(1, limit)))
        var page = self
        for index in page.assignments.indices {
            page.assignments[index].students.removeAll { !shown.contains($0.studentIdentifier) }
            page.assignments[index].keptAside.removeAll { !shown.contains($0.studentIdentifier) }
        }
        return (page, following.count > shown.count ? following[shown.count - 1] : nil)
    }

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
    /// each assignment's rows (and submissions kept aside) from every page, by name as in one
    /// report, each once.
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
                merged.assignments[index].keptAside += assignment.keptAside.filter { aside in
                    !merged.assignments[index].keptAside.contains(aside)
                }
            }
            merged.contexts += page.contexts.filter { context in
                !merged.contexts.contains { $0.identifierPath == context.identifierPath }
            }
        }
        for index in merged.assignments.indices {
            merged.assignments[index].students.sort { ($0.studentName, $0.studentIdentifier) < ($1.studentName, $1.studentIdentifier) }
            merged.assignments[index].keptAside.sort {
                ($0.studentName, $0.studentIdentifier, $0.submittedAt) < ($1.studentName, $1.studentIdentifier, $1.submittedAt)
            }
        }
        merged.assignments.sort { ($0.title, $0.identifier) < ($1.title, $1.identifier) }
        self = merged
    }
}
