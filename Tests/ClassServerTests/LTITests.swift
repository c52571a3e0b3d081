@testable import ClassServer
import AsyncHTTPClient
import ClassWire
import Classroom
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import OpenClassKit
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// clsfile-server as an LTI 1.3 tool of an LMS nobody on the team wrote: the platform is
/// `lti1p3platform` 0.1.8 from PyPI, driven by `Tests/LTIPlatform/lti_platform.py`, which plays
/// the LMS and the browser (login, authorization, the launch's form post) and tampers with what
/// it sends on request.
@Suite(.serialized)
struct LTITests {
    static let learner = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
    static let instructor = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"

    /// The test LMS, started against a server, and registered with it as its administrator would.
    final class Platform: Sendable {
        let process: ServerProcess
        let url: String

        init(tool: URL, school: ServerDatabaseTests.School, in folder: URL, registering: Bool = true) async throws {
            let python = try PythonPackages.python(
                named: "lti-platform", requirements: PythonPackages.packageRoot.appendingPathComponent("Tests/LTIPlatform/requirements.txt")
            )
            let script = PythonPackages.packageRoot.appendingPathComponent("Tests/LTIPlatform/lti_platform.py")
            let toolURL = tool.absoluteString.hasSuffix("/") ? String(tool.absoluteString.dropLast()) : tool.absoluteString
            process = try await ServerProcess(
                program: python.path,
                [script.path, "--tool-url", toolURL, "--client-id", "clsfile-test", "--deployment-id", "deployment-1"],
                environment: [:], in: folder, name: "lti-platform", announcing: "lti-platform listening on ")
            url = process.url
            if registering {
                let registered = try LTITests.server(["lti", "register"] + registration(), school: school)
                #expect(registered.status == 0, "\(registered.errorOutput)")
            }
        }

        /// The options of `clsfile-server lti register` for this platform: scores at most every 30 s.
        func registration(deployment: String = "deployment-1") -> [String] {
            [
                "--issuer", url, "--client-id", "clsfile-test", "--deployment-id", deployment, "--auth-login-url", url + "/auth",
                "--auth-token-url", url + "/token", "--jwks-url", url + "/jwks", "--score-interval", "30"
            ]
        }

        deinit {
            process.process.signal(SIGKILL)
            _ = process.process.waitBlocking(timeout: 10)
        }

        /// A call of the harness's control API.
        @discardableResult
        func control(_ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
            var request = HTTPClientRequest(url: url + path)
            request.method = body == nil ? .GET : .POST
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            let data = Data(buffer: try await response.body.collect(upTo: 16 << 20))
            let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(response.status == .ok, "\(path): \(response.status) \(String(decoding: data, as: UTF8.self))")
            return answer ?? [:]
        }

        /// What the tool answered a launch: its status, page and redirect.
        struct Launch {
            var status: Int
            var body: String
            var firstStatus: Int?
            var loginStatus: Int
            var loginLocation: String
        }

        /// A person launches the tool from a course, as the harness's browser.
        func launch(
            _ sub: String, name: String, roles: [String], context: String = "course-7b", tamper: String? = nil,
            deepLinking: Bool = false, link: String = "essay-link"
        ) async throws -> Launch {
            try await control("/_test/users", ["sub": sub, "name": name, "roles": roles])
            try await control("/_test/contexts", ["id": context, "title": "7B English", "label": "7B"])
            var body: [String: Any] = [
                "sub": sub, "context": context, "message": deepLinking ? "deeplink" : "resource",
                "resource_link": ["id": link, "title": "Essay"], "cookies": false
            ]
            if let tamper { body["tamper"] = tamper }
            let answer = try await control("/_test/launch", body)
            let login = answer["login"] as? [String: Any] ?? [:]
            let launch = answer["launch"] as? [String: Any] ?? [:]
            let first = answer["first_launch"] as? [String: Any]
            return Launch(
                status: launch["status"] as? Int ?? login["status"] as? Int ?? 0,
                body: launch["body"] as? String ?? login["body"] as? String ?? "\(answer)",
                firstStatus: first?["status"] as? Int, loginStatus: login["status"] as? Int ?? 0,
                loginLocation: login["location"] as? String ?? "")
        }

        /// How many times the tool fetched the platform's keys.
        func keyFetches() async throws -> Int {
            try await control("/_test/log")["jwks_hits"] as? Int ?? -1
        }
    }

