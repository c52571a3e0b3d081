import Foundation
import OpenClassKit

/// The teacher's view of the class, as Schoolwork shows it: per assignment the averages and how many
/// are done, a row per student, and each student's work in detail.
///
/// It is made only from what the teacher's store holds: the teacher's own assignments and the
/// submissions collected for them. Nothing else can appear in it.
public struct ClassReport: Sendable, Equatable, Codable {
    /// One student's latest submission for an assignment.
    public struct StudentRow: Sendable, Equatable, Codable {
        public var studentIdentifier: String
        public var studentName: String
        public var submittedAt: Date
        /// The fingerprint of the key the student signed with; nil for work collected before
        /// submissions were signed.
        public var keyFingerprint: String?
        /// When the student joined the class on a class server; nil for collected submissions.
        public var enrolledAt: Date?
        public var work: StudentWork

        /// Creates a row.
        public init(
            studentIdentifier: String, studentName: String, submittedAt: Date, keyFingerprint: String? = nil,
            enrolledAt: Date? = nil, work: StudentWork
        ) {
            self.studentIdentifier = studentIdentifier
            self.studentName = studentName
            self.submittedAt = submittedAt
            self.keyFingerprint = keyFingerprint
            self.enrolledAt = enrolledAt
            self.work = work
        }

        enum CodingKeys: String, CodingKey {
            case studentIdentifier, studentName, submittedAt, keyFingerprint, enrolledAt, work
        }

