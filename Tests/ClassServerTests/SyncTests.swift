@testable import ClassServer
import ClassWire
import Classroom
import ClassSync
import CommandSupport
import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import OpenClassKit
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Students' work reaching the class server: `clsfile join` and `clsfile sync` against a real
/// `clsfile-server serve` on a private PostgreSQL, the server's report checked against each
/// student's own store, and every request that must be refused.
@Suite(.serialized)
struct SyncTests {
    /// One person's clsfile: their own configuration and data folders.
    struct User {
        let home: URL

        init(_ name: String, in scratch: Scratch) throws {
            home = scratch.url.appendingPathComponent("people/\(name)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        }

        var environment: [String: String] {
            [
                "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                "XDG_DATA_HOME": home.appendingPathComponent("data").path, "CLSFILE_STORE": ""
            ]
        }

        var dataHome: URL { home.appendingPathComponent("data/clsfile") }

        func store(_ role: DeveloperMode.Role) -> CLSDataStore {
            CLSDataStore(storeURL: DeveloperMode.storeURL(for: role, dataHome: dataHome))
        }

        func identity(_ role: DeveloperMode.Role) throws -> Identity {
            try Identity.read(from: Identity.url(for: role, dataHome: dataHome))
        }

        @discardableResult
        func clsfile(
            _ arguments: String..., expecting status: Int32 = 0,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ProcessResult {
            try clsfile(arguments, expecting: status, sourceLocation: sourceLocation)
        }

        @discardableResult
        func clsfile(
            _ arguments: [String], expecting status: Int32 = 0,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ProcessResult {
            let result = try run(try builtExecutable("clsfile"), arguments, environment: environment)
            #expect(
                result.status == status, "clsfile \(arguments.joined(separator: " ")): \(result.errorOutput)",
                sourceLocation: sourceLocation)
            return result
        }
    }

    /// `clsfile-server serve` on a free port, as the app role; killed when released.
    final class RunningServer: Sendable {
        let server: ServerProcess
        let url: URL
        /// The origin its tokens must name: the address it printed.
        let origin: ServerOrigin
        var process: SpawnedProcess { server.process }

        init(
            _ school: ServerDatabaseTests.School, in folder: URL, port: Int = 0, name: String = "server",
            options: [String] = []
        ) async throws {
            let environment = ["DATABASE_URL": school.cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile")]
            server = try await ServerProcess(
                program: try builtExecutable("clsfile-server").path,
                ["serve", "--port", "\(port)"] + options, environment: environment,
                in: folder, name: name, announcing: "clsfile-server listening on ")
            url = try #require(URL(string: server.url))
            origin = try ServerOrigin(url)
        }

        deinit {
            process.signal(SIGKILL)
            _ = process.waitBlocking(timeout: 10)
        }
    }

    /// A school with a teacher, a class and a running server.
    struct Classroom {
        let school: ServerDatabaseTests.School
        let scratch: Scratch
        let teacher: User
        let code: String
        var server: RunningServer
        /// The teacher's handout of `essay.md`, in `shared/`.
        let shared: URL

        init() async throws {
            school = try await ServerDatabaseTests.School()
            scratch = try Scratch()
            (teacher, code, shared) = try Self.addTeacher(
                "teacher", name: "Ms Rivera", className: "7B", handing: "essay.md",
                text: "# Rivers\n\n- [ ] introduction\n- [ ] sources\n",
                title: "Essay on rivers", school: school, in: scratch)
            self.server = try await RunningServer(school, in: scratch.url)
            try register(teacher)
        }

        /// The teacher registers their handouts with their class on the server, as students'
        /// work reaches a class only on the assignments it has.
        func register(_ teacher: User) throws {
            let registered = try teacher.clsfile("register", "--server", server.url.absoluteString)
            #expect(registered.output.contains("handout"), "\(registered.output)")
        }

        /// A teacher in their role, registered on the server by an administrator with the keys
        /// `clsfile role teacher --public-key` prints, with a class of theirs and a handout of a
        /// document in a shared folder of theirs.
        static func addTeacher(
            _ login: String, name: String, className: String, handing document: String, text: String,
            title: String, school: ServerDatabaseTests.School, in scratch: Scratch
        ) throws -> (User, String, URL) {
            let teacher = try User(login, in: scratch)
            try teacher.clsfile("role", "teacher")
            let pem = try teacher.clsfile("role", "--public-key")
            let keyFile = scratch.url.appendingPathComponent("\(login).pem")
            try Data(pem.output.utf8).write(to: keyFile)
            let admin = ["DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
            let server = try builtExecutable("clsfile-server")
            let added = try run(server, ["teacher", "add", "--name", name, "--public-key", keyFile.path], environment: admin)
            #expect(added.status == 0, "\(added.errorOutput)")
            let kid = try #require(added.output.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
            let created = try run(server, ["class", "create", "--name", className, "--teacher", kid], environment: admin)
            let code = try #require(created.output.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
            let shared = scratch.url.appendingPathComponent("shared-\(login)")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: shared.appendingPathComponent(document))
            // Due in the future, as assignments are while students work on them.
            try teacher.clsfile(
                "assign", shared.appendingPathComponent(document).path, "--title", title,
                "--target-words", "40", "--due", "2030-06-30")
            return (teacher, code, shared)
        }

        /// A student in their role with their own copy of the handed-out folder.
        func student(_ name: String, fullName: String) throws -> (user: User, essay: URL) {
            let user = try User(name, in: scratch)
            try user.clsfile("role", "student", "--name", fullName)
            return (user, try copy("essay.md", from: shared, for: user))
        }

        /// A student's own copy of a handed-out document and its handout, in their work folder.
        func copy(_ document: String, from shared: URL, for student: User) throws -> URL {
            let folder = student.home.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in [document, document + ".clshandout"] {
                try FileManager.default.copyItem(at: shared.appendingPathComponent(file), to: folder.appendingPathComponent(file))
            }
            return folder.appendingPathComponent(document)
        }

        /// A student who accepted the essay's handout and joined the class.
        func joinedStudent(_ name: String, fullName: String) throws -> (user: User, essay: URL) {
            let (user, essay) = try student(name, fullName: fullName)
            try user.clsfile("accept", essay.path + ".clshandout")
            try user.clsfile("join", server.url.absoluteString, "--code", code)
            return (user, essay)
        }

        /// Kills the server with SIGKILL, runs `down` while it is gone, and starts another on the same port.
        mutating func killAndRestartServer(whileDown down: () async throws -> Void = {}) async throws {
            let port = try #require(server.url.port)
            server.process.signal(SIGKILL)
            _ = await server.process.wait(timeout: 30)
            try await down()
            server = try await RunningServer(school, in: scratch.url, port: port, name: "server-again")
        }

        /// A class's report, as the server makes it for the class's teacher.
        func report(of className: String = "7B") async throws -> ClassReport {
            let classes = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { try await $0.classes() }
            let schoolClass = try #require(classes.first { $0.name == className })
            return try await ServerDatabase.withDatabase(school.app, logger: .tests) {
                try await $0.classReport(schoolClass.id, as: schoolClass.teacherID)
            }
        }
    }

    /// Waits up to 20 s for a condition.
    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(20)
        while try await !condition() {
            guard Date() < deadline else { throw ServerProcess.ServerError(message: "waited 20 s for \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The lock a running sync of a student's store holds: held by a test, hooks start no
    /// background sync, so that the outbox can be looked at.
    static func holdSyncLock(of student: User) throws -> SyncLock {
        try #require(SyncLock(of: DeveloperMode.storeURL(for: .student, dataHome: student.dataHome)))
    }

    /// A joined student's essay saved over and over in process, as an editor plugin written with
    /// the library would: a span started or stopped, a progress range and the word count each time.
    struct Saver {
        let store: CLSDataStore
        let activity: CLSActivity
        let words = CLSQuantityItem(identifier: "words", title: "Words")

        init(_ student: User, essay: URL) async throws {
            store = student.store(.student)
            activity = try await store.fetchActivity(for: essay)
            activity.primaryActivityItem = words
        }

        /// Saves `count` times from save number `first`; ranges step through `steps` hundredths.
        func save(_ count: Int, from first: Int = 0, steps: Int) async throws {
            for index in first..<first + count {
                if index % 2 == 0 { activity.start() } else { activity.stop() }
                activity.addProgressRange(fromStart: Double(index % steps) / 100, toEnd: Double(index % steps + 1) / 100)
                words.quantity = Double(index)
                try await store.save()
            }
        }
    }

    /// The work a student's own store holds on their assigned essay.
    static func ownWork(of student: User, essay: URL) async throws -> StudentWork {
        let store = student.store(.student)
        let assignment = try #require(try await store.assignment(for: essay))
        return StudentWork(assignment: assignment, activity: try await store.activityRecorded(at: essay))
    }

    @Test func twoStudentsSyncAndTheServersReportIsTheirOwnWork() async throws {
        let room = try await Classroom()
        let (ada, adaEssay) = try room.student("ada", fullName: "Ada Lovelace")
        let (bob, bobEssay) = try room.student("bob", fullName: "Bob Moses")

        // Ada works before joining; joining sends that work.
        try ada.clsfile("accept", adaEssay.path + ".clshandout")
        try ada.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo The Nile floods every summer. >> \\\"$0\\\"\"", adaEssay.path)
        #expect(try await ada.store(.student).classServerMemberships().isEmpty)
        #expect(try await ada.store(.student).syncOutboxDepth() == 0)
        let joined = try ada.clsfile("join", room.server.url.absoluteString, "--code", room.code.lowercased())
        #expect(joined.output.contains("joined 7B on \(room.server.url.absoluteString) as Ada Lovelace"))
        #expect(joined.output.contains("sent the work recorded before: 1 operation"))

        // Then edits the way an editor plugin reports them. While a sync of her store runs (this
        // test holds its lock), hooks start no other, and the outbox fills.
        var lock: SyncLock? = try Self.holdSyncLock(of: ada)
        try ada.clsfile("hook", "open", adaEssay.path)
        try Data("# Rivers\n\n- [x] introduction\n- [ ] sources\nThe Amazon carries the most water of any river.\n".utf8).write(
            to: adaEssay)
        try ada.clsfile("hook", "save", adaEssay.path)
        try ada.clsfile("hook", "close", adaEssay.path)
        let queued = try await ada.store(.student).syncOutboxDepth()
        #expect(queued > 0)
        // Her own file never queues anything.
        let diary = adaEssay.deletingLastPathComponent().appendingPathComponent("diary.txt")
        try Data("dear diary\n".utf8).write(to: diary)
        try ada.clsfile("hook", "open", diary.path)
        try ada.clsfile("hook", "close", diary.path)
        #expect(try await ada.store(.student).syncOutboxDepth() == queued)
        let waiting = try ada.clsfile("status")
        #expect(waiting.output.contains("class server: \(room.server.url.absoluteString)"))
        #expect(waiting.output.contains("waiting to be sent: \(queued) operations"))
        // Once no sync runs, the next hook starts one in the background: no `clsfile sync` needed.
        lock = nil
        try ada.clsfile("hook", "open", adaEssay.path)
        try ada.clsfile("hook", "close", adaEssay.path)
        try await Self.waitUntil("the background sync empties the outbox") { try await ada.store(.student).syncOutboxDepth() == 0 }
        let status = try ada.clsfile("status")
        #expect(status.output.contains("waiting to be sent: 0 operations"))
        #expect(!status.output.contains("last sync: never") && !status.output.contains("last error"))
        #expect(try ada.clsfile("sync").output.contains("sent 0 operations"))
        // Leaving stops it; the store keeps the work, and joining again sends all of it.
        let ownBefore = try await Self.ownWork(of: ada, essay: adaEssay)
        #expect(try ada.clsfile("leave").output == "left 7B on \(room.server.url.absoluteString)\n")
        #expect(try ada.clsfile("status").output.contains("class server: none"))
        #expect(try ada.clsfile("leave", expecting: 66).errorOutput.contains("nothing to leave"))
        #expect(try await Self.ownWork(of: ada, essay: adaEssay) == ownBefore)
        try ada.clsfile("join", room.server.url.absoluteString, "--code", room.code)

        // Before joining, Bob has nothing to sync, and a join needs a server's address.
        #expect(try bob.clsfile("status").output.contains("class server: none (join one with clsfile join URL --code CODE)"))
        #expect(try bob.clsfile("sync", expecting: 66).errorOutput.contains("joined no class server: join one first"))
        #expect(
            try bob.clsfile("join", "class.example.org", "--code", room.code, expecting: 64)
                .errorOutput.contains("is not a class server's address: give it as https://HOST[:PORT]"))
        // Bob joins first, works with `clsfile open`, marks it done, syncs.
        try bob.clsfile("join", room.server.url.absoluteString, "--code", room.code)
        try bob.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Rivers carry water to the sea. >> \\\"$0\\\"\"", bobEssay.path)
        try bob.clsfile("done", bobEssay.path)
        try bob.clsfile("sync")

        // The server's report is each student's own work, to the last digit.
        let report = try await room.report()
        let assignment = try #require(report.assignments.first)
        #expect(report.assignments.count == 1)
        #expect(assignment.title == "Essay on rivers" && assignment.targetWords == 40 && assignment.dueDate != nil)
        #expect(assignment.students.map(\.studentName) == ["Ada Lovelace", "Bob Moses"])
        #expect(assignment.doneCount == 1)
        let adaOwn = try await Self.ownWork(of: ada, essay: adaEssay), bobOwn = try await Self.ownWork(of: bob, essay: bobEssay)
        #expect(assignment.students[0].work == adaOwn)
        #expect(assignment.students[1].work == bobOwn)
        #expect(adaOwn.activeSeconds >= 1 && adaOwn.progress > 0 && adaOwn.primaryItem != nil)
        #expect(!report.assignments.contains { $0.students.contains { $0.work.documentName == "diary.txt" } })

        // The same report over HTTP, signed by the teacher's key.
        let client = try SyncClient(serverURL: room.server.url, key: try room.teacher.identity(.teacher).signingKey)
        let classes = try await client.classes()
        #expect(classes.map(\.name) == ["7B"] && classes.first?.isTaught == true)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let overHTTP = try decoder.decode(ClassReport.self, from: try await client.classReport(classID: try #require(classes.first?.id)))
        #expect(overHTTP.assignments.first?.students.map(\.work.activeSeconds) == [adaOwn.activeSeconds, bobOwn.activeSeconds])
        #expect(overHTTP.assignments.first?.averageProgress == assignment.averageProgress)

        // The teacher's terminal and browser read the same report from the server.
        let terminal = try room.teacher.clsfile("class-report", "--server", room.server.url.absoluteString)
        #expect(
            terminal.output.contains("Essay on rivers") && terminal.output.contains("Ada Lovelace") && terminal.output.contains("Bob Moses")
        )
        let detail = try room.teacher.clsfile(
            "class-report", "--server", room.server.url.absoluteString, "--student", "Bob Moses", "--json")
        #expect(detail.output.contains("\"activeSeconds\" : \(bobOwn.activeSeconds)"))
        let studentsTry = try ada.clsfile("class-report", "--server", room.server.url.absoluteString, expecting: 64)
        #expect(studentsTry.errorOutput.contains("is for a teacher"))
        let link = try room.teacher.clsfile("class-report", "--server", room.server.url.absoluteString, "--link")
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix(room.server.url.absoluteString + "/classes/") && link.contains("/?token="))
        let page = try await Self.get(link)
        #expect(
            page.status == 200 && page.body.contains("Essay on rivers") && !page.body.contains("http-equiv=\"refresh\""),
            "a page reloads only when the teacher asks")
        let switchOn = String(link.dropFirst(room.server.url.absoluteString.count)) + "&amp;reload=on"
        #expect(page.body.contains("<a href=\"\(switchOn)\" id=\"reload-switch\">Reload this page every 10 s</a>"), "\(page.body)")
        let reloading = try await Self.get(link + "&reload=on")
        #expect(
            reloading.status == 200 && reloading.body.contains("<meta http-equiv=\"refresh\" content=\"10\">")
                && reloading.body.contains("\">stop reloading</a>"), "\(reloading.body)")
        let token = try #require(link.split(separator: "?token=").last)
        let classPath = try #require(URL(string: link)?.path)
        let assignmentLink = "\(classPath)/assignments/\(assignment.identifier)?token=\(token)"
        #expect(page.body.contains(assignmentLink))
        let assignmentPage = try await Self.get(room.server.url.absoluteString + assignmentLink)
        #expect(assignmentPage.status == 200 && assignmentPage.body.contains("Ada Lovelace") && assignmentPage.body.contains("Bob Moses"))
        let bare = try await Self.get(room.server.url.absoluteString + classPath)
        #expect(bare.status == 401 && bare.body.contains("carries no token"))
        let adaLink =
            "\(classPath)?token=\(try await DeviceToken.make(key: try ada.identity(.student).signingKey, audience: room.server.origin))"
        #expect(try await Self.get(room.server.url.absoluteString + adaLink).status == 403)

