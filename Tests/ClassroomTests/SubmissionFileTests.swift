import Foundation
import OpenClassKit
import Testing
@testable import Classroom

/// What a submission's signature and encryption cover, field by field, and what the teacher
/// checks in the work before storing it.
struct SubmissionFileTests {
    let teacher = Identity()
    let student = Identity()
    let assignment: Assignment
    let work: StudentWork

    init() {
        assignment = Assignment(
            identifier: "essay-1", title: "Essay", documentName: "essay.txt", documentDigest: "00",
            teacherKey: teacher.recipientPublicKey)
        // Whole seconds, as the file's ISO 8601 dates keep them.
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
        work = StudentWork(
            assignmentIdentifier: "essay-1", documentName: "essay.txt", activeSeconds: 600,
            sessions: [.init(start: start, end: start.addingTimeInterval(600))], progress: 0.5,
            primaryItem: .init(kind: "quantity", identifier: "total_word_count", title: "Word Count", value: 120),
            additionalItems: [.init(kind: "score", identifier: "quiz", title: "Quiz", value: 3, maxScore: 4)],
            completedAt: nil)
    }

    private func sealed() throws -> SubmissionFile {
        try SubmissionFile(work: work, handout: assignment, student: "ada-account", studentName: "Ada", identity: student)
    }

    /// Writes a file's JSON with one change, reads it back and opens it.
    private func open(_ change: (inout [String: Any]) -> Void) throws -> StudentWork {
        var json = try #require(try JSONSerialization.jsonObject(with: JSONCoding.encoder.encode(try sealed())) as? [String: Any])
        change(&json)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("submission-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("a.clssubmission")
        try JSONSerialization.data(withJSONObject: json).write(to: url)
        return try SubmissionFile.read(from: url).openWork(with: assignment, teacher: teacher, file: url).work
    }

    @Test func anUntouchedFileOpens() throws {
        #expect(try open { _ in } == work)
    }

    static let fields = [
        "format", "version", "handout", "student", "studentName", "submittedAt", "studentKey",
        "encapsulatedKey", "sealed", "signature"
    ]

    @Test(arguments: fields)
    func changingAFieldIsDetected(_ field: String) throws {
        #expect(throws: ClassroomError.self, "\(field) changed") {
            try open { json in
                switch json[field] {
                case let text as String where field == "submittedAt":
                    let format = ISO8601DateFormatter()
                    json[field] = format.string(from: format.date(from: text)!.addingTimeInterval(1))
                case let text as String:
                    if let data = Data(base64Encoded: text), !data.isEmpty {
                        var bytes = data
                        bytes[bytes.count / 2] ^= 0x01
                        json[field] = bytes.base64EncodedString()
                    } else {
                        json[field] = text + "x"
                    }
                case let number as Int: json[field] = number + 1
                default: json[field] = "changed"
                }
            }
        }
    }

    @Test(arguments: fields)
    func droppingAFieldIsDetected(_ field: String) throws {
        #expect(throws: ClassroomError.self, "\(field) dropped") { try open { $0[field] = nil } }
    }

