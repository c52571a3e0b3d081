import Foundation
@testable import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// Assignments, the done flag, collected submissions and development-mode roles, on real store files.
struct AssignmentTests {
    private func assignment(
        _ id: String = UUID().uuidString.lowercased(), title: String = "Essay",
        key: UInt8 = 7
    ) -> Assignment {
        Assignment(
            identifier: id, title: title, className: "7B", dueDate: Date(timeIntervalSince1970: 1_800_000_000),
            targetWordCount: 500, instructions: "Write.", documentName: "essay.txt",
            documentDigest: String(repeating: "ab", count: 32), teacherKey: Data(repeating: key, count: 32))
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
        #expect(held.dueDate == given.dueDate && held.teacherKey == given.teacherKey)
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
        forged.teacherKey = Data(repeating: 9, count: 32)
        #expect(await clsError { try await store.acceptAssignment(forged, for: essay) }?.code == .invalidModification)
        var keyless = assignment()
        keyless.teacherKey = nil
        #expect(await clsError { try await store.recordAssignment(keyless) }?.code == .invalidArgument)
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
        #expect(try await store.markAssignedActivitiesDone(matching: essayPath) == 1)
        var done = try await store.assignments().filter(\.isCompleted).compactMap(\.documentURL?.path)
        #expect(done == [essay.path])
        #expect(try await store.fetchActivity(for: essay).progress == 0)

        #expect(try await store.markAssignedActivitiesDone(matching: ["clsfile", own.path]) == 0)
        #expect(try await store.markAssignedActivitiesDone(matching: ["another-app"]) == 0)
        #expect(try await store.markAssignedActivitiesDone(matching: ["clsfile"]) == 2)
        done = try await store.assignments().filter(\.isCompleted).compactMap(\.documentURL?.path)
        #expect(Set(done) == [essay.path, poem.path])
    }

    /// Apple's call, in an async function, from a process that exits right after it: both path
    /// spellings, 20 times each, all durable.
    @Test func completeAllAssignedActivitiesIsDurableBeforeItReturns() async throws {
        let scratch = try Scratch()
        for run in 0..<20 {
            let essay = try scratch.file("essay-\(run).txt")
            let store = scratch.store()
            try await store.acceptAssignment(assignment(title: "Essay \(run)"), for: essay)
            let result = try runWorker(["complete", scratch.storeURL.path, essay.path])
            #expect(result.status == 0, "\(result.errorOutput)")
            let done = try await store.assignments().first { $0.title == "Essay \(run)" }?.isCompleted
            #expect(done == true, "run \(run)")
        }
        // The path from the main app context works too; an empty path marks nothing.
        let poem = try scratch.file("poem.txt")
        let store = scratch.store()
        try await store.acceptAssignment(assignment(title: "Poem"), for: poem)
        store.completeAllAssignedActivities(matching: [])
        #expect(try await store.assignments().first { $0.title == "Poem" }?.isCompleted == false)
        store.completeAllAssignedActivities(matching: ["clsfile", poem.resolvingSymlinksInPath().path])
        #expect(try await store.assignments().first { $0.title == "Poem" }?.isCompleted == true)
    }

    @Test func submissionsKeepTheLatestPerStudentAndNeverDuplicate() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let given = assignment()
        try await store.recordAssignment(given)
        try await store.recordAssignment(given)
        func submission(_ digest: String, at seconds: Double, student: String = "s1") -> Submission {
            Submission(
                assignmentIdentifier: given.identifier, studentIdentifier: student, studentName: "Ada",
                submittedAt: Date(timeIntervalSince1970: seconds), digest: digest, payload: Data(digest.utf8))
        }
        #expect(try await store.importSubmission(submission("a", at: 100)) == .added)
        #expect(try await store.importSubmission(submission("a", at: 100)) == .unchanged)
        #expect(try await store.importSubmission(submission("b", at: 200)) == .updated)
        #expect(try await store.importSubmission(submission("old", at: 150)) == .superseded)
        #expect(try await store.importSubmission(submission("c", at: 50, student: "s2")) == .added)
        let held = try await store.submissions(forAssignment: given.identifier)
        #expect(held.map(\.digest).sorted() == ["b", "c"])
        // Every accepted submission stays in the history, the superseded one too.
        let history = try await store.submissionHistory(forAssignment: given.identifier)
        #expect(history.map(\.digest) == ["a", "old", "b", "c"])

        var unknown = submission("x", at: 1)
        unknown.assignmentIdentifier = "nope"
        #expect(await clsError { _ = try await store.importSubmission(unknown) }?.code == .invalidArgument)