        // xAPI from the server: the teacher's export and the route give valid statements of both students.
        let exported = try room.teacher.clsfile("export", "--xapi", "--server", room.server.url.absoluteString)
        #expect(XAPIValidator.problems(inExport: Data(exported.output.utf8)).isEmpty)
        let actors = try #require(try JSONSerialization.jsonObject(with: Data(exported.output.utf8)) as? [[String: Any]])
            .compactMap { (($0["actor"] as? [String: Any])?["account"] as? [String: Any])?["name"] as? String }
        #expect(Set(actors).count == 2)
        let xapiRoute = room.server.url.absoluteString + "/api/xapi.json?class=\(classes[0].id.uuidString)"
        var request = HTTPClientRequest(url: xapiRoute)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let route = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let statements = Data(buffer: try await route.body.collect(upTo: 16 << 20))
        #expect(route.status.code == 200 && XAPIValidator.problems(inExport: statements).isEmpty)
        // A token in the address opens pages only, not the API.
        #expect(try await Self.get(xapiRoute + "&token=\(token)").status == 401)
        #expect(
            try ada.clsfile("export", "--xapi", "--server", room.server.url.absoluteString, expecting: 64)
                .errorOutput.contains("is for a teacher"))
    }

    /// A GET as a browser makes it.
    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 16 << 20)))
    }

    @Test func aWeekOfflineTenThousandOperationsArriveOnceEach() async throws {
        let room = try await Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        // 10,000 saves while offline: sessions, progress ranges, an item changing.
        let saver = try await Saver(ada, essay: essay)
        let store = saver.store
        try await saver.save(10_000, steps: 100)
        let waiting = try await store.syncOutboxDepth()
        #expect(waiting == 10_000)
        let client = try SyncClient(serverURL: room.server.url, key: try ada.identity(.student).signingKey)
        let first = try await client.sendOutbox(of: store, batchSize: 500)
        #expect(first.sent == 10_000 && first.batches == 20 && first.repeated == 0)
        #expect(try await store.syncOutboxDepth() == 0)
        let own = try await Self.ownWork(of: ada, essay: essay)
        let served = try #require(try await room.report().assignments.first?.students.first?.work)
        #expect(served == own)
        #expect(served.progress == 1 && served.primaryItem?.value == 9_999 && served.sessions.count == 5_000)
    }

    @Test func theServerKilledAndPostgreSQLRestartedMidSyncLoseNothing() async throws {
        var room = try await Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let saver = try await Saver(ada, essay: essay)
        let store = saver.store
        func waitForDepth(below limit: Int, timeout: Double = 120) async throws {
            let deadline = Date().addingTimeInterval(timeout)
            while try await store.syncOutboxDepth() >= limit {
                guard Date() < deadline else {
                    throw ServerProcess.ServerError(message: "the outbox stayed at \(try await store.syncOutboxDepth())")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await saver.save(2_000, steps: 50)
        // A sync that keeps going, in small batches, so that the server dies in the middle of it.
        let watcher = try SpawnedProcess(
            try builtExecutable("clsfile").path,
            ["sync", "--watch", "--interval", "0.2", "--batch-size", "10"],
            environment: ada.environment, in: room.scratch.url, name: "watch")
        try await waitForDepth(below: 1_500)
        // The server stays down until the watcher has met the outage and said it waits: a server
        // back within one request's retry would leave nothing to see.
        let retriesBefore = watcher.errorOutput.components(separatedBy: "trying again in").count
        try await room.killAndRestartServer {
            try await Self.waitUntil("clsfile sync --watch to say it tries again") {
                watcher.errorOutput.components(separatedBy: "trying again in").count > retriesBefore
            }
        }
        try await waitForDepth(below: 1)
        // PostgreSQL restarts under the running server, which must reconnect by itself.
        try await saver.save(2_000, from: 2_000, steps: 50)
        try await waitForDepth(below: 1_500)
        try room.school.cluster.restart()
        try await waitForDepth(below: 1)
        watcher.signal(SIGTERM)
        _ = await watcher.wait(timeout: 30)
        let own = try await Self.ownWork(of: ada, essay: essay)
        let served = try #require(try await room.report().assignments.first?.students.first?.work)
        #expect(served == own)
        #expect(served.primaryItem?.value == 3_999 && served.sessions.count == 2_000)
    }

    /// A request the database fails is answered 503 without the database's words, and the
    /// server's log says what failed underneath, for whoever runs it.
    @Test func aRequestTheDatabaseFailsIsLoggedWithWhatFailedUnderneath() async throws {
        let room = try await Classroom()
        let (bob, _) = try room.student("bob", fullName: "Bob Dylan")
        // The function a join calls is gone (a schema damaged by hand): PostgreSQL refuses the call.
        _ = try room.school.cluster.psql(
            "ALTER FUNCTION clsfile.join_class(text, text, text, bytea) RENAME TO join_class_gone", database: "clsfile")
        let joined = try bob.clsfile("join", room.server.url.absoluteString, "--code", room.code, expecting: 69)
        #expect(joined.errorOutput.contains("cannot take the request now: the server cannot use its database now"), "\(joined.errorOutput)")
        let deadline = Date().addingTimeInterval(10)
        while !room.server.process.errorOutput.contains("request failed"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let line = try #require(room.server.process.errorOutput.split(separator: "\n").first { $0.contains("request failed") })
        #expect(line.contains("path=/v1/join") && line.contains("underlying=PSQLError") && line.contains("join_class"), "\(line)")
        #expect(!joined.errorOutput.contains("join_class"), "the database's words stay in the log")
    }

    @Test func anOperationTheServerRefusesIsSetAsideAndTheRestGoes() async throws {
        let room = try await Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let saver = try await Saver(ada, essay: essay)
        let lock = try Self.holdSyncLock(of: ada)
        try await saver.save(3, steps: 10)
        // A value the store takes and the server does not (beyond ±10¹²), between good ones.
        saver.words.quantity = 5e12
        try await saver.store.save()
        try await saver.save(3, from: 3, steps: 10)
        withExtendedLifetime(lock) {}
        let synced = try ada.clsfile("sync")
        #expect(synced.output.contains("sent 6 operations"))
        #expect(synced.errorOutput.contains("the server refused 1 operation") && synced.errorOutput.contains("beyond ±10¹²"))
        #expect(try await saver.store.syncOutboxDepth() == 0)
        #expect(try await saver.store.refusedSyncOperations().count == 1)
        #expect(try ada.clsfile("status").output.contains("refused by the server and set aside: 1 operation"))
        let served = try #require(try await room.report().assignments.first?.students.first?.work)
        #expect(served.primaryItem?.value == 5 && served.sessions.count == 3)
    }

    @Test func workRecordedBeforeAcceptingReachesTheServerWhole() async throws {
        let room = try await Classroom()
        let (ada, essay) = try room.student("ada", fullName: "Ada Lovelace")
        try ada.clsfile("join", room.server.url.absoluteString, "--code", room.code)
        // Work on the file before it is assigned (a plugin's hooks, which accept no handout) stays on the machine...
        try ada.clsfile("hook", "open", essay.path)
        try ada.clsfile("hook", "edit", essay.path)
        try Data("# Rivers\n\nFirst draft of the essay.\n".utf8).write(to: essay)
        try await Task.sleep(for: .seconds(1.1))
        try ada.clsfile("hook", "save", essay.path)
        try ada.clsfile("hook", "close", essay.path)
        #expect(try await ada.store(.student).syncOutboxDepth() == 0)
        #expect(try await room.report().assignments.isEmpty)
        // ...until the handout is accepted for it: then all of it is the assignment's.
        try ada.clsfile("accept", essay.path + ".clshandout")
        try ada.clsfile("sync")
        let own = try await Self.ownWork(of: ada, essay: essay)
        #expect(own.activeSeconds >= 1)
        #expect(try await room.report().assignments.first?.students.first?.work == own)
    }

    /// Ada has two teachers on one server: each class gets only the work of its own teacher's
    /// assignment (the handout's recipient key is the class teacher's), never the other's.
    @Test func aStudentOfTwoTeachersSendsEachClassOnlyItsTeachersAssignments() async throws {
        let room = try await Classroom()
        let (poet, poetryCode, poetryShared) = try Classroom.addTeacher(
            "okafor", name: "Mr Okafor", className: "8C", handing: "poem.md", text: "# Spring\n\n- [ ] first stanza\n",
            title: "A poem in spring", school: room.school, in: room.scratch)
        try room.register(poet)
        let (ada, essay) = try room.student("ada", fullName: "Ada Lovelace")
        let poem = try room.copy("poem.md", from: poetryShared, for: ada)
        try ada.clsfile("accept", essay.path + ".clshandout")
        try ada.clsfile("accept", poem.path + ".clshandout")
        try ada.clsfile("join", room.server.url.absoluteString, "--code", room.code)
        try ada.clsfile("join", room.server.url.absoluteString, "--code", poetryCode)
        let status = try ada.clsfile("status")
        #expect(status.output.contains("class: 7B (") && status.output.contains("class: 8C ("), "\(status.output)")
        #expect(!status.output.contains("joined before classes were tied"))

        try ada.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo The Nile floods every summer. >> \\\"$0\\\"\"", essay.path)
        try ada.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Blossoms fall on the water. >> \\\"$0\\\"\"", poem.path)
        try ada.clsfile("sync")
        let rivera = try await room.report(of: "7B"), okafor = try await room.report(of: "8C")
        #expect(rivera.assignments.map(\.title) == ["Essay on rivers"])
        #expect(okafor.assignments.map(\.title) == ["A poem in spring"])
        #expect(rivera.assignments.first?.students.map(\.work) == [try await Self.ownWork(of: ada, essay: essay)])
        #expect(okafor.assignments.first?.students.map(\.work) == [try await Self.ownWork(of: ada, essay: poem)])

        // Removed from 8C on the server: its operations wait, and 7B's still go.
        try room.school.cluster.psql(
            "DELETE FROM clsfile.enrolment WHERE class_id = (SELECT id FROM clsfile.class WHERE name = '8C')",
            database: "clsfile")
        do {
            let lock = try Self.holdSyncLock(of: ada)
            try ada.clsfile(
                "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Rain fills the delta. >> \\\"$0\\\"\"",
                essay.path)
            try ada.clsfile(
                "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Petals on the stream. >> \\\"$0\\\"\"",
                poem.path)
            withExtendedLifetime(lock) {}
        }
        let blocked = try ada.clsfile("sync", expecting: 65)
        #expect(
            blocked.errorOutput.contains("wait: the class server refused v1/sync: you have not joined the class"), "\(blocked.errorOutput)")
        #expect(try await room.report(of: "7B").assignments.first?.students.map(\.work) == [try await Self.ownWork(of: ada, essay: essay)])
        #expect(try await ada.store(.student).syncOutboxDepth() > 0)

        // Leaving 8C: the poem's work is queued no more, the essay's still is.
        let left = try ada.clsfile("leave", "--class", "8C")
        #expect(left.output.hasPrefix("left 8C on \(room.server.url.absoluteString); "), "\(left.output)")
        #expect(try await ada.store(.student).syncOutboxDepth() == 0)
        let lock = try Self.holdSyncLock(of: ada)
        let store = ada.store(.student)
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Petals drift. >> \\\"$0\\\"\"", poem.path)
        #expect(try await store.syncOutboxDepth() == 0)
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Floods feed the fields. >> \\\"$0\\\"\"",
            essay.path)
        let waiting = try await store.pendingSyncOperations(limit: 500)
        let riveraClass = try #require(try await store.classServerMemberships().first { $0.className == "7B" })
        #expect(try await store.classServerMemberships().count == 1)
        // Every operation waiting is 7B's: one class's batch holds the whole outbox.
        let depth = try await store.syncOutboxDepth()
        #expect(!waiting.isEmpty && waiting.count == depth && waiting.allSatisfy { $0.classID == riveraClass.classID })
        withExtendedLifetime(lock) {}
        let unknown = try ada.clsfile("leave", "--class", "8C", expecting: 66)
        #expect(unknown.errorOutput.contains("no class joined is named '8C': give one of 7B ("), "\(unknown.errorOutput)")
    }

    @Test func workOnAHandoutNotRegisteredWaitsAndGoesOnceTheTeacherRegistersIt() async throws {
        let room = try await Classroom()
        // A second handout, made without --server: the class does not have it yet.
        try Data("# Notes\n".utf8).write(to: room.shared.appendingPathComponent("notes.md"))
        try room.teacher.clsfile("assign", room.shared.appendingPathComponent("notes.md").path, "--title", "Field notes")
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let notes = try room.copy("notes.md", from: room.shared, for: ada)
        try ada.clsfile("accept", notes.path + ".clshandout")
        let lock = try Self.holdSyncLock(of: ada)
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Herons by the weir. >> \\\"$0\\\"\"",
            notes.path)
        try ada.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo The Nile floods every summer. >> \\\"$0\\\"\"", essay.path)
        withExtendedLifetime(lock) {}
        let waiting = try ada.clsfile("sync", expecting: 65)
        #expect(
            waiting.errorOutput.contains("the work on 1 assignment waits")
                && waiting.errorOutput.contains("has no assignment 'Field notes'"),
            "\(waiting.errorOutput)")
        #expect(try await room.report().assignments.map(\.title) == ["Essay on rivers"])
        #expect(try await ada.store(.student).syncOutboxDepth() > 0, "the waiting work left the outbox")
        let status = try ada.clsfile("status")
        #expect(status.output.contains("has no assignment 'Field notes'"), "\(status.output)")

        // The teacher registers it; the next sync sends the work that waited, and the report
        // shows the teacher's title whatever Ada's handout said.
        let registered = try room.teacher.clsfile("register", "--server", room.server.url.absoluteString)
        #expect(
            registered.output.contains("registered 'Field notes'")
                && registered.output.contains("7B on \(room.server.url.absoluteString) has 2 handouts registered"),
            "\(registered.output)")
        try ada.clsfile("sync")
        #expect(try await ada.store(.student).syncOutboxDepth() == 0)
        let report = try await room.report()
        #expect(report.assignments.map(\.title) == ["Essay on rivers", "Field notes"])
        #expect(report.assignments.last?.students.map(\.work) == [try await Self.ownWork(of: ada, essay: notes)])

        // `assign --server` registers at once; a server the teacher cannot use leaves the
        // handout made and says how to register it later.
        try Data("# Map\n".utf8).write(to: room.shared.appendingPathComponent("map.md"))
        let assigned = try room.teacher.clsfile(
            "assign", room.shared.appendingPathComponent("map.md").path, "--title", "A map",
            "--server", room.server.url.absoluteString)
        #expect(assigned.output.contains("registered 'A map'"), "\(assigned.output)")
        try Data("# Tides\n".utf8).write(to: room.shared.appendingPathComponent("tides.md"))
        let offline = try room.teacher.clsfile(
            "assign", room.shared.appendingPathComponent("tides.md").path, "--title", "Tides",
            "--server", "http://127.0.0.1:9", expecting: 69)
        #expect(offline.errorOutput.contains("run clsfile register --server http://127.0.0.1:9"), "\(offline.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: room.shared.appendingPathComponent("tides.md.clshandout").path))
    }

    @Test func aReplayedBatchChangesNothing() async throws {
        let room = try await Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let lock = try Self.holdSyncLock(of: ada)
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo More words here. >> \\\"$0\\\"\"",
            essay.path)
        let store = ada.store(.student)
        let batch = try await store.pendingSyncOperations(limit: 500).map(\.operation)
        #expect(!batch.isEmpty)
        let client = try SyncClient(serverURL: room.server.url, key: try ada.identity(.student).signingKey)
        let membership = try #require(try await store.classServerMemberships().first)
        let first = try await client.send(batch, classID: membership.classID)
        let before = try await room.report()
        // The answer was lost: the same operations come again, and again.
        let second = try await client.send(batch, classID: membership.classID)
        let third = try await client.send(batch, classID: membership.classID)
        #expect(first.applied == batch.count && first.repeated == 0)
        #expect(second.applied == 0 && second.repeated == batch.count && third == second)
        #expect(try await room.report() == before)
        withExtendedLifetime(lock) {}
    }
}

