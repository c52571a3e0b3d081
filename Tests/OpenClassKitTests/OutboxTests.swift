import Foundation
@testable import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// The store's outbox with several classes joined: each assignment's work is queued only for the
/// classes of the teacher whose handout it is, leaving a class drops only its own, and a store
/// that joined a class before classes were tied to teachers keeps syncing it.
@Suite struct OutboxTests {
    private let server = URL(string: "https://class.example.org")!
    private let account = UUID()

    private func assignment(_ title: String, teacher key: UInt8) -> Assignment {
        Assignment(
            identifier: UUID().uuidString.lowercased(), title: title, className: "7B", documentName: "\(title).txt",
            documentDigest: String(repeating: "ab", count: 32), teacherKey: Data(repeating: key, count: 65))
    }

    private func membership(_ name: String, teacher key: UInt8?, server: URL? = nil) -> ClassServerMembership {
        ClassServerMembership(
            serverURL: server ?? self.server, accountID: account, classID: UUID(), className: name,
            teacherKey: key.map { Data(repeating: $0, count: 65) })
    }

    /// Saves a change to a file's activity.
    private func work(on file: URL, in store: CLSDataStore, progress: Double) async throws {
        try await store.fetchActivity(for: file).progress = progress
        try await store.save()
    }

    /// The classes the waiting operations are for, in order, by name.
    private func queuedClasses(_ store: CLSDataStore, _ classes: [ClassServerMembership]) async throws -> [String] {
        try await store.pendingAll().map { entry in classes.first { $0.classID == entry.classID }?.className ?? "?" }
    }

    @Test func eachAssignmentsWorkGoesOnlyToItsTeachersClasses() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt"), poem = try scratch.file("poem.txt"), notes = try scratch.file("notes.txt")
        try await store.acceptAssignment(assignment("essay", teacher: 1), for: essay)
        try await store.acceptAssignment(assignment("poem", teacher: 2), for: poem)
        try await work(on: essay, in: store, progress: 0.2)
        try await work(on: poem, in: store, progress: 0.1)

        // Joining the essay teacher's class sends that class the essay's work so far, not the poem's.
        let rivera = membership("7B", teacher: 1), okafor = membership("8C", teacher: 2), other = membership("9A", teacher: 3)
        #expect(try await store.joinClassServer(rivera) == 1)
        #expect(try await store.joinClassServer(okafor) == 1)
        #expect(try await store.joinClassServer(other) == 0)
        let classes = [rivera, okafor, other]
        #expect(try await queuedClasses(store, classes) == ["7B", "8C"])
        #expect(try await store.classServerMemberships().map(\.className) == ["7B", "8C", "9A"])
        #expect(try await store.classServerMemberships().map(\.teacherKey) == classes.map(\.teacherKey))

        try await store.acknowledgeSyncOperations(try await store.pendingAll().map(\.sequence))
        try await work(on: essay, in: store, progress: 0.4)
        try await work(on: poem, in: store, progress: 0.5)
        try await work(on: notes, in: store, progress: 0.9)
        #expect(try await queuedClasses(store, classes) == ["7B", "8C"])
        let operations = try await store.pendingAll()
        #expect(operations.map(\.operation.assignment.documentName) == ["essay.txt", "poem.txt"])

        #expect(try await store.assignmentsSyncedToNoClass().isEmpty)
        // Leaving 8C drops what waited for it; the poem's work is queued for no class after.
        #expect(try await store.leaveClassServer(classID: okafor.classID) == 1)
        #expect(try await store.assignmentsSyncedToNoClass().map(\.title) == ["poem"])
        try await work(on: poem, in: store, progress: 0.6)
        #expect(try await queuedClasses(store, classes) == ["7B"])
        #expect(try await store.classServerMemberships().map(\.className) == ["7B", "9A"])