    static func server(_ arguments: [String], school: ServerDatabaseTests.School) throws -> ProcessResult {
        let admin = ["DATABASE_URL": school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        return try run(try builtExecutable("clsfile-server"), arguments, environment: admin)
    }

    /// The command a launch's page shows, `clsfile join URL --lti TOKEN`, split into its words.
    static func joinCommand(in page: String) throws -> [String] {
        let pattern = /clsfile join (\S+) --lti ([0-9A-Z]{20})/
        let match = try #require(page.firstMatch(of: pattern), "no join command in \(page.prefix(2000))")
        return ["join", String(match.1), "--lti", String(match.2)]
    }

    @Test func anInstructorOpensTheCourseAndTwoStudentsLinkTheirDevicesAndSync() async throws {
        let room = try await SyncTests.Classroom()
        let platform = try await Platform(tool: room.server.url, school: room.school, in: room.scratch.url)

        // The instructor's first launch makes the course's class, named after the course.
        let first = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor])
        #expect(
            first.loginStatus == 302 && first.loginLocation.hasPrefix(platform.url + "/auth?"),
            "\(first.loginLocation) \(room.server.process.output.suffix(3000)) \(room.server.process.errorOutput.suffix(3000))")
        #expect(first.status == 200, "\(first.body.prefix(3000))")
        #expect(first.body.contains("7B English") && first.body.contains("as Ms Okafor"))
        let classes = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { try await $0.classes() }
        let course = try #require(classes.first { $0.name == "7B English" })
        #expect(course.teacherName == "Ms Okafor")

        // Its page links to the class's pages with a token the server signed for the teacher.
        let pages = try #require(first.body.firstMatch(of: /href="([^"]+\/classes\/[^"]+)"/)).1
        let classPage = try await SyncTests.get(String(pages).replacingOccurrences(of: "&amp;", with: "&"))
        #expect(
            classPage.status == 200 && classPage.body.contains("Class report") && classPage.body.contains("Assign from the catalog"),
            "\(classPage.status) \(classPage.body.suffix(1500))")

        // The teacher ties their clsfile's teacher role to the account, and registers the handout.
        let teacher = try SyncTests.User("okafor", in: room.scratch)
        try teacher.clsfile("role", "teacher")
        let tied = try teacher.clsfile(try Self.joinCommand(in: first.body))
        #expect(tied.output.contains("tied this clsfile's teacher role to 7B English"), "\(tied.output)")
        let shared = room.scratch.url.appendingPathComponent("shared-okafor")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        try Data("# Rivers\n\n- [ ] introduction\n- [ ] sources\n".utf8).write(to: shared.appendingPathComponent("essay.md"))
        try teacher.clsfile(
            "assign", shared.appendingPathComponent("essay.md").path, "--title", "Essay on rivers", "--target-words", "40", "--due",
            "2030-06-30")
        try teacher.clsfile("register", "--server", room.server.url.absoluteString)
        // Tied now: a later launch no longer shows the command.
        let again = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor])
        #expect(again.status == 200 && !again.body.contains("--lti"), "\(again.body.prefix(2000))")

        // Two students launch, tie their devices to their LMS accounts, write and sync.
        var students: [(SyncTests.User, URL)] = []
        var learnerPage = ""
        for (sub, name) in [("s-1", "Ada Lovelace"), ("s-2", "Grace Hopper")] {
            let launch = try await platform.launch(sub, name: name, roles: [Self.learner])
            #expect(launch.status == 200 && launch.body.contains("as \(name)"), "\(launch.body.prefix(2000))")
            if learnerPage.isEmpty { learnerPage = launch.body }
            let student = try SyncTests.User(sub, in: room.scratch)
            try student.clsfile("role", "student", "--name", "\(name) (own name)")
            let essay = try room.copy("essay.md", from: shared, for: student)
            try student.clsfile("accept", essay.path + ".clshandout")
            let joined = try student.clsfile(try Self.joinCommand(in: launch.body))
            #expect(joined.output.contains("joined 7B English on"), "\(joined.output)")
            // The token served once.
            let reused = try student.clsfile(try Self.joinCommand(in: launch.body), expecting: 65)
            #expect(reused.errorOutput.contains("was used already"), "\(reused.errorOutput)")
            try student.clsfile(
                "open", "--no-pty", "--editor",
                "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Rivers carry water to the sea. >> \\\"$0\\\"\"", essay.path)
            try student.clsfile("sync")
            students.append((student, essay))
        }
        let report = try await room.report(of: "7B English")
        let essayReport = try #require(report.assignments.first)
        // The teacher sees each student under the LMS's name, with their own store's work.
        #expect(Set(essayReport.students.map(\.studentName)) == ["Ada Lovelace", "Grace Hopper"])
        for (student, essay) in students {
            let own = try await SyncTests.ownWork(of: student, essay: essay)
            #expect(essayReport.students.contains { $0.work == own })
        }

        // A student cannot take another's token: Ada's clsfile, tied to Ada, refuses Grace's.
        let graces = try await platform.launch("s-2", name: "Grace Hopper", roles: [Self.learner])
        let taken = try students[0].0.clsfile(try Self.joinCommand(in: graces.body), expecting: 65)
        #expect(taken.errorOutput.contains("another account than the LMS person this token is for"), "\(taken.errorOutput)")

        // The teacher's page says who of the course's learners has not tied a computer yet, from the LMS's roster.
        try await platform.control("/_test/users", ["sub": "s-3", "name": "Alan Turing", "roles": [Self.learner]])
        try await platform.control("/_test/members", ["context": "course-7b", "sub": "s-3", "roles": [Self.learner]])
        var rosterPage = ""
        try await SyncTests.waitUntil("the roster on the teacher's page") {
            rosterPage = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor]).body
            return rosterPage.contains("2 of 3 students")
        }
        #expect(rosterPage.contains("Not tied yet: Alan Turing."), "\(rosterPage.suffix(1500))")

        // A student's launch after linking says so; their key cannot read the teacher's pages.
        let linked = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner])
        #expect(linked.body.contains("Your clsfile is tied to this class"))
        let studentKey = try students[0].0.identity(.student).signingKey
        let studentToken = try await DeviceToken.make(key: studentKey, audience: room.server.origin)
        let refused = try await SyncTests.get(
            room.server.url.absoluteString + "/classes/\(course.id.uuidString.lowercased())/?token=\(studentToken)")
        #expect(refused.status == 403, "\(refused.body.prefix(300))")

        // Every page a launch showed passes axe-core's WCAG 2.1 AA rules and the keyboard, kept as
        // files as the browser got them in the LMS's frame.
        try await Self.expectAccessible(
            [
                "instructor-first": first.body, "instructor-tied": again.body, "instructor-roster": rosterPage,
                "learner-first": learnerPage, "learner-tied": linked.body
            ], in: room.scratch.url)
    }

    /// Checks pages an LTI launch answered with axe-core and the keyboard, each kept as a file.
    static func expectAccessible(_ pages: [String: String], in folder: URL, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        var files: [URL] = []
        for (name, body) in pages.sorted(by: { $0.key < $1.key }) {
            let file = folder.appendingPathComponent("lti-\(name).html")
            try Data(body.utf8).write(to: file)
            files.append(file)
        }
        for page in try await AxeCheck.check(files.map(\.absoluteString), in: folder, sourceLocation: sourceLocation) {
            #expect(page.passes, "\(page.report)", sourceLocation: sourceLocation)
        }
    }

    /// A course opened by its instructor, whose clsfile is tied to it and has registered the essay's handout.
    static func openCourse(_ room: SyncTests.Classroom, _ platform: Platform) async throws -> (teacher: SyncTests.User, shared: URL) {
        let first = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor])
        let teacher = try SyncTests.User("okafor", in: room.scratch)
        try teacher.clsfile("role", "teacher")
        try teacher.clsfile(try Self.joinCommand(in: first.body))
        let shared = room.scratch.url.appendingPathComponent("shared-okafor")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        try Data("# Rivers\n\n- [ ] introduction\n- [ ] sources\n".utf8).write(to: shared.appendingPathComponent("essay.md"))
        try teacher.clsfile(
            "assign", shared.appendingPathComponent("essay.md").path, "--title", "Essay on rivers", "--target-words", "40", "--due",
            "2030-06-30")
        try teacher.clsfile("register", "--server", room.server.url.absoluteString)
        return (teacher, shared)
    }

    /// A form post as the browser sends it, and the page that answers.
    static func postForm(_ url: String, _ fields: [(String, String)]) async throws -> (status: Int, body: String) {
        var form = URLComponents()
        form.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: (form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 16 << 20)))
    }

    @Test func anInstructorAddsTheEssayAndTheGradebookHoldsEachStudentsScore() async throws {
        let room = try await SyncTests.Classroom()
        let platform = try await Platform(tool: room.server.url, school: room.school, in: room.scratch.url)
        let (_, shared) = try await Self.openCourse(room, platform)

        // From the LMS's activity picker: the class's assignments to choose from.
        let picker = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor], deepLinking: true)
        #expect(picker.status == 200 && picker.body.contains("Essay on rivers"), "\(picker.body.prefix(3000))")
        try await Self.expectAccessible(["chooser": picker.body], in: room.scratch.url)
        let deepLink = try #require(picker.body.firstMatch(of: /name="deep_link" value="([^"]+)"/)).1
        let assignment = try #require(picker.body.firstMatch(of: /name="assignment" value="([^"]+)"/)).1
        let chosen = try await Self.postForm(
            room.server.url.absoluteString + "/lti/deep-link",
            [("deep_link", String(deepLink)), ("assignment", String(assignment)), ("final", "yes"), ("maximum", "20")])
        #expect(chosen.status == 200, "\(chosen.body.prefix(2000))")
        #expect(chosen.body.contains("action=\"\(platform.url)/dl/return\""), "\(chosen.body.prefix(2000))")
        // The choice serves once.
        let again = try await Self.postForm(
            room.server.url.absoluteString + "/lti/deep-link", [("deep_link", String(deepLink)), ("assignment", String(assignment))])
        #expect(again.status == 401 && again.body.contains("sent already"))
        // The browser posts the signed answer to the LMS, which checks it and makes the link and its line item.
        let jwt = try #require(chosen.body.firstMatch(of: /name="JWT" value="([^"]+)"/)).1
        // A deep-linking launch that is not the LMS's is refused as any other.
        let forged = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor], tamper: "signature", deepLinking: true)
        #expect(forged.status == 401 && forged.body.contains("signature does not verify"), "\(forged.body.prefix(800))")
        // A learner cannot add an assignment.
        let learnerPicker = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner], deepLinking: true)
        #expect(learnerPicker.status == 403 && learnerPicker.body.contains("instructor adds clsfile assignments"))
        let made = try await platform.control("/_test/deep-link", ["jwt": String(jwt)])
        let link = try #require((made["resource_links"] as? [[String: Any]])?.first?["id"] as? String, "\(made)")
        let lineItem = try #require((made["lineitems"] as? [[String: Any]])?.first, "\(made)")
        #expect(lineItem["scoreMaximum"] as? Double == 20 && lineItem["label"] as? String == "Essay on rivers", "\(lineItem)")
        // A tampered answer is refused by the LMS.
        var tampered = String(jwt)
        tampered.replaceSubrange(tampered.index(tampered.endIndex, offsetBy: -6)..., with: "AAAAAA")
        var refusal = HTTPClientRequest(url: platform.url + "/_test/deep-link")
        refusal.method = .POST
        refusal.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["jwt": tampered])))
        #expect(try await HTTPClient.shared.execute(refusal, timeout: .seconds(30)).status.code == 400)

        // Two students launch the link, tie their devices, write and sync.
        var students: [(sub: String, user: SyncTests.User, essay: URL)] = []
        for (sub, name, text) in [("s-1", "Ada Lovelace", "Rivers carry water to the sea."), ("s-2", "Grace Hopper", "Rivers.")] {
            let launch = try await platform.launch(sub, name: name, roles: [Self.learner], link: link)
            let student = try SyncTests.User(sub, in: room.scratch)
            try student.clsfile("role", "student", "--name", name)
            let essay = try room.copy("essay.md", from: shared, for: student)
            try student.clsfile("accept", essay.path + ".clshandout")
            // Written before the device is tied: the link sends the work recorded before.
            try student.clsfile(
                "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo \(text) >> \\\"$0\\\"\"", essay.path)
            try student.clsfile(try Self.joinCommand(in: launch.body))
            students.append((sub, student, essay))
        }

        // The gradebook holds each student's score: their own store's progress out of 20, as final grades.
        var scores: [String: [String: Any]] = [:]
        do {
            try await SyncTests.waitUntil("both scores in the gradebook") {
                let book = try await platform.control("/_test/gradebook?context=course-7b")
                let items = book["lineitems"] as? [[String: Any]] ?? []
                scores = (items.first?["scores"] as? [String: [String: Any]]) ?? [:]
                return scores.count == 2
            }
        } catch {
            let log = try await platform.control("/_test/log")
            Issue.record(
                "\(error): the server said \(room.server.process.errorOutput.suffix(3000)); the LMS logged \(String(describing: log["token_requests"]))"
            )
            throw error
        }
        for (sub, student, essay) in students {
            let own = try await SyncTests.ownWork(of: student, essay: essay)
            let last = try #require(scores[sub]?["last"] as? [String: Any], "\(scores)")
            #expect(last["scoreGiven"] as? Double == ((own.progress * 20 * 100).rounded() / 100), "\(sub): \(last) \(own.progress)")
            #expect(last["scoreMaximum"] as? Double == 20)
            #expect(last["gradingProgress"] as? String == "FullyGraded" && last["activityProgress"] as? String == "InProgress", "\(last)")
            let words = try #require(own.primaryItem?.value)
            #expect((last["comment"] as? String)?.hasPrefix("\(Int(words)) words · ") == true, "\(last)")
            #expect(scores[sub]?["count"] as? Int == 1)
        }
        // More work within the platform's interval (30 s here), typed in vim with the clsfile plugin:
        // not sent at once (at most one score per interval per student and line item), then sent
        // once the interval is over.
        try Tool.require(.vim, .tmux)
        for (_, student, essay) in students {
            try await Self.typeInVim("Deltas gather silt where rivers meet the sea", into: essay, as: student)
            try student.clsfile("sync")
        }
        let changed = Date()
        func book() async throws -> [String: [String: Any]] {
            let book = try await platform.control("/_test/gradebook?context=course-7b")
            return ((book["lineitems"] as? [[String: Any]])?.first?["scores"] as? [String: [String: Any]]) ?? [:]
        }
        try await Task.sleep(for: .seconds(3))
        #expect(try await book().values.map { $0["count"] as? Int } == [1, 1])
        while try await book().values.contains(where: { $0["count"] as? Int == 1 }), Date().timeIntervalSince(changed) < 90 {
            try await Task.sleep(for: .seconds(1))
        }
        let later = try await book()
        for (sub, student, essay) in students {
            let own = try await SyncTests.ownWork(of: student, essay: essay)
            #expect(later[sub]?["count"] as? Int == 2, "\(sub): \(String(describing: later[sub]))")
            let last = try #require(later[sub]?["last"] as? [String: Any])
            #expect(last["scoreGiven"] as? Double == ((own.progress * 20 * 100).rounded() / 100), "\(last) \(own.progress)")
            let words = try #require(own.primaryItem?.value)
            #expect((last["comment"] as? String)?.hasPrefix("\(Int(words)) words · ") == true, "\(last)")
            #expect(own.sessions.count == 2, "the clsfile open session and the vim session: \(own.sessions)")
        }
    }

    /// Types a line at the end of a document in vim, in a private tmux server, with the clsfile
    /// plugin of `Samples/editors/vim` and the student's own clsfile; writes, quits, and waits
    /// until vim has quit (its close hook done).
    static func typeInVim(_ text: String, into file: URL, as student: SyncTests.User) async throws {
        let tmux = try Tool.tmux.require()
        let vim = try Tool.vim.require()
        let plugin = PythonPackages.packageRoot.appendingPathComponent("Samples/editors/vim")
        let environment = student.environment.map { "\($0.key)=\($0.value)" }.sorted()
        let command =
            ["env"] + environment + [
                vim.path, "-N", "-u", "NONE", "-i", "NONE", "-n", "--cmd", "set rtp^=\(plugin.path)",
                "--cmd", "let g:clsfile_command = '\(try builtExecutable("clsfile").path)'", "-c", "runtime plugin/clsfile.vim", file.path
            ]
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let server = ["-L", "lti-\(UUID().uuidString.prefix(8))", "-f", "/dev/null"]
        defer { _ = runQuietly(tmux.path, server + ["kill-server"]) }
        #expect(runQuietly(tmux.path, server + ["new-session", "-d", "-x", "120", "-y", "40", "-s", "vim", quoted]) == 0)
        try await Task.sleep(for: .milliseconds(1500))
        for keys in [["G", "o"], ["-l", text], ["Escape"]] { _ = runQuietly(tmux.path, server + ["send-keys", "-t", "vim"] + keys) }
        try await Task.sleep(for: .milliseconds(1200))
        _ = runQuietly(tmux.path, server + ["send-keys", "-t", "vim", ":wq", "Enter"])
        let deadline = Date().addingTimeInterval(20)
        while runQuietly(tmux.path, server + ["has-session", "-t", "vim"]) == 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try String(contentsOf: file, encoding: .utf8).contains(text), "vim did not write \(file.lastPathComponent)")
    }

    @Test func aScoreTheLMSCannotTakeNowIsSentAgainLater() async throws {
        let room = try await SyncTests.Classroom()
        let platform = try await Platform(tool: room.server.url, school: room.school, in: room.scratch.url)
        let (_, shared) = try await Self.openCourse(room, platform)
        let picker = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor], deepLinking: true)
        let deepLink = try #require(picker.body.firstMatch(of: /name="deep_link" value="([^"]+)"/)).1
        let assignment = try #require(picker.body.firstMatch(of: /name="assignment" value="([^"]+)"/)).1
        let chosen = try await Self.postForm(
            room.server.url.absoluteString + "/lti/deep-link", [("deep_link", String(deepLink)), ("assignment", String(assignment))])
        let jwt = try #require(chosen.body.firstMatch(of: /name="JWT" value="([^"]+)"/)).1
        let made = try await platform.control("/_test/deep-link", ["jwt": String(jwt)])
        let link = try #require((made["resource_links"] as? [[String: Any]])?.first?["id"] as? String, "\(made)")

        // The LMS is down for the first two posts: the score waits 5 s, then 10 s, and arrives once.
        try await platform.control("/_test/fail-next-scores", ["count": 2, "status": 503])
        let launch = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner], link: link)
        let ada = try SyncTests.User("s-1", in: room.scratch)
        try ada.clsfile("role", "student", "--name", "Ada Lovelace")
        let essay = try room.copy("essay.md", from: shared, for: ada)
        try ada.clsfile("accept", essay.path + ".clshandout")
        try ada.clsfile(
            "open", "--no-pty", "--editor", "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Rivers carry water. >> \\\"$0\\\"\"",
            essay.path)
        try ada.clsfile(try Self.joinCommand(in: launch.body))
        let started = Date()
        var posts: [[String: Any]] = []
        while Date().timeIntervalSince(started) < 40 {
            posts = try await platform.control("/_test/log")["scores"] as? [[String: Any]] ?? []
            if posts.count >= 3 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(posts.count == 3, "\(posts)")
        let times = posts.compactMap { $0["time"] as? Double }
        if times.count == 3 {
            // Backoff: 5 s after the first failure, 10 s after the second.
            #expect(times[1] - times[0] >= 4.5 && times[2] - times[1] >= 9.5, "\(times)")
        }
        let book = try await platform.control("/_test/gradebook?context=course-7b")
        let scores = (book["lineitems"] as? [[String: Any]])?.first?["scores"] as? [String: [String: Any]]
        let own = try await SyncTests.ownWork(of: ada, essay: essay)
        #expect(scores?["s-1"]?["count"] as? Int == 1)
        // Pending by default: the teacher grades in the LMS.
        let last = scores?["s-1"]?["last"] as? [String: Any]
        #expect(last?["gradingProgress"] as? String == "Pending" && last?["scoreMaximum"] as? Double == 100, "\(String(describing: last))")
        #expect(last?["scoreGiven"] as? Double == ((own.progress * 100 * 100).rounded() / 100))
    }

    @Test func everyLaunchThatIsNotTheLMSsOwnIsRefusedWithWhatToAsk() async throws {
        let room = try await SyncTests.Classroom()
        let platform = try await Platform(tool: room.server.url, school: room.school, in: room.scratch.url)
        // A course with a class, so that a learner's launch that passes every check succeeds.
        #expect(try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor]).status == 200)

        let refusals: [(tamper: String, status: Int, says: String)] = [
            ("signature", 401, "signature does not verify"),
            ("alg_none", 401, "signed with none"),
            ("alg_hs256", 401, "signed with HS256"),
            ("expired", 401, "the launch expired"),
            ("future_iat", 401, "made in the future"),
            ("wrong_aud", 401, "not for this tool's clsfile-test"),
            ("extra_aud_without_azp", 401, "several audiences"),
            ("wrong_iss", 401, "the launch says it comes from"),
            // Refused at the login, which names the deployment too.
            ("unknown_deployment", 401, "deployment not-registered, which is not registered"),
            ("deployment_mismatch", 401, "and its login"),
            ("wrong_nonce", 401, "nonce is not the one"),
            ("message_type", 400, "LtiSubmissionReviewRequest"),
            ("version", 400, "LTI version 1.1"),
            ("no_sub", 403, "no anonymous launch"),
            ("target_link_uri", 401, "its login said"),
            ("state", 401, "state is not one this server gave"),
            ("no_roles", 403, "no role in the course")
        ]
        for refusal in refusals {
            let launch = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner], tamper: refusal.tamper)
            let page = launch.body.replacingOccurrences(of: "&#39;", with: "'")
            #expect(launch.status == refusal.status, "\(refusal.tamper): \(launch.status) \(page.prefix(1500))")
            #expect(page.contains(refusal.says), "\(refusal.tamper): \(page.prefix(1500))")
            #expect(page.contains("This launch was refused"), "\(refusal.tamper)")
        }

        // A replayed launch: the first is taken, the same id_token and state again refused.
        let replay = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner], tamper: "replay")
        #expect(replay.firstStatus == 200 && replay.status == 401 && replay.body.contains("used already"), "\(replay.body.prefix(800))")

        // The platform rotated its key: one fetch of its keys, and the launch is taken.
        try await Task.sleep(for: .milliseconds(1100))
        let before = try await platform.keyFetches()
        let rotated = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner], tamper: "unknown_kid")
        #expect(rotated.status == 200, "\(rotated.body.prefix(800))")
        #expect(try await platform.keyFetches() == before + 1)
        // A key the platform never published: one fetch again, then refused.
        try await Task.sleep(for: .milliseconds(1100))
        let unpublished = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner], tamper: "unpublished_kid")
        #expect(unpublished.status == 401 && unpublished.body.contains("does not publish"), "\(unpublished.body.prefix(800))")
        #expect(try await platform.keyFetches() == before + 2)
        // A known key is not fetched again.
        #expect(try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner]).status == 200)
        #expect(try await platform.keyFetches() == before + 2)
    }

    @Test func aLearnerBeforeTheTeacherAndAnLMSNotRegisteredAreToldWhatToDo() async throws {
        let room = try await SyncTests.Classroom()
        let platform = try await Platform(tool: room.server.url, school: room.school, in: room.scratch.url, registering: false)

        // Not registered: the login is refused with the command that registers it.
        let unknown = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner])
        #expect(unknown.loginStatus == 401, "\(unknown.loginStatus)")
        let registered = try Self.server(["lti", "register"] + platform.registration(), school: room.school)
        #expect(registered.status == 0 && registered.output.contains("made the tool's key"), "\(registered.errorOutput)")

        // A learner before any instructor launched: no class yet.
        let early = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner])
        #expect(early.status == 404 && early.body.contains("has no class on clsfile yet"), "\(early.body.prefix(800))")

        // A second instructor of the course is told whose class it is.
        #expect(try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor]).status == 200)
        let second = try await platform.launch("t-2", name: "Mr Byrne", roles: [Self.instructor])
        #expect(second.status == 403 && second.body.contains("belongs to Ms Okafor"), "\(second.body.prefix(800))")

        // A student's token tied with the teacher role is refused, and stays unused for the student.
        let launch = try await platform.launch("s-1", name: "Ada Lovelace", roles: [Self.learner])
        let wrongRole = try SyncTests.User("wrong-role", in: room.scratch)
        try wrongRole.clsfile("role", "teacher")
        let refused = try wrongRole.clsfile(try Self.joinCommand(in: launch.body), expecting: 65)
        #expect(refused.errorOutput.contains("in the other role"), "\(refused.errorOutput)")
    }

    @Test func anLMSRegistersItselfWithTheAddressTheAdministratorGave() async throws {
        let room = try await SyncTests.Classroom()
        let platform = try await Platform(tool: room.server.url, school: room.school, in: room.scratch.url, registering: false)
        let server = room.server.url.absoluteString
        let made = try Self.server(["lti", "registration-url", "--server-url", server], school: room.school)
        #expect(made.status == 0, "\(made.errorOutput)")
        let address = try #require(made.output.split(separator: "\n").last.map(String.init))
        #expect(address.hasPrefix(room.server.origin.value + "/lti/register?code="), "\(made.output)")

        // Without the administrator's code, no LMS registers.
        let forged = try await platform.control("/_test/registration-start", ["tool_registration_url": server + "/lti/register?code=guess"])
        let refused = try await SyncTests.get(try #require(forged["url"] as? String))
        #expect(refused.status == 401 && refused.body.contains("registration-url"), "\(refused.body.suffix(800))")

        // With it: the LMS's administrator opens it, the LMS registers the tool, and the page asks to close.
        let start = try await platform.control("/_test/registration-start", ["tool_registration_url": address])
        let page = try await SyncTests.get(try #require(start["url"] as? String))
        #expect(page.status == 200 && page.body.contains("clsfile is registered"), "\(page.body.suffix(1500))")
        #expect(page.body.contains("org.imsglobal.lti.close"))
        let registered = try await platform.control("/_test/registration")
        let client = try #require(registered["client_id"] as? String, "\(registered)")
        let listed = try Self.server(["lti", "list"], school: room.school)
        #expect(
            listed.output.contains("client \(client)  deployments \(registered["deployment_id"] as? String ?? "?")"), "\(listed.output)")
        // What the tool sent: its addresses on the server's origin, and the scopes it uses.
        let log = try await platform.control("/_test/log")
        let request = try #require((log["registrations"] as? [[String: Any]])?.last?["request"] as? [String: Any])
        #expect(request["initiate_login_uri"] as? String == room.server.origin.value + "/lti/login")
        #expect((request["scope"] as? String)?.contains("scope/score") == true)
        // The code served once.
        let again = try await platform.control("/_test/registration-start", ["tool_registration_url": address])
        #expect(try await SyncTests.get(try #require(again["url"] as? String)).status == 401)

        // Launches under the registration the LMS made are taken.
        let launch = try await platform.launch("t-1", name: "Ms Okafor", roles: [Self.instructor])
        #expect(launch.status == 200 && launch.body.contains("You teach this course"), "\(launch.body.prefix(1500))")
    }

    @Test func registeringRefusesWhatAnLMSCannotBe() async throws {
        let school = try await ServerDatabaseTests.School()
        let base = ["lti", "register", "--issuer", "https://lms.example", "--client-id", "c1"]
        let urls = ["--auth-login-url", "https://lms.example/auth", "--auth-token-url", "https://lms.example/token"]
        let noDeployment = try Self.server(base + urls + ["--jwks-url", "https://lms.example/jwks"], school: school)
        #expect(
            noDeployment.status == 65 && noDeployment.errorOutput.contains("at least one --deployment-id"), "\(noDeployment.errorOutput)")
        let plain = try Self.server(base + urls + ["--jwks-url", "http://lms.example/jwks", "--deployment-id", "1"], school: school)
        #expect(plain.status == 65 && plain.errorOutput.contains("--jwks-url must be an https address"), "\(plain.errorOutput)")
        let good = try Self.server(base + urls + ["--jwks-url", "https://lms.example/jwks", "--deployment-id", "1"], school: school)
        #expect(good.status == 0, "\(good.errorOutput)")
        // Again with another deployment: one platform, both deployments, the same key.
        let more = try Self.server(base + urls + ["--jwks-url", "https://lms.example/jwks", "--deployment-id", "2"], school: school)
        #expect(more.status == 0 && !more.output.contains("made the tool's key"), "\(more.output)")
        let listed = try Self.server(["lti", "list"], school: school)
        #expect(listed.output == "https://lms.example  client c1  deployments 1, 2  scores every 600 s\n", "\(listed.output)")
        // The tool's key set: one RS256 key, then two after a rotation.
        let rotated = try Self.server(["lti", "rotate-key"], school: school)
        #expect(rotated.status == 0 && rotated.output.contains("stays published for seven days"), "\(rotated.output)")
        let keys = try await ServerDatabase.withDatabase(school.app, logger: .tests) { try await $0.toolKeys() }
        #expect(keys.count == 2 && keys.first?.isCurrent == true && keys.last?.isCurrent == false)
        let set = try JSONSerialization.jsonObject(with: try LTIToolKey.keySet(of: keys)) as? [String: Any]
        let published = try #require(set?["keys"] as? [[String: Any]])
        #expect(published.map { $0["kid"] as? String } == keys.map(\.kid))
        #expect(published.allSatisfy { $0["alg"] as? String == "RS256" && $0["kty"] as? String == "RSA" && $0["d"] == nil })

        // prune deletes the logins past their time and the registration codes expired a day ago, and nothing else.
        let owner = (user: "clsfile_owner", password: "owner-secret", database: "clsfile")
        try school.cluster.psql(
            """
            INSERT INTO clsfile.lti_login (state_hash, platform_id, nonce, target_link_uri, expires_at)
            SELECT decode(repeat(n::text, 64), 'hex'), id, 'n', 't', now() + (n - 2) * interval '1 hour' + interval '1 minute'
            FROM clsfile.lti_platform, generate_series(1, 3) AS n
            """, user: owner.user, password: owner.password, database: owner.database)
        #expect(try Self.server(["lti", "registration-url", "--server-url", "https://class.example.org"], school: school).status == 0)
        try school.cluster.psql(
            "UPDATE clsfile.lti_registration_code SET expires_at = now() - interval '2 days'", user: owner.user,
            password: owner.password, database: owner.database)
        let pruned = try Self.server(["prune"], school: school)
        #expect(pruned.output.hasSuffix("pruned 2 expired LTI logins, deep links and tokens\n"), "\(pruned.output)")
        let left = try school.cluster.psql(
            "SELECT count(*) FROM clsfile.lti_login", user: owner.user, password: owner.password, database: owner.database)
        #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(left)")
    }

    @Test func aRegistrationsConfigurationMustLieUnderItsIssuer() throws {
        func lies(_ address: String, under issuer: String) throws -> Bool {
            LTIDynamicRegistration.address(try #require(URL(string: address)), liesUnder: try #require(URL(string: issuer)))
        }
        #expect(try lies("https://lms.example/.well-known/openid-configuration", under: "https://lms.example"))
        #expect(try lies("https://lms.example/moodle/mod/lti/openid-configuration.php", under: "https://lms.example/moodle"))
        #expect(try !lies("https://lms.example.evil.net/cfg", under: "https://lms.example"))
        #expect(try !lies("https://lms.example/moodlex/cfg", under: "https://lms.example/moodle"))
        #expect(try !lies("http://lms.example/cfg", under: "https://lms.example"))
        #expect(try !lies("https://lms.example:8443/cfg", under: "https://lms.example"))
    }

    @Test func theServerCallsOnlyThePlatformsHTTPSAddresses() throws {
        func platform(_ issuer: String) throws -> LTIPlatform {
            let url = try #require(URL(string: issuer + "/x"))
            return LTIPlatform(issuer: issuer, clientID: "c", authLoginURL: url, authTokenURL: url, jwksURL: url, deployments: ["d"])
        }
        let school = try platform("https://lms.example")
        #expect(school.serviceAddress("https://grades.lms.example/lineitems/1") != nil)
        #expect(school.serviceAddress("http://169.254.169.254/latest/meta-data") == nil)
        #expect(school.serviceAddress("http://127.0.0.1:8080/lineitems/1") == nil)
        #expect(school.serviceAddress("file:///etc/passwd") == nil)
        #expect(try platform("http://127.0.0.1:9000").serviceAddress("http://127.0.0.1:9000/ags/c/lineitems/1") != nil)
        #expect(LTIRosterReader.sameOrigin("https://lms.example/nrps?page=2", as: "https://lms.example/nrps"))
        #expect(!LTIRosterReader.sameOrigin("https://elsewhere.example/nrps?page=2", as: "https://lms.example/nrps"))
    }

    @Test func aLoginOrRegistrationWhoseQueryDoesNotDecodeIsRefusedWithAPage() async throws {
        let school = try await ServerDatabaseTests.School()
        let scratch = try Scratch()
        let server = try await SyncTests.RunningServer(school, in: scratch.url)
        let target = "target_link_uri=" + server.url.absoluteString + "/lti/launch"
        // A field twice, and a field as a dictionary.
        for query in ["iss=a&iss=b&login_hint=1&\(target)", "iss%5Bx%5D=a&login_hint=1&\(target)"] {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: server.url.absoluteString + "/lti/login?" + query), timeout: .seconds(30))
            let page = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(response.status == .badRequest, "\(query): \(response.status)")
            #expect(response.headers.first(name: "Content-Type")?.hasPrefix("text/html") == true, "\(query)")
            #expect(page.contains("the query is not the login an LTI platform sends"), "\(query): \(page.prefix(2000))")
        }
        // A Dynamic Registration's, likewise.
        for query in ["openid_configuration=a&openid_configuration=b", "openid_configuration%5Bx%5D=a"] {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: server.url.absoluteString + "/lti/register?" + query), timeout: .seconds(30))
            let page = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(response.status == .badRequest, "\(query): \(response.status)")
            #expect(page.contains("the query is not the registration an LMS begins"), "\(query): \(page.prefix(2000))")
        }
    }

    @Test func aLoginSendsTheBrowserBackToTheLaunchAddressAsThePlatformSpellsIt() throws {
        let origins: Set = [try ServerOrigin("https://class.school.example"), try ServerOrigin("http://127.0.0.1:8080")]
        #expect(
            try LTIRoutes.redirectAddress(for: "https://class.school.example/lti/launch", origins: origins)
                == "https://class.school.example/lti/launch")
        #expect(
            try LTIRoutes.redirectAddress(for: "HTTPS://class.school.example:443/lti/launch?course=7#top", origins: origins)
                == "https://class.school.example:443/lti/launch")
        #expect(
            try LTIRoutes.redirectAddress(for: "http://127.0.0.1:8080/lti/launch", origins: origins) == "http://127.0.0.1:8080/lti/launch")
        for elsewhere in [
            "https://elsewhere.example/lti/launch", "https://class.school.example/lti/other", "http://127.0.0.1:8081/lti/launch"
        ] {
            #expect(throws: ServerError.self, "\(elsewhere)") { try LTIRoutes.redirectAddress(for: elsewhere, origins: origins) }
        }
    }

    /// The OpenAPI document of `GET /v1/openapi.yaml` has every LTI route: schemathesis checks
    /// what it has (`Scripts/catalog-api-check`).
    @Test func theOpenAPIDocumentHasEveryLTIRoute() throws {
        let document = String(
            decoding: try Data(
                contentsOf: PythonPackages.packageRoot.appendingPathComponent("Sources/ClassServer/Catalog/catalog-openapi.yaml")),
            as: UTF8.self)
        var operations: Set<String> = [], path = ""
        for line in document.split(separator: "\n") {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let method = line.firstMatch(of: /^    (get|post|put|patch|delete):$/)?.1 {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        let lti = [
            "GET /lti/jwks", "GET /lti/login", "POST /lti/login", "POST /lti/launch", "GET /lti/register", "POST /lti/deep-link"
        ]
        #expect(operations.filter { $0.contains(" /lti/") } == Set(lti), "\(operations.sorted())")
    }

    @Test func namesFromTheLMSAreShownWithoutControlCharactersAndWithinTheirLength() {
        #expect(LTIShownName.person(name: "  ", given: "Ada", family: "Lovelace", id: "s-1") == "Ada Lovelace")
        #expect(LTIShownName.person(name: "Ada\u{1B}[31m Lovelace", given: nil, family: nil, id: "s-1") == "Ada[31m Lovelace")
        #expect(LTIShownName.person(name: nil, given: nil, family: nil, id: "s-1") == "s-1")
        #expect(LTIShownName.first(of: [String(repeating: "x", count: 300)], otherwise: "c").count == 200)
        #expect(LTIShownName.first(of: [nil, "7B"], otherwise: "Course 1") == "7B")
    }

    @Test func aLaunchWithLoginCookiesOfAnotherLoginIsRefused() throws {
        let state = "abc"
        let own = "\(LTIRoutes.stateCookiePrefix)\(String(LTIRoutes.hash(state).map { String(format: "%02x", $0) }.joined().prefix(16)))"
        try LTIRoutes.checkCookies([], state: state)
        try LTIRoutes.checkCookies(["other=1; \(own)=\(state)"], state: state)
        #expect(throws: ServerError.self) {
            try LTIRoutes.checkCookies(["\(LTIRoutes.stateCookiePrefix)0123456789abcdef=xyz"], state: state)
        }
        #expect(throws: ServerError.self) { try LTIRoutes.checkCookies(["\(own)=forged"], state: state) }
    }
}