/// Every request the server must refuse, each with its JSON error, and every way one student's
/// or teacher's key might reach another's data.
@Suite(.serialized)
struct SyncRefusalTests {
    /// A request made by hand, as a client other than clsfile might.
    private func request(
        _ server: URL, _ method: String, _ path: String, body: Data? = nil,
        token: String?
    ) async throws -> (status: Int, error: SyncWire.ErrorAnswer?, body: Data) {
        try await URLRequestLike(url: server.absoluteString + path, method: method, body: body, token: token).send()
    }

    @Test func malformedAndForeignRequestsAreRefusedWithTheirJSONError() async throws {
        let room = try await SyncTests.Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let adaKey = try ada.identity(.student).signingKey
        let adaToken = try await DeviceToken.make(key: adaKey, audience: room.server.origin)
        let teacherToken = try await DeviceToken.make(key: try room.teacher.identity(.teacher).signingKey, audience: room.server.origin)
        let membership = try #require(try await ada.store(.student).classServerMemberships().first)
        let server = room.server.url

        func expectRefusal(
            _ method: String, _ path: String, body: Data? = nil, token: String?, status: Int, code: String,
            saying text: String, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let answer = try await request(server, method, path, body: body, token: token)
            #expect(
                answer.status == status, "\(method) \(path): \(String(decoding: answer.body, as: UTF8.self))",
                sourceLocation: sourceLocation)
            #expect(answer.error?.code == code, sourceLocation: sourceLocation)
            #expect(
                answer.error?.message.contains(text) == true, "\(answer.error?.message ?? "no JSON error")", sourceLocation: sourceLocation)
        }
        let lock = try SyncTests.holdSyncLock(of: ada)
        let operation = try #require(
            try await {
                try ada.clsfile(
                    "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Words. >> \\\"$0\\\"\"", essay.path
                )
                return try await ada.store(.student).pendingSyncOperations(limit: 1).first?.operation
            }())
        func body(_ operations: [SyncOperation], classID: UUID? = nil) throws -> Data {
            try SyncWire.encoder.encode(SyncWire.SyncRequest(classID: classID ?? membership.classID, operations: operations))
        }

        // Tokens.
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([operation]), token: nil, status: 401, code: "unauthorized", saying: "carries no token")
        try await expectRefusal("GET", "/v1/classes", token: "not.a.jwt", status: 401, code: "unauthorized", saying: "is not a JWT")
        try await expectRefusal(
            "GET", "/v1/classes", token: try await DeviceToken.make(key: P256.Signing.PrivateKey(), audience: room.server.origin),
            status: 401,
            code: "unauthorized", saying: "not registered here")
        try await expectRefusal(
            "GET", "/v1/classes",
            token: try await DeviceToken.make(
                key: adaKey, audience: room.server.origin, at: Date().addingTimeInterval(-3600), lifetime: 600),
            status: 401, code: "unauthorized", saying: "expired")
        // Bodies.
        try await expectRefusal(
            "POST", "/v1/sync", body: Data("{\"classID\": 3".utf8), token: adaToken, status: 400, code: "invalidValue",
            saying: "not the JSON this route takes")
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([]), token: adaToken, status: 400, code: "invalidValue", saying: "no operations")
        let tooMany = (0...SyncWire.maximumOperations).map { _ in
            var copy = operation
            copy.id = UUID()
            return copy
        }
        try await expectRefusal(
            "POST", "/v1/sync", body: try body(tooMany), token: adaToken, status: 413, code: "tooLarge", saying: "in batches")
        try await expectRefusal(
            "POST", "/v1/sync", body: Data(count: SyncWire.maximumBodyBytes + 1), token: adaToken, status: 413,
            code: "tooLarge", saying: "larger than")
        var outOfRange = operation
        outOfRange.ranges = [SyncOperation.Range(lower: 0, upper: 2)]
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([outOfRange]), token: adaToken, status: 400, code: "invalidValue", saying: "not within 0…1")
        var future = operation
        future.madeAt = Date().timeIntervalSince1970 + 86_400
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([future]), token: adaToken, status: 400, code: "invalidValue",
            saying: "check the device's clock")
        var longSession = operation
        longSession.spans = [
            SyncOperation.Span(
                id: UUID().uuidString, start: operation.madeAt - 60, end: operation.madeAt - 30,
                lastPulse: operation.madeAt - 30, session: String(repeating: "s", count: 65))
        ]
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([longSession]), token: adaToken, status: 400, code: "invalidValue",
            saying: "a span's session id of 65 bytes, not 1 to 64")
        var escaping = operation
        escaping.assignment.documentName = "../../etc/passwd"
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([escaping]), token: adaToken, status: 400, code: "invalidValue",
            saying: "not a plain file name")
        var huge = operation
        huge.assignmentIdentifier = String(repeating: "x", count: 5_000)
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([huge]), token: adaToken, status: 413, code: "tooLarge", saying: "longer than 1024 bytes")
        try await expectRefusal("GET", "/v1/nothing", token: adaToken, status: 404, code: "notFound", saying: "no such route")
        // Joining.
        let join = try SyncWire.encoder.encode(
            SyncWire.JoinRequest(code: "WRONGCODE2", name: "Eve", publicKey: adaKey.publicKey.x963Representation))
        try await expectRefusal(
            "POST", "/v1/join", body: join, token: adaToken, status: 404, code: "notFound", saying: "no class has the join code")
        let stolen = try SyncWire.encoder.encode(
            SyncWire.JoinRequest(code: room.code, name: "Eve", publicKey: adaKey.publicKey.x963Representation))
        try await expectRefusal(
            "POST", "/v1/join", body: stolen,
            token: try await DeviceToken.make(key: P256.Signing.PrivateKey(), audience: room.server.origin),
            status: 401, code: "unauthorized", saying: "not registered here")

        // Other people's data: a student reads no report, syncs into no class of another
        // teacher, lists only her class; a teacher syncs nothing and reads no other class.
        try await expectRefusal(
            "GET", "/api/class-report.json?class=\(membership.classID.uuidString)", token: adaToken, status: 403,
            code: "forbidden", saying: "a student's key cannot read it")
        let otherTeacher = P256.Signing.PrivateKey()
        let otherClass = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { database in
            let account = try await database.addTeacher(
                name: "Mr Okafor", publicKey: otherTeacher.publicKey, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
            return try await database.createClass(name: "8C", teacher: account.id.uuidString)
        }
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([operation], classID: otherClass.id), token: adaToken, status: 404,
            code: "notFound", saying: "you have not joined the class")
        try await expectRefusal(
            "POST", "/v1/sync", body: try body([operation]), token: teacherToken, status: 403, code: "forbidden",
            saying: "only students sync")
        let otherToken = try await DeviceToken.make(key: otherTeacher, audience: room.server.origin)
        try await expectRefusal(
            "GET", "/api/class-report.json?class=\(membership.classID.uuidString)", token: otherToken, status: 404,
            code: "notFound", saying: "you teach no class")
        let adaClasses = try await request(server, "GET", "/v1/classes", token: adaToken)
        #expect(try SyncWire.decoder.decode([SyncWire.ClassEntry].self, from: adaClasses.body).map(\.name) == ["7B"])
        let otherClasses = try await request(server, "GET", "/v1/classes", token: otherToken)
        #expect(try SyncWire.decoder.decode([SyncWire.ClassEntry].self, from: otherClasses.body).map(\.name) == ["8C"])
        // Nothing refused reached the database: after Ada's own sync the server holds her own work.
        withExtendedLifetime(lock) {}
        try ada.clsfile("sync")
        let served = try await room.report().assignments.first?.students.map(\.work)
        #expect(served == [try await SyncTests.ownWork(of: ada, essay: essay)])
    }

    @Test func refusalsSayWhatWasWrongWithoutDatabaseTextOrAccountIDs() async throws {
        let room = try await SyncTests.Classroom()
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        let adaKey = try ada.identity(.student).signingKey
        let adaToken = try await DeviceToken.make(key: adaKey, audience: room.server.origin)
        let store = ada.store(.student)
        let membership = try #require(try await store.classServerMemberships().first)
        let lock = try SyncTests.holdSyncLock(of: ada)
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Words. >> \\\"$0\\\"\"", essay.path)
        let operation = try #require(try await store.pendingSyncOperations(limit: 1).first?.operation)

        func expectPlainRefusal(
            _ path: String, _ body: some Encodable, saying text: String, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let answer = try await URLRequestLike(
                url: room.server.url.absoluteString + path, method: "POST",
                body: try SyncWire.encoder.encode(body), token: adaToken
            ).send()
            #expect(answer.status == 400 && answer.error?.code == "invalidValue", "\(answer.status)", sourceLocation: sourceLocation)
            let message = answer.error?.message ?? ""
            #expect(message.contains(text), "\(message)", sourceLocation: sourceLocation)
            // Neither PostgreSQL's words nor anyone's account.
            for leaked in [
                "UTF8", "byte sequence", "escape sequence", "jsonb", "clsfile.", "relation",
                membership.accountID.uuidString.lowercased(), membership.accountID.uuidString.uppercased()
            ] {
                #expect(!message.contains(leaked), "\(leaked) in \(message)", sourceLocation: sourceLocation)
            }
        }
        // A NUL, which PostgreSQL cannot keep in text or jsonb, is refused before the database.
        var nulIdentifier = operation
        nulIdentifier.id = UUID()
        nulIdentifier.assignmentIdentifier = "essay\u{0}"
        try await expectPlainRefusal(
            "/v1/sync", SyncWire.SyncRequest(classID: membership.classID, operations: [nulIdentifier]),
            saying: "holds assignment identifier with a NUL character")
        var nulItem = operation
        nulItem.id = UUID()
        nulItem.items = [
            SyncOperation.Item(
                identifier: "words", title: "Words\u{0}", isPrimary: false, kind: "quantity", value: 1,
                createdAt: operation.madeAt, modifiedAt: operation.madeAt)
        ]
        try await expectPlainRefusal(
            "/v1/sync", SyncWire.SyncRequest(classID: membership.classID, operations: [nulItem]),
            saying: "holds item title with a NUL character")
        // Values only PostgreSQL refuses: a NUL in a join code, which it compares.
        let nulCode = SyncWire.JoinRequest(code: "K7QX\u{0}", name: "Ada Lovelace", publicKey: adaKey.publicKey.x963Representation)
        try await expectPlainRefusal("/v1/join", nulCode, saying: "joining a class failed: it holds a value the database cannot store")
        withExtendedLifetime(lock) {}
    }
}

