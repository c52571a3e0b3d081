import Foundation
import OpenClassKit
import Testing
import TestSupport

/// Assignments, the done flag, collected submissions and development-mode roles, on real store files.
struct AssignmentTests {
    private func assignment(_ id: String = UUID().uuidString.lowercased(), title: String = "Essay",
                            key: UInt8 = 7) -> Assignment {
        Assignment(identifier: id, title: title, className: "7B", dueDate: Date(timeIntervalSince1970: 1_800_000_000),
                      targetWordCount: 500, instructions: "Write.", documentName: "essay.txt",
                      documentDigest: String(repeating: "ab", count: 32), classKey: Data(repeating: key, count: 32))
    }

    @Test func anAcceptedFileIsAssignedAndStaysAssignedWhenMoved() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt"), other = try scratch.file("notes.txt")
        #expect(try await store.isAssignedDocument(essay) == false)
        let given = assignment()
        try await store.acceptAssignment(given, for: essay)
        #expect(try await store.isAssignedDocument(essay))
        #expect(try await store.isAssignedDocument(other) == false)

        let moved = scratch.url.appendingPathComponent("essay-final.txt")
        try FileManager.default.moveItem(at: essay, to: moved)
        _ = try await store.fetchActivity(for: moved)
        #expect(try await store.isAssignedDocument(moved))
        let held = try #require(try await store.assignments().first)
        #expect(held.documentURL?.path == moved.path)
        #expect(held.title == "Essay" && held.className == "7B" && held.targetWordCount == 500 && held.acceptedAt != nil)
        #expect(held.dueDate == given.dueDate && held.classKey == given.classKey)
    }

    @Test func aFileTakesOneAssignmentAndAcceptingAgainChangesNothing() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt")
        let first = assignment()
        try await store.acceptAssignment(first, for: essay)
        try await store.acceptAssignment(first, for: essay)
        #expect(try await store.assignments().count == 1)
        let error = await clsError { try await store.acceptAssignment(assignment(title: "Another"), for: essay) }
        #expect(error?.code == .invalidModification)
        #expect(error?.message.contains("already assigned as 'Essay'") == true)
        var forged = first
        forged.classKey = Data(repeating: 9, count: 32)
        #expect(await clsError { try await store.acceptAssignment(forged, for: essay) }?.code == .invalidModification)
        var short = assignment()
        short.classKey = Data(repeating: 1, count: 16)
        #expect(await clsError { try await store.recordAssignment(short) }?.code == .invalidArgument)
    }

    @Test func doneMarksOnlyAssignedDocumentsAndIsIndependentOfProgress() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt"), poem = try scratch.file("poem.txt"), own = try scratch.file("own.txt")
        try await store.acceptAssignment(assignment(), for: essay)
        try await store.acceptAssignment(assignment(), for: poem)
        _ = try await store.fetchActivity(for: own)

        let essayPath = try await store.fetchActivity(for: essay).context.identifierPath
        #expect(essayPath == ["clsfile", essay.path])
        #expect(try await store.completeAllAssignedActivities(matching: essayPath) == 1)
        var done = try await store.assignments().filter(\.isCompleted).compactMap(\.documentURL?.path)
        #expect(done == [essay.path])
        #expect(try await store.fetchActivity(for: essay).progress == 0)

        #expect(try await store.completeAllAssignedActivities(matching: ["clsfile", own.path]) == 0)
        #expect(try await store.completeAllAssignedActivities(matching: ["another-app"]) == 0)
        #expect(try await store.completeAllAssignedActivities(matching: ["clsfile"]) == 2)
        done = try await store.assignments().filter(\.isCompleted).compactMap(\.documentURL?.path)
        #expect(Set(done) == [essay.path, poem.path])
    }

    @Test func submissionsKeepTheLatestPerStudentAndNeverDuplicate() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let given = assignment()
        try await store.recordAssignment(given)
        try await store.recordAssignment(given)
        func submission(_ digest: String, at seconds: Double, student: String = "s1") -> Submission {
            Submission(assignmentIdentifier: given.identifier, studentIdentifier: student, studentName: "Ada",
                          submittedAt: Date(timeIntervalSince1970: seconds), digest: digest, payload: Data(digest.utf8))
        }
        #expect(try await store.importSubmission(submission("a", at: 100)) == .added)
        #expect(try await store.importSubmission(submission("a", at: 100)) == .unchanged)
        #expect(try await store.importSubmission(submission("b", at: 200)) == .updated)
        #expect(try await store.importSubmission(submission("old", at: 150)) == .superseded)
        #expect(try await store.importSubmission(submission("c", at: 50, student: "s2")) == .added)
        let held = try await store.submissions(forAssignment: given.identifier)
        #expect(held.map(\.digest).sorted() == ["b", "c"])

        var unknown = submission("x", at: 1)
        unknown.assignmentIdentifier = "nope"
        #expect(await clsError { _ = try await store.importSubmission(unknown) }?.code == .invalidArgument)

        #expect(try await store.removeAssignment(identifier: given.identifier))
        #expect(try await store.submissions(forAssignment: given.identifier).isEmpty)
        #expect(try await store.removeAssignment(identifier: given.identifier) == false)
    }

    @Test func aStoreOfTheFirstSchemaGainsAssignments() async throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: essay).progress = 0.5
        try await store.save()
        // Take the store back to schema 1, as clsfile 0.1 left it.
        let downgraded = try run(try Tool.sqlite3.require(), [scratch.storeURL.path,
            "DROP TABLE submission; DROP TABLE assignment; ALTER TABLE activity DROP COLUMN progress_basis; PRAGMA user_version = 1; PRAGMA wal_checkpoint(TRUNCATE);"])
        #expect(downgraded.status == 0, "\(downgraded.errorOutput)")

        let reopened = scratch.store()
        try await reopened.acceptAssignment(assignment(), for: essay)
        #expect(try await reopened.isAssignedDocument(essay))
        #expect(try await reopened.fetchActivity(for: essay).progress == 0.5)
        let version = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, "PRAGMA user_version"])
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }

    @Test func aMigrationThatFailsNamesItselfAndLeavesTheStoreAsItWas() async throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: essay).progress = 0.5
        try await store.save()
        // Schema 2 claimed, but the columns of 3 already there: migration 3 cannot add them again.
        let confused = try run(try Tool.sqlite3.require(), [scratch.storeURL.path,
            "PRAGMA user_version = 2; PRAGMA wal_checkpoint(TRUNCATE);"])
        #expect(confused.status == 0, "\(confused.errorOutput)")

        let error = await #expect(throws: CLSError.self) { try await scratch.store().fetchActivity(for: essay) }
        #expect(error?.code == .databaseInaccessible)
        #expect(error?.message.contains("could not be brought to schema version 3 (progress basis and reading assignments)") == true,
                "\(error?.message ?? "")")
        #expect(error?.message.contains(scratch.storeURL.path) == true)
        #expect(error?.message.contains("it is unchanged") == true)
        let version = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, "PRAGMA user_version"])
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "the failed step was rolled back")
    }

    @Test func developerModeSettingsAndStorePerRole() throws {
        let scratch = try Scratch()
        let settings = scratch.url.appendingPathComponent("config/clsfile/developer-mode.json")
        #expect(try DeveloperMode.current(from: settings).role == .off)

        let mode = DeveloperMode(role: .student, displayName: "Ada")
        try mode.save(to: settings)
        #expect(try DeveloperMode.current(from: settings) == mode)
        let attributes = try FileManager.default.attributesOfItem(atPath: settings.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        try Data("{\"role\": \"headmaster\"}".utf8).write(to: settings)
        #expect(throws: CLSError.self) { try DeveloperMode.current(from: settings) }

        let home = scratch.url.appendingPathComponent("data/clsfile")
        #expect(DeveloperMode.storeURL(for: .off, dataHome: home).path == home.path + "/store.sqlite")
        #expect(DeveloperMode.storeURL(for: .teacher, dataHome: home).path == home.path + "/teacher/store.sqlite")
        #expect(DeveloperMode.storeURL(for: .student, dataHome: home).path == home.path + "/student/store.sqlite")
    }
}
