@testable import ClassServer
import ClassDashboard
import ClassSync
import ClassWire
import Classroom
import Crypto
import Foundation
import OpenClassKit
import PostgresNIO
import Testing
import TestSupport

/// Process evidence over the class server: students whose handouts ask for figures or replay
/// record sessions in their own stores and sync to a real `clsfile-server serve` on a private
/// PostgreSQL; the server holds the rows of their stores once, draws and replays them on the
/// teacher's pages, keeps each student to their own rows and its caps, and deletes them with the work.
@Suite(.serialized)
struct EvidenceSyncTests {
    /// A class on a running server, with a handout of an essay for each kind of evidence.
    struct Room {
        let school: ServerDatabaseTests.School
        let scratch: Scratch
        let server: SyncTests.RunningServer
        let teacherKey: P256.Signing.PrivateKey
        let recipient: P256.KeyAgreement.PrivateKey
        let teacher: UUID
        let classID: UUID
        let joinCode: String

        init() async throws {
            school = try await ServerDatabaseTests.School()
            scratch = try Scratch()
            let signing = P256.Signing.PrivateKey(), recipient = P256.KeyAgreement.PrivateKey()
            let (teacher, schoolClass) = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
                let teacher = try await database.addTeacher(
                    name: "Ms Ruiz", publicKey: signing.publicKey, recipientKey: recipient.publicKey)
                return (teacher.id, try await database.createClass(name: "9A", teacher: teacher.id.uuidString))
            }
            let handouts = [ProcessEvidence.figures, .replay, nil].map { evidence in
                SyncWire.HandoutRequest.Handout(
                    identifier: Self.assignment(asking: evidence),
                    assignment: .init(title: "Essay", className: "9A", documentName: "essay.txt", processEvidence: evidence))
            }
            _ = try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await database.registerHandouts(handouts, inClass: schoolClass.id, as: teacher)
            }
            server = try await SyncTests.RunningServer(school, in: scratch.url)
            (teacherKey, self.recipient, self.teacher, classID, joinCode) = (
                signing, recipient, teacher, schoolClass.id, schoolClass.joinCode
            )
        }

        /// The identifier of the handout asking for `evidence`.
        static func assignment(asking evidence: ProcessEvidence?) -> String { "essay-\(evidence?.rawValue ?? "none")" }

        /// The history the server holds of a student's work, as the teacher's pages read it.
        func history(of student: Student) async throws -> EvidenceReader.History? {
            try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await database.writingHistory(ofStudent: student.accountID, on: student.assignment, inClass: classID, as: teacher)
            }
        }

        /// The snapshots the server holds of a student's work, as the replay reads them.
        func snapshots(of student: Student) async throws -> [WritingSnapshotRecord] {
            try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                try await database.snapshotRecords(ofStudent: student.accountID, on: student.assignment, inClass: classID, as: teacher)
            }
        }

        /// How many history rows the database holds of a student, whoever may read them.
        func storedRows(of student: Student) throws -> String {
            try school.cluster.psql(
                "SELECT count(*) FROM clsfile.work_history WHERE student_id = '\(student.accountID)'", database: "clsfile")
        }

        /// The teacher's page of a student's work, and what follows its path (`/replay?step=2`).
        func page(of student: Student, _ suffix: String = "") async throws -> (status: Int, body: String) {
            let token = try await DeviceToken.make(key: teacherKey, audience: server.origin, lifetime: 300)
            let path =
                "/classes/\(classID.uuidString.lowercased())/assignments/\(student.assignment)/students/\(student.accountID.uuidString.lowercased())\(suffix)"
            return try await SyncTests.get("\(server.url.absoluteString)\(path)\(suffix.contains("?") ? "&" : "?")token=\(token)")
        }
    }

    /// A student's own clsfile: a store, their copy of the essay, a device key.
    struct Student {
        let store: CLSDataStore
        let essay: URL
        let client: SyncClient
        let assignment: String
        var accountID = UUID()
    }

    /// A student who accepted the handout asking for `evidence`, wrote `sessions` sessions, and
    /// then joined the class.
    static func student(_ name: String, asking evidence: ProcessEvidence?, writingFirst sessions: Int = 0, in room: Room) async throws
        -> Student
    {
        let folder = room.scratch.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let essay = folder.appendingPathComponent("essay.txt")
        try Data().write(to: essay)
        let store = CLSDataStore(storeURL: folder.appendingPathComponent("store.sqlite"))
        let assignment = Room.assignment(asking: evidence)
        try await store.acceptAssignment(
            Assignment(
                identifier: assignment, title: "Essay", className: "9A", documentName: "essay.txt",
                documentDigest: String(repeating: "ab", count: 32), teacherKey: room.recipient.publicKey.x963Representation,
                processEvidence: evidence),
            for: essay)
        var student = Student(
            store: store, essay: essay, client: try SyncClient(serverURL: room.server.url, key: P256.Signing.PrivateKey()),
            assignment: assignment)
        try await write(sessions, to: student)
        let joined = try await student.client.join(code: room.joinCode, name: name)
        student.accountID = joined.accountID
        try await store.joinClassServer(
            ClassServerMembership(
                serverURL: student.client.serverURL, accountID: joined.accountID, classID: joined.classID, className: joined.className,
                teacherKey: joined.teacherKey))
        return student
    }

    /// Sessions of a minute, ten minutes apart and ending a minute ago, each adding a line to the essay.
    static func write(_ sessions: Int, to student: Student) async throws {
        var text = try String(contentsOf: student.essay, encoding: .utf8)
        let lines = text.split(separator: "\n").count
        for index in 0..<sessions {
            text += "Line \(lines + index): the river runs past the mill and on to the sea.\n"
            try Data(text.utf8).write(to: student.essay)
            let activity = try await student.store.fetchActivity(for: student.essay)
            let end = Date().addingTimeInterval(-Double(sessions - index) * 600)
            activity.start(at: end.addingTimeInterval(-60), continuingWithin: 0)
            let count = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
            count.quantity = Double(13 * (lines + index + 1))
            activity.primaryActivityItem = count
            activity.stop(at: end, idleTimeout: nil)
            try await student.store.save()
        }
    }

    @Test func figuresAndReplayReachTheServerOnceAndItsPagesDrawThem() async throws {
        let room = try await Room()
        let ada = try await Self.student("ada", asking: .replay, in: room)
        let bob = try await Self.student("bob", asking: .figures, in: room)
        try await Self.write(3, to: ada)
        try await Self.write(3, to: bob)
        // What waits to go: Ada's rows with their snapshots, Bob's without.
        let adaWaiting = try await ada.store.pendingSyncOperations(limit: 500)
        let adaRows = adaWaiting.flatMap { $0.operation.historyRows ?? [] }
        #expect(!adaRows.isEmpty && adaRows.allSatisfy { $0.snapshot != nil })
        let bobRows = try await bob.store.pendingSyncOperations(limit: 500).flatMap { $0.operation.historyRows ?? [] }
        #expect(!bobRows.isEmpty && bobRows.allSatisfy { $0.delta == nil && $0.digest == nil })
        #expect(try await ada.client.sendOutbox(of: ada.store).sent == adaWaiting.count)
        _ = try await bob.client.sendOutbox(of: bob.store)

        // The server holds the rows of each student's own store.
        let adaSnapshots = try await ada.store.snapshotRecords(of: ada.essay)
        #expect(adaSnapshots.count >= 3)
        #expect(
            try await room.history(of: ada)
                == EvidenceReader.History(
                    entries: try await ada.store.writingHistory(for: ada.essay).entries, snapshots: adaSnapshots.count))
        #expect(try await room.snapshots(of: ada) == adaSnapshots)
        #expect(
            try await room.history(of: bob)
                == EvidenceReader.History(entries: try await bob.store.writingHistory(for: bob.essay).entries, snapshots: 0))
        #expect(try await room.snapshots(of: bob).isEmpty)

        // Sent again, the operations apply once, and the rows stay as they were.
        let again = try await ada.client.send(adaWaiting.map(\.operation), classID: room.classID)
        #expect(again.applied == 0 && again.repeated == adaWaiting.count)
        #expect(try await room.snapshots(of: ada) == adaSnapshots)

        // The teacher's pages draw the history as `clsfile serve` does, and replay Ada's text.
        let adaPage = try await room.page(of: ada)
        #expect(adaPage.status == 200)
        #expect(adaPage.body.contains("<h2>How it was written</h2>") && adaPage.body.contains("id=\"writing-history\""))
        #expect(adaPage.body.contains("Replay the text, \(adaSnapshots.count) steps"), "\(adaPage.body)")
        let replay = try await room.page(of: ada, "/replay?step=\(adaSnapshots.count)")
        #expect(replay.status == 200 && replay.body.contains("step \(adaSnapshots.count) of \(adaSnapshots.count)"))
        #expect(replay.body.contains("Line 0: the river runs past the mill"), "\(replay.body)")
        let bobPage = try await room.page(of: bob)
        #expect(bobPage.status == 200 && bobPage.body.contains("id=\"writing-history\""))
        #expect(!bobPage.body.contains("Replay the text"))
        #expect(try await room.page(of: bob, "/replay?step=1").status == 404)
    }

    @Test func anAssignmentWithoutEvidenceSendsNone() async throws {
        let room = try await Room()
        let cy = try await Self.student("cy", asking: nil, in: room)
        try await Self.write(2, to: cy)
        #expect(try await cy.store.writingHistory(for: cy.essay).entries.count >= 2)
        let waiting = try await cy.store.pendingSyncOperations(limit: 500)
        #expect(!waiting.isEmpty && waiting.allSatisfy { $0.operation.historyRows == nil && $0.operation.removedHistoryRows == nil })
        _ = try await cy.client.sendOutbox(of: cy.store)
        #expect(try room.storedRows(of: cy) == "0")
        #expect(try await room.history(of: cy) == nil)
        let page = try await room.page(of: cy)
        #expect(page.status == 200 && !page.body.contains("How it was written"))
    }

    @Test func aWholeHistoryGoesWhenJoiningAndTakesItsFigure() async throws {
        let room = try await Room()
        let started = Date()
        let dee = try await Self.student("dee", asking: .replay, writingFirst: 200, in: room)
        let written = Date().timeIntervalSince(started)
        let waiting = try await dee.store.pendingSyncOperations(limit: 10_000)
        let bytes = try waiting.reduce(0) { $0 + (try SyncWire.encoder.encode($1.operation).count) }
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await dee.client.sendOutbox(of: dee.store)
        let took = clock.now - start
        let snapshots = try await dee.store.snapshotRecords(of: dee.essay)
        print(
            "evidence figure (debug build): 200 sessions, \(snapshots.count) snapshots of \(snapshots.reduce(0) { $0 + $1.delta.count }) bytes; sync sent \(outcome.sent) operations, \(bytes) bytes of JSON, in \(outcome.batches) requests, \(took); writing the sessions took \(String(format: "%.1f", written)) s"
        )
        #expect(try await room.snapshots(of: dee) == snapshots)
        #expect(try await room.history(of: dee)?.entries == (try await dee.store.writingHistory(for: dee.essay).entries))
    }

    @Test func aStudentWritesOnlyTheirOwnEvidenceWhichGoesWithTheirWork() async throws {
        let room = try await Room()
        let ada = try await Self.student("ada", asking: .replay, writingFirst: 2, in: room)
        let mallory = try await Self.student("mallory", asking: .replay, writingFirst: 1, in: room)
        _ = try await ada.client.sendOutbox(of: ada.store)
        _ = try await mallory.client.sendOutbox(of: mallory.store)
        let adaSnapshots = try await room.snapshots(of: ada)
        #expect(adaSnapshots.count >= 2)
        try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
            // Mallory, through the database as herself, writes no row of Ada's work …
            await #expect(throws: (any Error).self) {
                try await database.asAccount(mallory.accountID) { connection in
                    _ = try await connection.run(
                        """
                        INSERT INTO clsfile.work_history (class_id, student_id, assignment_id, row_id, entry)
                        VALUES (\(room.classID), \(ada.accountID), 'essay-replay', 999, '{}'::jsonb)
                        """, logger: database.logger
                    ).collected()
                }
            }
            // … and neither sees, changes nor removes any.
            let seen = try await database.asAccount(mallory.accountID) { connection in
                _ = try await connection.run(
                    "UPDATE clsfile.work_history SET delta = NULL, digest = NULL WHERE student_id = \(ada.accountID)",
                    logger: database.logger
                ).collected()
                _ = try await connection.run(
                    "DELETE FROM clsfile.work_history WHERE student_id = \(ada.accountID)", logger: database.logger
                )
                .collected()
                return try await connection.run(
                    "SELECT count(*) FROM clsfile.work_history WHERE student_id = \(ada.accountID)", logger: database.logger
                ).decode(Int64.self).collected().first
            }
            #expect(seen == 0)
        }
        #expect(try await room.snapshots(of: ada) == adaSnapshots)

        // Forgetting a student deletes their rows with their work; archiving the class, the rest.
        #expect(try room.storedRows(of: mallory) != "0")
        _ = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) {
            try await $0.forgetStudent(ada.accountID.uuidString)
        }
        #expect(try room.storedRows(of: ada) == "0")
        #expect(try room.storedRows(of: mallory) != "0")
        _ = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) {
            try await $0.archiveClass(room.classID.uuidString, to: room.scratch.url.appendingPathComponent("9A.json"))
        }
        #expect(try room.school.cluster.psql("SELECT count(*) FROM clsfile.work_history", database: "clsfile") == "0")
    }

    @Test func evidenceBeyondTheCapsIsRefusedWholeAndAStartAgainClearsIt() async throws {
        let room = try await Room()
        let eve = try await Self.student("eve", asking: .replay, in: room)
        let now = Date().timeIntervalSince1970 - 120
        let entry = WritingHistoryEntry(
            date: Date(timeIntervalSince1970: now), sessionStart: Date(timeIntervalSince1970: now - 60), activeTime: 60)
        func operation(_ rows: [SyncOperation.HistoryRow], attempt: Int = 0) -> SyncOperation {
            var made = SyncOperation(
                assignmentIdentifier: eve.assignment, attempt: attempt, madeAt: now,
                assignment: .init(title: "Essay", documentName: "essay.txt", processEvidence: .replay))
            made.historyRows = rows
            return made
        }
        func send(_ operations: [SyncOperation]) async throws {
            try OperationCheck.check(operations)
            _ = try await ServerDatabase.withDatabase(room.school.app, logger: .tests) { database in
                try await database.apply(operations, toClass: room.classID, as: eve.accountID)
            }
        }
        func expectRefusal(_ operations: [SyncOperation], saying text: String) async throws {
            let before = try room.storedRows(of: eve)
            let refused = await #expect(throws: ServerError.self) { try await send(operations) }
            #expect(refused?.code == .tooLarge)
            #expect(refused?.message.contains(text) == true, "\(refused?.message ?? "")")
            #expect(try room.storedRows(of: eve) == before)
        }
        // Rows: the cap held, one more refused.
        try await send([operation((1...Int64(WorkLimits.maximumHistoryRows)).map { SyncOperation.HistoryRow(id: $0, entry: entry) })])
        try await expectRefusal(
            [operation([SyncOperation.HistoryRow(id: Int64(WorkLimits.maximumHistoryRows) + 1, entry: entry)])],
            saying: "would hold \(WorkLimits.maximumHistoryRows + 1) history rows, more than the \(WorkLimits.maximumHistoryRows)")
        // A later attempt starts the evidence again: the rows held go.
        try await send([operation([SyncOperation.HistoryRow(id: 1, entry: entry)], attempt: 1)])
        #expect(try room.storedRows(of: eve) == "1")
        // Bytes of snapshots: the cap held, one byte more refused.
        let quarter = WorkLimits.maximumSnapshotBytes / 4
        func snapshot(_ id: Int64, bytes: Int) -> SyncOperation.HistoryRow {
            .init(
                id: id, entry: entry,
                snapshot: WritingSnapshotRecord(
                    entry: entry, delta: Data(repeating: 7, count: bytes), digest: Data(count: 16), isKeyframe: true))
        }
        try await send([operation((2...5).map { snapshot($0, bytes: quarter) }, attempt: 1)])
        try await expectRefusal(
            [operation([snapshot(6, bytes: 1)], attempt: 1)],
            saying: "would hold \(WorkLimits.maximumSnapshotBytes + 1) bytes of snapshots, more than the \(WorkLimits.maximumSnapshotBytes)"
        )
        // A row with a digest that is no digest is refused before anything is applied.
        let damaged = SyncOperation.HistoryRow(
            id: 7, entry: entry, snapshot: WritingSnapshotRecord(entry: entry, delta: Data([1]), digest: Data(count: 3), isKeyframe: true))
        let refused = #expect(throws: ServerError.self) { try OperationCheck.check([operation([damaged], attempt: 1)]) }
        #expect(refused?.message.contains("a snapshot digest of 3 bytes, not 16") == true)
        // A hand-made row whose moved characters are negative or beyond any count is refused too.
        for moved in [-1, Int.max / 2] {
            var forged = entry
            forged.movedCharacters = moved
            let refusal = #expect(throws: ServerError.self) {
                try OperationCheck.check([operation([SyncOperation.HistoryRow(id: 8, entry: forged)], attempt: 1)])
            }
            #expect(refusal?.message.contains("figures are out of range") == true, "\(moved): \(refusal?.message ?? "")")
        }
    }
}