/// A request made with AsyncHTTPClient, as any client might.
struct URLRequestLike {
    var url: String
    var method: String
    var body: Data?
    var token: String?
    var contentType = "application/json"

    init(url: String, method: String, body: Data? = nil, token: String?, contentType: String = "application/json") {
        self.url = url
        self.method = method
        self.body = body
        self.token = token
        self.contentType = contentType
    }

    /// Sends the request; the answer's body is JSON unless `answersJSON` is false.
    func send(answersJSON: Bool = true) async throws -> (status: Int, error: SyncWire.ErrorAnswer?, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let data = Data(buffer: try await response.body.collect(upTo: 16 << 20))
        if answersJSON { #expect(response.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true) }
        return (Int(response.status.code), try? SyncWire.decoder.decode(SyncWire.ErrorAnswer.self, from: data), data)
    }
}

/// `clsfile-server serve` with a certificate, and the addresses it refuses without one.
@Suite(.serialized)
struct ServeTLSTests {
    @Test func withACertificateItServesTLSAndWithoutOneOnlyLoopback() async throws {
        let school = try await ServerDatabaseTests.School()
        let scratch = try Scratch()
        let certificate = scratch.url.appendingPathComponent("server.pem").path, key = scratch.url.appendingPathComponent("server.key").path
        let made = try run(
            try Tool.openssl.require(),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", certificate,
                "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"
            ])
        #expect(made.status == 0, "\(made.errorOutput)")
        let server = try await SyncTests.RunningServer(school, in: scratch.url, options: ["--tls-cert", certificate, "--tls-key", key])
        #expect(server.url.scheme == "https")
        // A client that trusts the certificate talks to it; the API answers as over plain HTTP.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
        let response = try await http.execute(HTTPClientRequest(url: server.url.absoluteString + "/v1/classes"), timeout: .seconds(30))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        try await http.shutdown()
        #expect(response.status.code == 401 && body.contains("carries no token"))

        let program = try builtExecutable("clsfile-server")
        let database = ["DATABASE_URL": school.cluster.url(user: "clsfile_app", password: "app-secret", database: "clsfile")]
        let open = try run(program, ["serve", "--host", "0.0.0.0", "--port", "0"], environment: database)
        #expect(open.status == 65 && open.errorOutput.contains("without TLS"))
        let half = try run(program, ["serve", "--port", "0", "--tls-cert", certificate], environment: database)
        #expect(half.status == 65 && half.errorOutput.contains("go together"))
        // On every address, the server cannot tell which one students use, which their tokens name.
        let everywhere = try run(
            program, ["serve", "--host", "0.0.0.0", "--port", "0", "--tls-cert", certificate, "--tls-key", key], environment: database)
        #expect(
            everywhere.status == 65 && everywhere.errorOutput.contains("listening on every address (0.0.0.0)")
                && everywhere.errorOutput.contains("give it with --public-url"), "\(everywhere.errorOutput)")
        let owner = ["DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        let unsafe = try run(program, ["serve", "--port", "0"], environment: owner)
        #expect(unsafe.status == 77 && unsafe.errorOutput.contains("owns the schema"))
    }
}