        /// The row as the report's JSON gives it: the work without the snapshots of its text,
        /// which only the replay reads (a report of figures stays one of figures).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(studentIdentifier, forKey: .studentIdentifier)
            try container.encode(studentName, forKey: .studentName)
            try container.encode(submittedAt, forKey: .submittedAt)
            try container.encodeIfPresent(keyFingerprint, forKey: .keyFingerprint)
            try container.encodeIfPresent(enrolledAt, forKey: .enrolledAt)
            var figures = work
            figures.snapshots = nil
            try container.encode(figures, forKey: .work)
        }
    }

    /// A submission kept aside as a conflict: signed with another key than the student's pinned
    /// one, or dated in the future. It is in no average.
    public struct KeptAside: Sendable, Equatable, Codable {
        public var studentIdentifier: String
        public var studentName: String
        public var submittedAt: Date
        public var keyFingerprint: String
    }

    /// The average of one kind of primary item.
    public struct PrimaryAverage: Sendable, Equatable, Codable {
        /// `kind:identifier`; items with different keys are never averaged together.
        public var key: String
        public var title: String
        public var kind: String
        public var average: Double
        /// How many students' work has this kind of primary item.
        public var count: Int
    }

    /// One assignment with its students.
    public struct AssignmentSummary: Sendable, Equatable, Codable {
        public var identifier: String
        public var title: String
        public var className: String?
        public var dueDate: Date?
        public var targetWords: Int?
        public var documentName: String
        /// How many students submitted work.
        public var studentCount: Int
        /// How many of them marked it done.
        public var doneCount: Int
        /// The average active time in seconds; nil with no students.
        public var averageActiveSeconds: Double?
        /// The average progress, 0…1; nil with no students.
        public var averageProgress: Double?
        /// One average per kind of primary item, the most common first.
        public var primaryAverages: [PrimaryAverage]
        /// Set when the students' primary items are of different kinds, which are shown apart.
        public var warning: String?
        /// The students, by name.
        public var students: [StudentRow]

        /// The display names two or more students share (anyone who joins with a class's code
        /// names themselves): their rows are told apart by key and enrolment, and marked.
        public var sharedNames: Set<String> {
            var seen: [String: String] = [:]
            var shared: Set<String> = []
            for row in students {
                if let other = seen.updateValue(row.studentIdentifier, forKey: row.studentName), other != row.studentIdentifier {
                    shared.insert(row.studentName)
                }
            }
            return shared
        }
        /// The submissions kept aside as conflicts, by student name.
        public var keptAside: [KeptAside]
        /// The assigned course context this assignment is one document of, below the main app
        /// context; nil for a document assigned alone.
        public var contextPath: [String]?
        /// Whether the handout asks for a statement of AI use; nil when it asks for none. Each
        /// student's statement, in their words, is in their ``StudentWork/aiStatement``.
        public var aiStatementRequirement: AIStatement.Requirement?

        /// Whether the report shows a statement of AI use for each student: the handout asks
        /// for one, or a student gave one anyway.
        public var showsAIStatements: Bool {
            aiStatementRequirement != nil || students.contains { $0.work.aiStatement != nil }
        }
    }

    /// An assigned course context: its documents' assignments taken together, per student.
    public struct ContextSummary: Sendable, Equatable, Codable {
        /// The context's identifier path, below the main app context.
        public var identifierPath: [String]
        public var title: String
        /// The assignments of its documents, as they come in ``ClassReport/assignments``.
        public var assignmentIdentifiers: [String]
        /// How many students submitted work on at least one of its documents.
        public var studentCount: Int
        /// How many of them marked every one of its documents done.
        public var doneCount: Int
        /// Each student's active time summed over the documents, averaged over the students; nil
        /// with no students.
        public var averageActiveSeconds: Double?
        /// Each student's progress averaged over all the documents (0 for one without work),
        /// averaged over the students; nil with no students.
        public var averageProgress: Double?
    }

    public var assignments: [AssignmentSummary]
    /// The assigned course contexts, in the order their first documents come in ``assignments``.
    public var contexts: [ContextSummary]

    /// Reads the class from a teacher's store.
    /// - Throws: `CLSError` when the store cannot be read, ``ClassroomError`` `.malformedFile`
    ///   when a stored submission cannot be read back.
    public init(store: CLSDataStore) async throws {
        var summaries: [AssignmentSummary] = []
        let keptAside = Dictionary(grouping: try await store.keptAsideSubmissions(), by: \.assignmentIdentifier)
        for assignment in try await store.assignments() {
            var rows: [StudentRow] = []
            for submission in try await store.submissions(forAssignment: assignment.identifier) {
                let work = try StudentWork.stored(in: submission, of: assignment.title, store: store.storeURL.path)
                rows.append(
                    StudentRow(
                        studentIdentifier: submission.studentIdentifier, studentName: submission.studentName,
                        submittedAt: submission.submittedAt,
                        keyFingerprint: submission.studentKey.map(Identity.fingerprint(of:)), work: work))
            }
            let aside = (keptAside[assignment.identifier] ?? []).map {
                KeptAside(
                    studentIdentifier: $0.studentIdentifier, studentName: $0.studentName, submittedAt: $0.submittedAt,
                    keyFingerprint: $0.studentKey.map(Identity.fingerprint(of:)) ?? "")
            }
            summaries.append(Self.summary(of: assignment, rows: rows, keptAside: aside))
        }
        assignments = summaries
        var titles: [[String]: String] = [:]
        for path in Set(summaries.compactMap(\.contextPath)) {
            titles[path] = try await store.mainAppContext.descendant(matchingIdentifierPath: path)?.title
        }
        contexts = Self.contexts(of: summaries, titles: titles)
    }

    /// Creates a report from its assignments; contexts are titled as `contextTitles` says, else
    /// by their last identifier.
    public init(assignments: [AssignmentSummary], contextTitles: [[String]: String] = [:]) {
        self.assignments = assignments
        contexts = Self.contexts(of: assignments, titles: contextTitles)
    }

    /// The assigned contexts of some assignments, with per-student totals across their documents.
    static func contexts(of assignments: [AssignmentSummary], titles: [[String]: String]) -> [ContextSummary] {
        var order: [[String]] = []
        var groups: [[String]: [AssignmentSummary]] = [:]
        for assignment in assignments {
            guard let path = assignment.contextPath else { continue }
            if groups[path] == nil { order.append(path) }
            groups[path, default: []].append(assignment)
        }
        return order.map { path in
            let members = groups[path] ?? []
            var works: [String: [StudentWork]] = [:]
            for member in members {
                for row in member.students { works[row.studentIdentifier, default: []].append(row.work) }
            }
            let students = works.values
            let count = Double(students.count)
            return ContextSummary(
                identifierPath: path, title: titles[path] ?? path.last ?? "", assignmentIdentifiers: members.map(\.identifier),
                studentCount: students.count,
                doneCount: students.filter { $0.count == members.count && $0.allSatisfy(\.isDone) }.count,
                averageActiveSeconds: students.isEmpty ? nil : students.map { $0.map(\.activeSeconds).reduce(0, +) }.reduce(0, +) / count,
                averageProgress: students.isEmpty
                    ? nil
                    : students.map { $0.map(\.progress).reduce(0, +) / Double(members.count) }.reduce(0, +) / count)
        }
    }

    /// One assignment's averages, counts and rows, as every report computes them.
    public static func summary(of assignment: Assignment, rows: [StudentRow], keptAside: [KeptAside] = []) -> AssignmentSummary {
        let works = rows.map(\.work)
        var groups: [String: [StudentWork.Item]] = [:]
        for item in works.compactMap(\.primaryItem) { groups[item.comparisonKey, default: []].append(item) }
        let averages = groups.map { key, items in
            PrimaryAverage(
                key: key, title: items[0].title, kind: items[0].kind,
                average: items.map(\.value).reduce(0, +) / Double(items.count), count: items.count)
        }.sorted { ($0.count, $1.key) > ($1.count, $0.key) }
        let warning =
            averages.count > 1
            ? "the students' primary items are of \(averages.count) different kinds (\(averages.map(\.title).joined(separator: ", "))); each is averaged apart, never together"
            : nil
        return AssignmentSummary(
            identifier: assignment.identifier, title: assignment.title, className: assignment.className,
            dueDate: assignment.dueDate, targetWords: assignment.targetWordCount, documentName: assignment.documentName,
            studentCount: rows.count, doneCount: works.filter(\.isDone).count,
            averageActiveSeconds: works.isEmpty ? nil : works.map(\.activeSeconds).reduce(0, +) / Double(works.count),
            averageProgress: works.isEmpty ? nil : works.map(\.progress).reduce(0, +) / Double(works.count),
            primaryAverages: averages, warning: warning, students: rows, keptAside: keptAside,
            contextPath: assignment.contextPath, aiStatementRequirement: assignment.aiStatementRequirement)
    }
}