/// What a sync's operations change of a work's evidence, counted as the work's own merge counts them.
struct EvidenceChangesTests {
    private func operation(attempt: Int, replacing: Bool = false, rows: [Int64] = [], removing: [Int64]? = nil) -> SyncOperation {
        var made = SyncOperation(
            assignmentIdentifier: "essay", attempt: attempt, madeAt: 1_800_000_000,
            assignment: .init(title: "Essay", documentName: "essay.txt"))
        made.replacesWork = replacing
        made.historyRows = rows.map {
            SyncOperation.HistoryRow(id: $0, entry: WritingHistoryEntry(date: Date(), sessionStart: Date(), activeTime: Double($0)))
        }
        made.removedHistoryRows = removing
        return made
    }

    @Test func laterRowsReplaceEarlierAndRemovalsGoFirst() {
        let changes = EvidenceChanges(
            [operation(attempt: 0, rows: [1, 2]), operation(attempt: 0, rows: [2, 3], removing: [1])], heldAttempt: 0)
        #expect(!changes.clearsHeld && changes.removed == [1])
        #expect(changes.rows.keys.sorted() == [2, 3] && changes.rows[2]?.entry.activeTime == 2)
    }

    @Test func aLaterAttemptOrASnapshotStartsAgainAndAnEarlierAttemptChangesNothing() {
        let later = EvidenceChanges([operation(attempt: 0, rows: [1]), operation(attempt: 1, rows: [5])], heldAttempt: 0)
        #expect(later.clearsHeld && later.rows.keys.sorted() == [5])
        let replaced = EvidenceChanges([operation(attempt: 2, replacing: true), operation(attempt: 2, rows: [1])], heldAttempt: 2)
        #expect(replaced.clearsHeld && replaced.rows.keys.sorted() == [1])
        let earlier = EvidenceChanges([operation(attempt: 1, rows: [1], removing: [4])], heldAttempt: 2)
        #expect(earlier.isEmpty)
        #expect(EvidenceChanges.of(["essay": [operation(attempt: 0)]], heldAttempts: ["essay": 0]).isEmpty)
    }
}