        #expect(try await store.removeAssignment(identifier: given.identifier))
        #expect(try await store.submissions(forAssignment: given.identifier).isEmpty)
        #expect(try await store.removeAssignment(identifier: given.identifier) == false)
    }

    /// The first signed submission pins its student's key; another key is kept aside until trusted,
    /// and trusting imports what waited under it, but work dated in the future.
    @Test func aStudentsKeyIsPinnedAndAnotherKeyWaitsUntilTrusted() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let given = assignment()
        try await store.recordAssignment(given)
        let first = Data(repeating: 1, count: 65), second = Data(repeating: 2, count: 65)
        func submission(_ digest: String, at date: Date, key: Data) -> Submission {
            Submission(
                assignmentIdentifier: given.identifier, studentIdentifier: "ada", studentName: "Ada",
                submittedAt: date, digest: digest, payload: Data(digest.utf8), studentKey: key)
        }
        let now = Date()
        #expect(try await store.importSubmission(submission("a", at: now.addingTimeInterval(-100), key: first)) == .added)
        #expect(try await store.pinnedKey(forStudent: "ada") == first)
        #expect(try await store.importSubmission(submission("forged", at: now, key: second)) == .conflict)
        #expect(try await store.importSubmission(submission("forged", at: now, key: second)) == .conflict)
        try await store.keepAside(submission("future", at: now.addingTimeInterval(86_400), key: second))
        #expect(try await store.submissions(forAssignment: given.identifier).map(\.digest) == ["a"])
        #expect(try await store.keptAsideSubmissions().map(\.digest).sorted() == ["forged", "future"])

        #expect(try await store.trustStudentKey(second, forStudent: "ada") == [.updated])
        #expect(try await store.pinnedKey(forStudent: "ada") == second)
        #expect(try await store.submissions(forAssignment: given.identifier).map(\.digest) == ["forged"])
        #expect(try await store.keptAsideSubmissions().map(\.digest) == ["future"])
        #expect(try await store.importSubmission(submission("b", at: now, key: first)) == .conflict)
    }

    @Test func aDamagedContextPathSaysWhatToDo() async throws {
        let scratch = try Scratch()
        var given = assignment()
        given.contextPath = ["algebra", "ch1"]
        try await scratch.store().recordAssignment(given)
        #expect(try await scratch.store().assignments().first?.contextPath == ["algebra", "ch1"])
        let damaged = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, "UPDATE assignment SET context_path = '[\"algebra\"'"])
        #expect(damaged.status == 0, "\(damaged.errorOutput)")
        let error = await clsError { _ = try await scratch.store().assignments() }
        #expect(error?.code == .databaseInaccessible)
        #expect(
            error?.message.contains("the assignment \(given.identifier) in the store has a damaged context path") == true
                && error?.message.contains("clsfile assignments remove \(given.identifier)") == true, "\(error?.message ?? "")")
    }

    /// SQL that takes a store of schema 17 back to 6 (the assignment table's later columns go with
    /// it; the tables of 14 to 16 are made again only if missing).
    static let undoSchemaSeven =
        "ALTER TABLE time_span DROP COLUMN awaits_input; ALTER TABLE writing_history DROP COLUMN moved; DROP TABLE evidence_note; DROP TABLE dictated_session; DROP TABLE student_setting; DROP INDEX time_span_by_session; ALTER TABLE time_span DROP COLUMN session_id; ALTER TABLE time_span DROP COLUMN editor_run; DROP TABLE writing_history; DROP TABLE class_membership; DROP TABLE outbox_refused; DROP TABLE outbox; DROP TABLE class_server; ALTER TABLE context DROP COLUMN course_document; ALTER TABLE assignment DROP COLUMN context_path;"

    /// SQL that takes a store of schema 6 back to 5.
    static let undoSchemaSix =
        "DROP TABLE active_context; DROP INDEX context_sibling; ALTER TABLE context DROP COLUMN custom_type_name; ALTER TABLE context DROP COLUMN display_order; ALTER TABLE context DROP COLUMN topic; ALTER TABLE context DROP COLUMN summary; ALTER TABLE context DROP COLUMN thumbnail; ALTER TABLE context DROP COLUMN is_assignable; ALTER TABLE context DROP COLUMN suggested_age_from; ALTER TABLE context DROP COLUMN suggested_age_length; ALTER TABLE context DROP COLUMN suggested_time_from; ALTER TABLE context DROP COLUMN suggested_time_length; ALTER TABLE context DROP COLUMN capabilities; ALTER TABLE context DROP COLUMN universal_link;"

    @Test func aStoreOfTheFirstSchemaGainsAssignments() async throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: essay).progress = 0.5
        try await store.save()
        // Take the store back to schema 1, as clsfile 0.1 left it.
        let downgraded = try run(
            try Tool.sqlite3.require(),
            [
                scratch.storeURL.path,
                "\(Self.undoSchemaSeven) \(Self.undoSchemaSix) DROP TABLE submission_conflict; DROP TABLE student_key; DROP TABLE submission; DROP TABLE assignment; ALTER TABLE activity DROP COLUMN primary_kind; ALTER TABLE activity DROP COLUMN progress_basis; PRAGMA user_version = 1; PRAGMA wal_checkpoint(TRUNCATE);"
            ])
        #expect(downgraded.status == 0, "\(downgraded.errorOutput)")

        let reopened = scratch.store()
        try await reopened.acceptAssignment(assignment(), for: essay)
        #expect(try await reopened.isAssignedDocument(essay))
        #expect(try await reopened.fetchActivity(for: essay).progress == 0.5)
        let version = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, "PRAGMA user_version"])
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(StoreSchema.migrations.count)")
    }

    /// A store of schema 3 keeps its version-1 assignment (no teacher key) and the work collected
    /// for it; the rebuilt tables keep their foreign key, so removing the assignment removes the work.
    @Test func aStoreOfSchemaThreeKeepsItsAssignmentsAndSubmissions() async throws {
        let scratch = try Scratch()
        _ = try await scratch.store().assignments()
        let schema3 = """
            \(Self.undoSchemaSeven) \(Self.undoSchemaSix)
            DROP TABLE submission_conflict; DROP TABLE student_key; DROP TABLE submission; DROP TABLE assignment;
            ALTER TABLE activity DROP COLUMN primary_kind;
            CREATE TABLE assignment (id TEXT PRIMARY KEY, title TEXT NOT NULL, class_name TEXT, due_at REAL,
                target_words INTEGER, instructions TEXT, document_name TEXT NOT NULL, document_digest TEXT NOT NULL,
                class_key BLOB NOT NULL CHECK (length(class_key) = 32), created_at REAL NOT NULL, accepted_at REAL,
                context_id INTEGER UNIQUE REFERENCES context(id) ON DELETE SET NULL, is_reading INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE submission (assignment_id TEXT NOT NULL REFERENCES assignment(id) ON DELETE CASCADE,
                student_id TEXT NOT NULL, student_name TEXT NOT NULL, submitted_at REAL NOT NULL, digest TEXT NOT NULL,
                payload BLOB NOT NULL, imported_at REAL NOT NULL, PRIMARY KEY (assignment_id, student_id)) WITHOUT ROWID;
            INSERT INTO assignment (id, title, document_name, document_digest, class_key, created_at)
                VALUES ('old-1', 'Old essay', 'essay.txt', 'ab', zeroblob(32), 1700000000);
            INSERT INTO submission VALUES ('old-1', 'ada', 'Ada', 1700000100, 'd1', x'7b7d', 1700000200);
            PRAGMA user_version = 3; PRAGMA wal_checkpoint(TRUNCATE);
            """
        let downgraded = try run(try Tool.sqlite3.require(), [scratch.storeURL.path, schema3])
        #expect(downgraded.status == 0, "\(downgraded.errorOutput)")

        let store = scratch.store()
        let old = try #require(try await store.assignments().first)
        #expect(old.identifier == "old-1" && old.title == "Old essay" && old.teacherKey == nil)
        let held = try await store.submissions(forAssignment: "old-1")
        #expect(held.map(\.studentName) == ["Ada"] && held.first?.studentKey == nil && held.first?.payload == Data("{}".utf8))
        #expect(try await store.removeAssignment(identifier: "old-1"))
        let left = try run(
            try Tool.sqlite3.require(), [scratch.storeURL.path, "SELECT count(*) FROM submission; PRAGMA foreign_key_check;"])
        #expect(left.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(left.output)")
    }

    @Test func aMigrationThatFailsNamesItselfAndLeavesTheStoreAsItWas() async throws {
        let scratch = try Scratch()
        let essay = try scratch.file("essay.txt")
        let store = scratch.store()
        try await store.fetchActivity(for: essay).progress = 0.5
        try await store.save()
        // Schema 2 claimed, but the columns of 3 already there: migration 3 cannot add them again.
        let confused = try run(
            try Tool.sqlite3.require(),
            [
                scratch.storeURL.path,
                "PRAGMA user_version = 2; PRAGMA wal_checkpoint(TRUNCATE);"
            ])
        #expect(confused.status == 0, "\(confused.errorOutput)")

        let error = await #expect(throws: CLSError.self) { try await scratch.store().fetchActivity(for: essay) }
        #expect(error?.code == .databaseInaccessible)
        #expect(
            error?.message.contains("could not be brought to schema version 3 (progress basis and reading assignments)") == true,
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
