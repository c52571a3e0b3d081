@testable import Classroom
import Foundation
import OpenClassKit
import TestSupport

/// A teacher's store with real data: three assignments, three students, primary items of two kinds
/// in one assignment, names and titles that try to be markup, and the teacher's own unassigned work.
struct ClassFixture {
    let scratch: Scratch
    /// The `XDG_CONFIG_HOME` whose settings make the role a teacher.
    let configHome: URL
    let storeURL: URL
    let essay: Assignment
    let lab: Assignment
    let poem: Assignment

    static let ada = (id: "student-ada", name: "Ada Lovelace")
    static let bob = (id: "student-bob", name: #"<script>alert("x")</script> Bob & Co"#)
    static let cleo = (id: "student-cleo", name: "Cleo O'Neil")
    static let dan = (id: "student-dan", name: "Dan Brown")
    static let essayTitle = #"Rivers <b>&</b> "Lakes""#
    static let hostileItemTitle = "<img src=x onerror=alert(1)>"
    /// What only the teacher's own, unassigned file holds: it must never appear.
    static let privateFileName = "private-diary.txt"
    static let privateWordCount = 98_765.0
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    init(role: DeveloperMode.Role = .teacher) async throws {
        scratch = try Scratch()
        configHome = scratch.url.appendingPathComponent("config")
        try DeveloperMode(role: role, displayName: role == .student ? "Someone" : nil)
            .save(to: configHome.appendingPathComponent("clsfile/developer-mode.json"))
        storeURL = scratch.url.appendingPathComponent("teacher/store.sqlite")
        let store = CLSDataStore(storeURL: storeURL, configuration: .init(busyTimeout: 30))
        let teacher = Identity()
        essay = try Handout(
            document: try scratch.file("essay.txt"), title: Self.essayTitle, className: "7B <i>",
            due: Self.start.addingTimeInterval(7 * 86_400), targetWords: 500, teacher: teacher
        ).assignment
        lab = try Handout(document: try scratch.file("lab.txt"), title: "Lab report", teacher: teacher).assignment
        poem = try Handout(document: try scratch.file("poem.txt"), title: "Poem", teacher: teacher).assignment
        for assignment in [essay, lab, poem] { try await store.recordAssignment(assignment) }

        let t = Self.start
        try await Self.submit(
            to: store, Self.ada,
            StudentWork(
                assignmentIdentifier: essay.identifier, documentName: "essay.txt", activeSeconds: 600,
                sessions: [
                    .init(start: t, end: t.addingTimeInterval(400)),
                    .init(start: t.addingTimeInterval(3600), end: t.addingTimeInterval(3800))
                ],
                progress: 0.5, progressBasis: .targetWords, primaryItem: Self.quantity("total_word_count", "Word Count", 400),
                additionalItems: [
                    Self.quantity("target_word_count", "Target Words", 800),
                    Self.quantity("readability_grade", "Readability Grade", 7.9),
                    Self.quantity("typed_characters", "Typed Characters", 1200),
                    Self.quantity("pasted_characters", "Pasted Characters", 30),
                    Self.quantity("open_time", "Open Time", 900)
                ],
                completedAt: t.addingTimeInterval(4000)))
        try await Self.submit(
            to: store, Self.bob,
            StudentWork(
                assignmentIdentifier: essay.identifier, documentName: "essay.txt", activeSeconds: 1200,
                sessions: [.init(start: t, end: t.addingTimeInterval(1200))],
                progress: 0.75, primaryItem: Self.quantity("total_word_count", "Word Count", 300),
                additionalItems: [Self.quantity("hostile", Self.hostileItemTitle, 5)], completedAt: nil))
        try await Self.submit(
            to: store, Self.cleo,
            StudentWork(
                assignmentIdentifier: essay.identifier, documentName: "essay.txt", activeSeconds: 300,
                sessions: [.init(start: t, end: t.addingTimeInterval(300))],
                progress: 1, primaryItem: .init(kind: "score", identifier: "quiz", title: "Quiz", value: 3, maxScore: 4),
                additionalItems: [], completedAt: t.addingTimeInterval(400)))
        try await Self.submit(
            to: store, Self.ada,
            StudentWork(
                assignmentIdentifier: lab.identifier, documentName: "lab.txt", activeSeconds: 90,
                sessions: [.init(start: t, end: t.addingTimeInterval(90))],
                progress: 0.25, primaryItem: Self.quantity("total_word_count", "Word Count", 250),
                additionalItems: [], completedAt: nil))

        // The teacher's own work on a file no one assigned: in the store, never on the dashboard.
        let diary = try scratch.file(Self.privateFileName, "my own words\n")
        let activity = try await store.fetchActivity(for: diary)
        activity.start()
        let words = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
        words.quantity = Self.privateWordCount
        activity.primaryActivityItem = words
        activity.stop()
        try await store.save()
    }

    static func quantity(_ identifier: String, _ title: String, _ value: Double) -> StudentWork.Item {
        .init(kind: "quantity", identifier: identifier, title: title, value: value, maxScore: nil)
    }

    /// Imports a student's work as collecting a submission would.
    static func submit(
        to store: CLSDataStore, _ student: (id: String, name: String), _ work: StudentWork,
        at date: Date = start.addingTimeInterval(5000)
    ) async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let payload = try encoder.encode(work)
        _ = try await store.importSubmission(
            Submission(
                assignmentIdentifier: work.assignmentIdentifier, studentIdentifier: student.id, studentName: student.name,
                submittedAt: date, digest: UUID().uuidString, payload: payload))
    }

    /// A store handle on the fixture's store.
    func store() -> CLSDataStore { CLSDataStore(storeURL: storeURL, configuration: .init(busyTimeout: 30)) }

    /// Starts `clsfile serve` on the fixture's store, with more environment variables if given.
    func serve(_ arguments: [String] = [], environment: [String: String] = [:], name: String = "serve") async throws -> ServerProcess {
        try await ServerProcess(
            ["--store", storeURL.path] + arguments,
            environment: self.environment.merging(environment) { $1 },
            in: scratch.url, name: name)
    }

    /// The teacher's environment: their role, and no store or token of the test's own.
    var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": configHome.path, "CLSFILE_STORE": "", "CLSFILE_DASHBOARD_TOKEN": "",
            "XDG_DATA_HOME": scratch.url.appendingPathComponent("data").path
        ]
    }

    /// A file that holds a token, readable by its owner alone unless told otherwise.
    func tokenFile(_ token: String, mode: Int = 0o600) throws -> URL {
        let file = scratch.url.appendingPathComponent("token-\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: file.path, contents: Data((token + "\n").utf8),
                attributes: [.posixPermissions: mode])
        else {
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }
}