        // Joining another server leaves this one's classes and drops what waited for them.
        let elsewhere = membership("Z", teacher: 1, server: URL(string: "https://other.example.org")!)
        #expect(try await store.joinClassServer(elsewhere) == 1)
        #expect(try await store.classServerMemberships().map(\.className) == ["Z"])
        #expect(try await store.pendingAll().map(\.classID) == [elsewhere.classID])
        #expect(try await store.leaveClassServer() == 1)
        #expect(try await store.classServerMemberships().isEmpty)
        try await work(on: essay, in: store, progress: 0.7)
        #expect(try await store.syncOutboxDepth() == 0)
    }

    @Test func twoClassesOfOneTeacherEachGetTheWorkWithOperationsOfTheirOwn() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt")
        try await store.acceptAssignment(assignment("essay", teacher: 1), for: essay)
        let morning = membership("7B", teacher: 1), afternoon = membership("7C", teacher: 1)
        try await store.joinClassServer(morning)
        try await store.joinClassServer(afternoon)
        try await store.acknowledgeSyncOperations(try await store.pendingAll().map(\.sequence))
        try await work(on: essay, in: store, progress: 0.3)
        let operations = try await store.pendingAll()
        #expect(operations.map(\.classID) == [morning.classID, afternoon.classID])
        #expect(Set(operations.map(\.operation.id)).count == 2)
        var same = operations[1].operation
        same.id = operations[0].operation.id
        #expect(same == operations[0].operation)
    }

    /// A store of schema 8 joined one class without its teacher's key: it keeps the class and
    /// what waited for it, and the class keeps getting every assignment's work until joined again.
    @Test func aClassJoinedAtSchemaEightKeepsSyncing() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt")
        try await store.acceptAssignment(assignment("essay", teacher: 1), for: essay)
        let classID = UUID()
        // The schema-8 tables, as clsfile left them, with one class joined and one operation waiting.
        let downgraded = try run(
            try Tool.sqlite3.require(),
            [
                scratch.storeURL.path,
                """
                ALTER TABLE time_span DROP COLUMN awaits_input; ALTER TABLE writing_history DROP COLUMN moved;
                ALTER TABLE assignment DROP COLUMN submitted_at;
                DROP TABLE evidence_note; DROP TABLE dictated_session; DROP TABLE student_setting;
                DROP INDEX time_span_by_session; ALTER TABLE time_span DROP COLUMN session_id; ALTER TABLE time_span DROP COLUMN editor_run;
                DROP TABLE writing_history; ALTER TABLE assignment DROP COLUMN process_evidence;
                DROP TABLE class_membership; DROP TABLE class_server; ALTER TABLE assignment DROP COLUMN covers_context_tree; ALTER TABLE assignment DROP COLUMN class_id;
                CREATE TABLE class_server (slot INTEGER PRIMARY KEY CHECK (slot = 1), url TEXT NOT NULL, account_id TEXT NOT NULL,
                    class_id TEXT NOT NULL, class_name TEXT NOT NULL, joined_at REAL NOT NULL, last_sync_at REAL, last_error TEXT);
                INSERT INTO class_server VALUES (1, '\(server.absoluteString)', '\(account.uuidString)', '\(classID.uuidString)', '7B', 1700000000, 1700000100, NULL);
                INSERT INTO outbox (class_id, operation) VALUES ('\(classID.uuidString)', '{"waiting":true}');
                PRAGMA user_version = 8; PRAGMA wal_checkpoint(TRUNCATE);
                """
            ])
        #expect(downgraded.status == 0, "\(downgraded.errorOutput)")

        let reopened = scratch.store()
        let memberships = try await reopened.classServerMemberships()
        #expect(
            memberships == [
                ClassServerMembership(
                    serverURL: server, accountID: account, classID: classID, className: "7B", teacherKey: nil,
                    joinedAt: Date(timeIntervalSince1970: 1_700_000_000),
                    lastSyncAt: Date(timeIntervalSince1970: 1_700_000_100))
            ])
        #expect(try await reopened.syncOutboxDepth() == 1)
        try await work(on: essay, in: reopened, progress: 0.5)
        #expect(try await reopened.syncOutboxDepth() == 2)
        // Another class cannot be joined beside it: it would get that class's teacher's work too.
        let refused = await #expect(throws: CLSError.self) { try await reopened.joinClassServer(membership("8C", teacher: 2)) }
        #expect(
            refused?.message.contains("the class 7B was joined before classes were tied to their teacher") == true,
            "\(refused?.message ?? "")")
        #expect(try await reopened.classServerMemberships().map(\.className) == ["7B"])
        // Joined again, the class is tied to its teacher.
        var again = memberships[0]
        again.teacherKey = Data(repeating: 1, count: 65)
        try await reopened.joinClassServer(again)
        #expect(try await reopened.classServerMemberships().map(\.teacherKey) == [again.teacherKey])
        try await reopened.joinClassServer(membership("8C", teacher: 2))
        #expect(try await reopened.classServerMemberships().map(\.className) == ["7B", "8C"])
    }

    // MARK: Assignments of context trees

    /// An assignment of a catalog's context, as a class server's class hands it out.
    private func treeAssignment(
        _ title: String, _ path: [String], teacher key: UInt8 = 1, id: String = UUID().uuidString.lowercased(),
        for classID: UUID? = nil
    ) -> Assignment {
        Assignment(
            identifier: id, title: title, className: "7B", documentName: path.last ?? "", documentDigest: "",
            teacherKey: Data(repeating: key, count: 65), contextPath: path, coversContextTree: true, classIdentifier: classID)
    }

    /// Contexts of a course, each made and given an attempt with some progress, saved, in a
    /// store whose main app context is `app`.
    private func work(on paths: [[String]], app: String = "clsfile", in scratch: Scratch, progress: Double = 0.5) async throws {
        let store = CLSDataStore(storeURL: scratch.storeURL, configuration: .init(appIdentifier: app, busyTimeout: 30))
        var entries: [CourseManifest.Entry] = []
        for path in paths {
            for depth in 1...path.count where !entries.contains(where: { $0.data.identifierPath == Array(path.prefix(depth)) }) {
                let json = try JSONSerialization.data(withJSONObject: [
                    "identifierPath": Array(path.prefix(depth)), "title": path[depth - 1].capitalized, "type": "quiz"
                ])
                entries.append(CourseManifest.Entry(data: try JSONDecoder().decode(CourseManifest.ContextData.self, from: json)))
            }
        }
        _ = try await store.importContexts(CourseManifest(contexts: entries))
        for path in paths {
            let context = try #require(try await store.mainAppContext.descendant(matchingIdentifierPath: path))
            let activity = context.currentActivity ?? context.createNewActivity()
            activity.progress = progress
            try await store.save()
        }
    }

    @Test func theWorkUnderAnAssignedContextTreeReportsToAssignmentsDerivedPerContext() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let essay = try scratch.file("essay.txt")
        try await store.acceptAssignment(assignment("essay", teacher: 1), for: essay)
        let rivera = membership("7B", teacher: 1), club = membership("Science club", teacher: 1)
        try await store.joinClassServer(rivera)
        try await store.joinClassServer(club)
        // Work before the assignment: under the chapter, beside it, and the essay.
        try await work(on: [["algebra", "ch1", "quiz"], ["algebra", "ch1"], ["algebra", "ch2", "quiz"]], in: scratch)
        try await work(on: essay, in: store, progress: 0.2)
        try await store.acknowledgeSyncOperations(try await store.pendingAll().map(\.sequence))

        // Made for 7B: its work goes to 7B only, not to the same teacher's club.
        let chapter = treeAssignment("Chapter 1", ["algebra", "ch1"], for: rivera.classID)
        #expect(try await store.acceptContextTreeAssignment(chapter) == 2)
        #expect(try await store.pendingAll().allSatisfy { $0.classID == rivera.classID })
        var operations = try await store.pendingAll().map(\.operation)
        #expect(operations.map(\.assignment.title) == ["Chapter 1", "Chapter 1: Quiz"])
        #expect(operations.map(\.assignment.documentName) == ["ch1", "quiz"])
        #expect(operations.allSatisfy { $0.replacesWork && $0.assignment.contextPath == ["algebra", "ch1"] && $0.ranges.isEmpty == false })
        let derived = operations.map(\.assignmentIdentifier)
        #expect(derived.allSatisfy { $0.hasPrefix("ctx-") } && Set(derived).count == 2)
        // Accepting it again changes nothing; the chapter's assignment itself ties to no file.
        #expect(try await store.acceptContextTreeAssignment(chapter) == 2)
        #expect(try await store.syncOutboxDepth() == 2)
        #expect(try await store.assignments().first { $0.identifier == chapter.identifier }?.documentURL == nil)

        // New work: a new context under the chapter gets its assignment at its first save; work
        // beside it (ch2) and the essay's keep theirs; a nested assignment takes its own subtree.
        try await store.acknowledgeSyncOperations(try await store.pendingAll().map(\.sequence))
        #expect(try await store.acceptContextTreeAssignment(treeAssignment("Test", ["algebra", "ch1", "test"], for: rivera.classID)) == 0)
        try await work(
            on: [["algebra", "ch1", "drill"], ["algebra", "ch1", "test", "part-a"], ["algebra", "ch2", "quiz"]], in: scratch, progress: 0.7)
        try await work(on: essay, in: store, progress: 0.4)
        // (A new attempt queues its snapshot, then the save its change: two operations each.)
        let entries = try await store.pendingAll()
        #expect(
            entries.map(\.classID) == [rivera.classID, rivera.classID, rivera.classID, rivera.classID, rivera.classID, club.classID],
            "the handout's work goes to both classes of its teacher")
        operations = entries.dropLast().map(\.operation)
        #expect(operations.map(\.assignment.title) == ["Chapter 1: Drill", "Chapter 1: Drill", "Test: Part-A", "Test: Part-A", "essay"])
        #expect(Set(operations.map(\.assignment.documentName)) == ["drill", "part-a", "essay.txt"])
        #expect(
            operations.map(\.assignment.contextPath) == [
                ["algebra", "ch1"], ["algebra", "ch1"], ["algebra", "ch1", "test"],
                ["algebra", "ch1", "test"], nil
            ])

        // Another app's context at the same path is another assignment; another student's store
        // derives the same identifiers for the same app's contexts.
        try await store.acknowledgeSyncOperations(try await store.pendingAll().map(\.sequence))
        try await work(on: [["algebra", "ch1", "quiz"]], app: "com.example.algebra", in: scratch, progress: 0.9)
        let otherApp = try #require(try await store.pendingAll().first?.operation)
        #expect(otherApp.assignment.title == "Chapter 1: Quiz" && !derived.contains(otherApp.assignmentIdentifier))
        let classmate = try Scratch()
        let theirs = classmate.store()
        try await theirs.joinClassServer(rivera)
        #expect(try await theirs.acceptContextTreeAssignment(chapter) == 0)
        try await work(on: [["algebra", "ch1", "quiz"]], in: classmate)
        #expect(Set(try await theirs.pendingAll().map(\.operation.assignmentIdentifier)) == [derived[1]])
    }

    @Test func anAssignmentOfAContextTreeIsRefusedWhenItIsNoneOrItsIdentifierIsTaken() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        var plain = treeAssignment("Chapter 1", ["algebra", "ch1"])
        plain.coversContextTree = false
        let none = await #expect(throws: CLSError.self) { try await store.acceptContextTreeAssignment(plain) }
        #expect(none?.code == .invalidArgument)
        let chapter = treeAssignment("Chapter 1", ["algebra", "ch1"], teacher: 1)
        try await store.acceptContextTreeAssignment(chapter)
        for taken in [
            treeAssignment("Chapter 1", ["algebra", "ch1"], teacher: 2, id: chapter.identifier),
            treeAssignment("Chapter 2", ["algebra", "ch2"], teacher: 1, id: chapter.identifier)
        ] {
            let refused = await #expect(throws: CLSError.self) { try await store.acceptContextTreeAssignment(taken) }
            #expect(refused?.code == .invalidModification && refused?.message.contains("cannot be reused") == true)
        }
        // Not joined to any class: the work is recorded, and nothing is queued or derived.
        try await work(on: [["algebra", "ch1", "quiz"]], in: scratch)
        #expect(try await store.syncOutboxDepth() == 0)
        #expect(try await store.assignments().map(\.identifier) == [chapter.identifier])
    }
}

extension CLSDataStore {
    /// Every operation waiting, whichever class it is for, read with the sqlite3 tool.
    fileprivate func pendingAll() async throws -> [OutboxEntry] {
        struct Row: Decodable {
            var seq: Int64
            var class_id: String
            var operation: String
        }
        let read = try run(try Tool.sqlite3.require(), ["-json", storeURL.path, "SELECT seq, class_id, operation FROM outbox ORDER BY seq"])
        guard read.status == 0 else { throw CLSError(.databaseInaccessible, read.errorOutput) }
        guard !read.output.isEmpty else { return [] }
        return try JSONDecoder().decode([Row].self, from: Data(read.output.utf8)).map { row in
            OutboxEntry(
                sequence: row.seq, classID: try #require(UUID(uuidString: row.class_id)),
                operation: try JSONDecoder().decode(SyncOperation.self, from: Data(row.operation.utf8)))
        }
    }
}