    /// Values moved between fields: the student's identifier and name traded, and the
    /// encapsulated key with the ciphertext.
    @Test func reorderingFieldsIsDetected() throws {
        #expect(throws: ClassroomError.self) {
            try open { json in (json["student"], json["studentName"]) = (json["studentName"], json["student"]) }
        }
        #expect(throws: ClassroomError.self) {
            try open { json in (json["encapsulatedKey"], json["sealed"]) = (json["sealed"], json["encapsulatedKey"]) }
        }
    }

    /// With fields joined by newlines, "a\nb" + "c" and "a" + "b\nc" were the same bytes.
    @Test func noFieldCanTradeTextWithTheNext() {
        #expect(AuthenticatedFields.encode("a\nb", "c") != AuthenticatedFields.encode("a", "b\nc"))
        #expect(AuthenticatedFields.encode("ab", "") != AuthenticatedFields.encode("a", "b"))
        #expect(AuthenticatedFields.encode("", "") != AuthenticatedFields.encode(""))
    }

    @Test func anotherTeachersKeyOpensNothing() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).clssubmission")
        try sealed().write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var other = assignment
        other.teacherKey = Identity().recipientPublicKey
        let file = try SubmissionFile.read(from: url)
        #expect(throws: ClassroomError.self) { try file.openWork(with: other, teacher: teacher, file: url) }
        let error = #expect(throws: ClassroomError.self) { try file.openWork(with: assignment, teacher: Identity(), file: url) }
        #expect(error?.code == .identity)
    }

    // MARK: Values

    /// Each change makes the work invalid; the message names the file.
    static let invalid: [(String, @Sendable (inout StudentWork) -> Void)] = [
        ("active time 1e300", { $0.activeSeconds = 1e300 }),
        ("negative active time", { $0.activeSeconds = -1 }),
        ("infinite active time", { $0.activeSeconds = .infinity }),
        ("NaN progress", { $0.progress = .nan }),
        ("progress above 1", { $0.progress = 1.5 }),
        ("negative progress", { $0.progress = -0.1 }),
        ("item of 1e300", { $0.primaryItem?.value = 1e300 }),
        ("item of -infinity", { $0.additionalItems[0].value = -.infinity }),
        ("maximum score 0", { $0.additionalItems[0].maxScore = 0 }),
        ("maximum score NaN", { $0.additionalItems[0].maxScore = .nan }),
        ("unknown item kind", { $0.additionalItems[0].kind = "other" }),
        ("long item title", { $0.additionalItems[0].title = String(repeating: "x", count: 2000) }),
        ("too many items", { $0.additionalItems = Array(repeating: $0.additionalItems[0], count: 1001) }),
        ("reversed session", { $0.sessions[0] = .init(start: $0.sessions[0].end, end: $0.sessions[0].start) }),
        ("session in the future", { $0.sessions[0].end = Date().addingTimeInterval(86_400) }),
        ("session before 2000", { $0.sessions[0].start = Date(timeIntervalSince1970: 0) }),
        ("session active longer than it lasted", { $0.sessions[0].activeSeconds = 602 }),
        ("session active for a negative time", { $0.sessions[0].activeSeconds = -1 }),
        ("session active for NaN seconds", { $0.sessions[0].activeSeconds = .nan }),
        ("done in the future", { $0.completedAt = Date().addingTimeInterval(86_400) }),
        ("too many sessions", { $0.sessions = Array(repeating: $0.sessions[0], count: 100_001) }),
        ("document in a folder", { $0.documentName = "../diary.txt" }),
        ("history progress above 1", { $0.history = [historyRow(progress: 2)] }),
        ("history row in the future", { $0.history = [historyRow(date: Date().addingTimeInterval(86_400))] }),
        ("snapshot with another digest", { $0.snapshots = [snapshot(digest: Data(repeating: 0, count: 16))] }),
        ("snapshots without a keyframe", { $0.snapshots = [snapshot(keyframe: false)] }),
        ("too many snapshots", { $0.snapshots = Array(repeating: snapshot(), count: 2001) }),
        (
            "damaged snapshot",
            { $0.snapshots = [WritingSnapshotRecord(entry: historyRow(), delta: Data([5, 1]), digest: Data(), isKeyframe: true)] }
        ),
        ("empty note", { $0.notes = [note(" ")] }),
        ("note too long", { $0.notes = [note(String(repeating: "é", count: 2001))] }),
        ("note with a control character", { $0.notes = [note("red \u{1B}[31mtext")] }),
        ("note with a line break", { $0.notes = [note("two\nlines")] }),
        ("note on a session the work does not hold", { $0.notes = [note("x", on: "another-session")] }),
        (
            "session note without its session",
            { $0.notes = [EvidenceNote(kind: .session, text: "x", writtenAt: Date(timeIntervalSinceNow: -60))] }
        ),
        ("note written in the future", { $0.notes = [note("x", at: Date().addingTimeInterval(86_400))] }),
        ("too many notes", { $0.notes = Array(repeating: note("x"), count: 10_002) })
    ]

    static func note(_ text: String, on session: String? = nil, at date: Date = Date(timeIntervalSinceNow: -60)) -> EvidenceNote {
        EvidenceNote(kind: session == nil ? .work : .session, sessionIdentifier: session, text: text, writtenAt: date)
    }

    static func historyRow(date: Date = Date(timeIntervalSinceNow: -60), progress: Double = 0.5) -> WritingHistoryEntry {
        WritingHistoryEntry(
            date: date, sessionStart: date.addingTimeInterval(-60), sessionEnd: date, activeTime: 60, words: 12,
            progress: progress)
    }

    /// A keyframe of a sentence, its digest or its flag changed as asked.
    static func snapshot(digest: Data? = nil, keyframe: Bool = true) -> WritingSnapshotRecord {
        var record = WritingSnapshotRecord(keyframeOf: Array("A sentence about rivers.\n".utf8), entry: historyRow())
        if let digest { record.digest = digest }
        record.isKeyframe = keyframe
        return record
    }

    @Test(arguments: invalid.indices)
    func outOfRangeWorkIsRefused(_ index: Int) throws {
        var work = work
        Self.invalid[index].1(&work)
        let url = URL(fileURLWithPath: "/inbox/ada.clssubmission")
        let error = #expect(throws: ClassroomError.self, "\(Self.invalid[index].0)") { try work.validate(file: url) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains(url.path) == true)
    }

    /// The work with the student's notes on it, on its session and on that session's paste.
    private var annotated: StudentWork {
        var annotated = work
        annotated.sessions[0].identifier = "session-1"
        annotated.sessions[0].isDictated = true
        let written = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 60).rounded(.down))
        annotated.notes = [
            EvidenceNote(kind: .work, text: "My first essay in this class.", writtenAt: written),
            EvidenceNote(kind: .session, sessionIdentifier: "session-1", text: "Written at the library", writtenAt: written),
            EvidenceNote(kind: .paste, sessionIdentifier: "session-1", text: "Pasted from my outline in notes.md", writtenAt: written)
        ]
        return annotated
    }

    @Test func notesTravelSealedAndAnEditedNoteFailsVerification() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("submission-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("ada.clssubmission")
        let file = try SubmissionFile(work: annotated, handout: assignment, student: "ada-account", studentName: "Ada", identity: student)
        try file.write(to: url)
        let opened = try SubmissionFile.read(from: url).openWork(with: assignment, teacher: teacher, file: url).work
        #expect(opened == annotated)
        try opened.validate(file: url)

        // A classmate holds the same handout, so can seal work to the teacher: the note changed,
        // sealed again, under Ada's header and signature.
        var edited = annotated
        edited.notes?[2].text = "Typed every word myself"
        let forged = try SubmissionFile(
            work: edited, handout: assignment, student: "ada-account", studentName: "Ada", identity: Identity(),
            submittedAt: file.submittedAt)
        var tampered = file
        (tampered.encapsulatedKey, tampered.sealed) = (forged.encapsulatedKey, forged.sealed)
        let tamperedURL = folder.appendingPathComponent("tampered.clssubmission")
        try tampered.write(to: tamperedURL)
        let error = #expect(throws: ClassroomError.self) {
            try SubmissionFile.read(from: tamperedURL).openWork(with: assignment, teacher: teacher, file: tamperedURL)
        }
        #expect(error?.code == .damagedFile && error?.message.contains("changed or damaged after the student signed it") == true)
    }

    @Test func workWithinRangeIsAccepted() throws {
        try work.validate(file: URL(fileURLWithPath: "/inbox/ada.clssubmission"))
        var edge = work
        edge.progress = 1
        edge.activeSeconds = 0
        edge.sessions = []
        edge.completedAt = Date().addingTimeInterval(Submission.clockMargin - 5)
        edge.history = [Self.historyRow(progress: 1)]
        edge.snapshots = [Self.snapshot()]
        try edge.validate(file: URL(fileURLWithPath: "/inbox/ada.clssubmission"))
        // Active for its whole length, and the second its dates are cut to.
        var active = work
        active.sessions[0].activeSeconds = 600.9
        try active.validate(file: URL(fileURLWithPath: "/inbox/ada.clssubmission"))
    }
}
