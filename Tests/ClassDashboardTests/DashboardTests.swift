@testable import Classroom
import Foundation
import OpenClassKit
import TestSupport
import Testing

/// `clsfile serve` run as a teacher would run it, read by headless Chromium and a plain socket.
@Suite(.serialized)
struct DashboardTests {
    @Test func pagesShowWhatTheStoreHolds() async throws {
        let fixture = try await ClassFixture()
        let server = try await fixture.serve()
        let base = server.url
        #expect(base.hasPrefix("http://127.0.0.1:") && !base.contains("token"))
        #expect(server.process.output.contains("Store: \(fixture.storeURL.path)"))

        // The class: per assignment the averages and how many are done.
        let index = try await Chromium.dumpDOM(base, in: fixture.scratch.url)
        // Titled with the classes its assignments were handed to (escaped), not "Class".
        let heading = try #require(DOM.element("h1", with: "<h1", in: index))
        #expect(heading.contains("7B &lt;i&gt;") && !index.contains("<h1>Class</h1>"), "\(heading)")
        let essayRow = try #require(DOM.element("tr", with: "data-assignment=\"\(fixture.essay.identifier)\"", in: index))
        #expect(essayRow.contains(#"data-done="2" data-students="3""#))
        #expect(DOM.text(essayRow).contains("2 of 3"))
        // (600 + 1200 + 300) / 3 s; (0.5 + 0.75 + 1) / 3.
        #expect(essayRow.contains(#"data-seconds="700.0">11m 40s"#))
        #expect(essayRow.contains(#"data-progress="0.75""#) && DOM.text(essayRow).contains("75%"))
        // Word counts (400 + 300) / 2 and the one quiz score, never averaged together.
        #expect(essayRow.contains(#"data-key="quantity:total_word_count" data-average="350.0" data-count="2""#))
        #expect(essayRow.contains(#"data-key="score:quiz" data-average="3.0" data-count="1""#))
        #expect(DOM.text(essayRow).contains("Word Count: 350"))
        #expect(DOM.text(essayRow).contains("Quiz: 3"))
        #expect(essayRow.contains("data-warning-for=\"\(fixture.essay.identifier)\""))
        #expect(DOM.text(essayRow).contains("2 different kinds"))
        #expect(essayRow.contains("Rivers &lt;b&gt;&amp;&lt;/b&gt; \"Lakes\""))
        let labRow = try #require(DOM.element("tr", with: "data-assignment=\"\(fixture.lab.identifier)\"", in: index))
        #expect(labRow.contains(#"data-done="0" data-students="1""#))
        #expect(labRow.contains(#"data-seconds="90.0">1m 30s"#))
        #expect(labRow.contains(#"data-key="quantity:total_word_count" data-average="250.0""#))
        #expect(!labRow.contains("data-warning-for"))
        let poemRow = try #require(DOM.element("tr", with: "data-assignment=\"\(fixture.poem.identifier)\"", in: index))
        #expect(DOM.text(poemRow).contains("0 of 0"))

        // One assignment: a row per student, the averages, the warning.
        let essayURL = Self.url(base, "/assignments/\(fixture.essay.identifier)")
        let essayPage = try await Chromium.dumpDOM(essayURL, in: fixture.scratch.url)
        #expect(DOM.elements("tr", with: "data-student=", in: essayPage).count == 3)
        let ada = try #require(DOM.element("tr", with: "data-student=\"\(ClassFixture.ada.id)\"", in: essayPage))
        #expect(DOM.text(ada).contains("Ada Lovelace"))
        #expect(ada.contains(#"data-seconds="600.0">10m 00s"#))
        #expect(ada.contains(#"data-key="quantity:total_word_count" data-value="400.0">Word Count: 400"#))
        #expect(ada.contains(#"data-progress="0.5""#) && DOM.text(ada).contains("50%"))
        #expect(ada.contains(#"data-basis="target_words">toward 800 words"#), "the progress names its basis")
        #expect(ada.contains(#"data-done="true""#) && DOM.text(ada).contains("Done"))
        let bob = try #require(DOM.element("tr", with: "data-student=\"\(ClassFixture.bob.id)\"", in: essayPage))
        #expect(bob.contains(#"&lt;script&gt;alert("x")&lt;/script&gt; Bob &amp; Co"#))
        #expect(bob.contains(#"data-done="false""#) && DOM.text(bob).contains("Not done"))
        let cleo = try #require(DOM.element("tr", with: "data-student=\"\(ClassFixture.cleo.id)\"", in: essayPage))
        #expect(cleo.contains(#"data-key="score:quiz" data-value="3.0">Quiz: 3/4"#))
        #expect(essayPage.contains(#"id="done-count" data-done="2" data-students="3""#))
        #expect(DOM.elements("div", with: "class=\"card primary-card\"", in: essayPage).count == 2)
        #expect(essayPage.contains("data-warning-for=\"\(fixture.essay.identifier)\""))
        #expect(!essayPage.contains("<script") && !essayPage.contains("<img") && !essayPage.contains("<b>"))

        // An assignment whose primary items are all of one kind has no warning.
        let labPage = try await Chromium.dumpDOM(Self.url(base, "/assignments/\(fixture.lab.identifier)"), in: fixture.scratch.url)
        #expect(!labPage.contains("data-warning-for"))
        #expect(DOM.elements("tr", with: "data-student=", in: labPage).count == 1)

        // One student's work in detail: every item and every session.
        let adaURL = Self.url(base, "/assignments/\(fixture.essay.identifier)/students/\(ClassFixture.ada.id)")
        let adaPage = try await Chromium.dumpDOM(adaURL, in: fixture.scratch.url)
        let items = DOM.elements("tr", with: "class=\"item\"", in: adaPage)
        #expect(items.count == 6)
        #expect(adaPage.contains(#"data-basis="target_words">toward 800 words"#), "the progress card names its basis")
        // As a screen reader or a copy reads the text, tags removed and nothing added between them.
        let readText = adaPage.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        #expect(readText.contains("% toward 800 words"), "the share and its basis are two words, not \"100%toward\"")
        #expect(items.first?.contains(#"data-key="quantity:total_word_count" data-value="400.0" data-primary="true""#) == true)
        #expect(items.contains { $0.contains("quantity:readability_grade") && DOM.text($0).contains("Readability Grade Quantity 7.9") })
        #expect(items.contains { DOM.text($0).contains("Typed Characters Quantity 1200") })
        #expect(items.contains { DOM.text($0).contains("Pasted Characters Quantity 30") })
        #expect(items.contains { DOM.text($0).contains("Open Time Quantity 15m 00s") })
        #expect(adaPage.contains(#"id="typed-pasted" data-typed="1200.0" data-pasted="30.0""#))
        let sessions = DOM.elements("tr", with: "class=\"session\"", in: adaPage)
        #expect(sessions.count == 2)
        #expect(sessions.map { $0.contains(#"data-seconds="400.0""#) } == [true, false])
        #expect(sessions.last?.contains(#"data-seconds="200.0""#) == true)
        #expect(adaPage.contains(#"id="session-count" data-sessions="2""#))
        #expect(adaPage.contains(#"id="done" data-done="true""#))

        let bobPage = try await Chromium.dumpDOM(
            Self.url(base, "/assignments/\(fixture.essay.identifier)/students/\(ClassFixture.bob.id)"), in: fixture.scratch.url)
        #expect(bobPage.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!bobPage.contains("<img") && !bobPage.contains("<script"))
        #expect(bobPage.contains(#"<h1 id="student-name">&lt;script&gt;alert("x")&lt;/script&gt; Bob &amp; Co</h1>"#))

        // The JSON is the class report the store gives.
        let json = try HTTPProbe.request(port: server.port, path: "/api/class-report.json")
        #expect(json.status == 200 && json.header("Content-Type")?.hasPrefix("application/json") == true)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let served = try decoder.decode(ClassReport.self, from: Data(json.body.utf8))
        #expect(served == (try await ClassReport(store: fixture.store())))

        // The teacher's own unassigned work never appears.
        for page in [index, essayPage, labPage, adaPage, bobPage, json.body] {
            #expect(!page.contains(ClassFixture.privateFileName) && !page.contains("98765"))
        }

        // A screenshot of the assignment page, as a person sees it.
        let shot = fixture.scratch.url.appendingPathComponent("assignment.png")
        let png = try await Chromium.screenshot(essayURL, to: shot, in: fixture.scratch.url)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count > 10_000)
        #expect(Self.pngSize(png).map { $0 == 1200 && $1 == 900 } == true)
        let classShot = fixture.scratch.url.appendingPathComponent("class.png")
        let classPNG = try await Chromium.screenshot(base, to: classShot, in: fixture.scratch.url)
        #expect(classPNG.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) && classPNG.count > 10_000)
        // CLSFILE_KEEP_SCREENSHOTS=DIR keeps them, for a person to look at.
        if let keep = ProcessInfo.processInfo.environment["CLSFILE_KEEP_SCREENSHOTS"] {
            for (file, name) in [(shot, "dashboard-assignment.png"), (classShot, "dashboard-class.png")] {
                try? FileManager.default.removeItem(atPath: "\(keep)/\(name)")
                try? FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: "\(keep)/\(name)"))
            }
        }

        // Work collected while the server runs shows at the next request.
        try await ClassFixture.submit(
            to: fixture.store(), ClassFixture.dan,
            StudentWork(
                assignmentIdentifier: fixture.lab.identifier, documentName: "lab.txt", activeSeconds: 30,
                sessions: [.init(start: ClassFixture.start, end: ClassFixture.start.addingTimeInterval(30))],
                progress: 0.75, primaryItem: ClassFixture.quantity("total_word_count", "Word Count", 350),
                additionalItems: [], completedAt: ClassFixture.start.addingTimeInterval(60)))
        let after = try await Chromium.dumpDOM(base, in: fixture.scratch.url)
        let labAfter = try #require(DOM.element("tr", with: "data-assignment=\"\(fixture.lab.identifier)\"", in: after))
        #expect(labAfter.contains(#"data-done="1" data-students="2""#))
        #expect(labAfter.contains(#"data-seconds="60.0">1m 00s"#))
        #expect(labAfter.contains(#"data-average="300.0""#))

        #expect(await server.stop() == 0)
        #expect(server.process.output.hasSuffix("Stopped.\n"))
    }

    @Test func aServerWithATokenAnswers401WithoutIt() async throws {
        let fixture = try await ClassFixture()
        let token = "correct-horse-battery-staple"
        let server = try await fixture.serve(["--token-file", try fixture.tokenFile(token).path])
        // Nowhere on its command line, which every user of the machine can read.
        let commandLine = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(server.process.pid)/cmdline")), as: UTF8.self)
        #expect(commandLine.contains("--token-file") && !commandLine.contains(token))
        #expect(server.url == "http://127.0.0.1:\(server.port)/?token=\(token)")
        #expect(server.process.output.contains("Authorization: Bearer TOKEN"))
        #expect(!server.process.output.contains("made for this run"))

        for path in ["/", "/api/class-report.json", "/assignments/\(fixture.essay.identifier)", "/no-such-page"] {
            let bare = try HTTPProbe.request(port: server.port, path: path)
            #expect(bare.status == 401, "\(path)")
            #expect(bare.header("WWW-Authenticate") == #"Bearer realm="clsfile""#)
            #expect(!bare.body.contains("Ada Lovelace") && !bare.body.contains("Rivers"))
        }
        #expect(try HTTPProbe.request(port: server.port, path: "/?token=wrong-horse-battery-staple").status == 401)
        #expect(try HTTPProbe.request(port: server.port, path: "/", headers: ["Authorization": "Bearer \(token)x"]).status == 401)
        #expect(try HTTPProbe.request(port: server.port, path: "/", headers: ["Authorization": "Basic \(token)"]).status == 401)

        let bearer = try HTTPProbe.request(port: server.port, path: "/", headers: ["Authorization": "Bearer \(token)"])
        #expect(bearer.status == 200 && bearer.body.contains("Rivers"))
        #expect(bearer.body.contains("href=\"/assignments/\(fixture.essay.identifier)\""))
        // A browser that gave the token in the address gets links that carry it on.
        let page = try await Chromium.dumpDOM(server.url, in: fixture.scratch.url)
        #expect(page.contains("href=\"/assignments/\(fixture.essay.identifier)?token=\(token)\""))
        let unauthorized = try await Chromium.dumpDOM("http://127.0.0.1:\(server.port)/", in: fixture.scratch.url)
        #expect(unauthorized.contains(#"<h1 id="message-title">Token required</h1>"#))
        #expect(await server.stop() == 0)
    }

    @Test func anAddressOtherThanLoopbackGetsARandomToken() async throws {
        let fixture = try await ClassFixture()
        let server = try await fixture.serve(["--host", "0.0.0.0"])
        let printed = try #require(Self.printedToken(server))
        #expect(printed.count == 43)
        #expect(server.url == "http://0.0.0.0:\(server.port)/?token=\(printed)")
        #expect(try HTTPProbe.request(port: server.port, path: "/").status == 401)
        #expect(try HTTPProbe.request(port: server.port, path: "/?token=\(printed)").status == 200)
        #expect(await server.stop() == 0)

        let second = try await fixture.serve(["--host", "0.0.0.0"], name: "serve-again")
        #expect(try #require(Self.printedToken(second)) != printed)
        #expect(await second.stop() == 0)
    }

    @Test func unknownAddressesGet404Pages() async throws {
        let fixture = try await ClassFixture()
        let server = try await fixture.serve()
        for path in [
            "/assignments/no-such-assignment", "/assignments/\(fixture.essay.identifier)/students/no-such-student",
            "/assignments/no-such-assignment/students/\(ClassFixture.ada.id)", "/no/such/page"
        ] {
            let reply = try HTTPProbe.request(port: server.port, path: path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.header("Content-Type") == "text/html; charset=utf-8")
            #expect(reply.body.contains(#"<h1 id="message-title">Not found</h1>"#))
        }
        // The dashboard changes nothing: other methods find no page.
        #expect(try HTTPProbe.request(port: server.port, path: "/", method: "POST").status == 404)
        let dom = try await Chromium.dumpDOM(Self.url(server.url, "/assignments/no-such-assignment"), in: fixture.scratch.url)
        #expect(dom.contains("There is no assignment with this identifier"))
        #expect(await server.stop() == 0)
    }

    /// The JSON a page of students at a time (200 unless `limit` says), the next page's address in
    /// `next` and in `Link`; the pages together are the whole report.
    @Test func theReportsJSONComesAPageOfStudentsAtATime() async throws {
        let fixture = try await ClassFixture()
        let server = try await fixture.serve()
        let whole = try await ClassReport(store: fixture.store())
        let everyone = Set(whole.assignments.flatMap { $0.students.map(\.studentIdentifier) + $0.keptAside.map(\.studentIdentifier) })
        #expect(everyone.count >= 2)
        let all = try HTTPProbe.request(port: server.port, path: "/api/class-report.json")
        #expect(all.status == 200 && all.header("Link") == nil && !all.body.contains("\"next\""))
        #expect(try ClassReport.jsonDecoder().decode(ClassReport.self, from: Data(all.body.utf8)) == whole)

        var path = "/api/class-report.json?limit=1"
        var pages: [ClassReport] = []
        while pages.count <= everyone.count {
            let answer = try HTTPProbe.request(port: server.port, path: path)
            #expect(answer.status == 200, "\(path): \(answer.body)")
            pages.append(try ClassReport.jsonDecoder().decode(ClassReport.self, from: Data(answer.body.utf8)))
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            guard let next = object?["next"] as? String else {
                #expect(answer.header("Link") == nil)
                break
            }
            #expect(answer.header("Link") == "<\(next)>; rel=\"next\"")
            #expect(next.hasPrefix("/api/class-report.json?after=") && next.hasSuffix("&limit=1"))
            path = next
        }
        #expect(pages.count == everyone.count)
        // Put together, as a class server's pages are: assignments by title.
        var byTitle = whole
        byTitle.assignments.sort { ($0.title, $0.identifier) < ($1.title, $1.identifier) }
        #expect(ClassReport(mergingPages: pages) == byTitle)

        for bad in ["0", "1001", "many"] {
            let refused = try HTTPProbe.request(port: server.port, path: "/api/class-report.json?limit=\(bad)")
            #expect(
                refused.status == 400 && refused.body.contains("limit is a number of students from 1 to 1000"), "\(bad): \(refused.body)")
        }
        #expect(await server.stop() == 0)
    }

    @Test func requestsNamingAnotherHostAreRefusedOnLoopback() async throws {
        let fixture = try await ClassFixture()
        let server = try await fixture.serve()
        let reply = try HTTPProbe.request(port: server.port, path: "/", headers: ["Host": "attacker.example:\(server.port)"])
        #expect(reply.status == 403 && !reply.body.contains("Ada"))
        for host in ["localhost:\(server.port)", "[::1]:\(server.port)", "127.0.0.1"] {
            #expect(try HTTPProbe.request(port: server.port, path: "/", headers: ["Host": host]).status == 200, "\(host)")
        }
        // No Host at all: 400, for pages and the API alike.
        for path in ["/", "/api/class-report.json"] {
            let bare = try HTTPProbe.request(port: server.port, path: path, headers: ["Host": ""])
            #expect(bare.status == 400 && !bare.body.contains("Ada"), "\(path): \(bare.status)")
        }
        #expect(await server.stop() == 0)
    }

    /// Each student's key on the assignment page, and the submissions kept aside below the table.
    @Test func theAssignmentPageShowsKeysAndWhatWasKeptAside() async throws {
        let fixture = try await ClassFixture()
        let store = fixture.store()
        let danKey = Identity().signingPublicKey, forgedKey = Identity().signingPublicKey
        func submission(_ digest: String, key: Data) throws -> Submission {
            Submission(
                assignmentIdentifier: fixture.essay.identifier, studentIdentifier: ClassFixture.dan.id,
                studentName: ClassFixture.dan.name, submittedAt: ClassFixture.start.addingTimeInterval(6000),
                digest: digest,
                payload: try JSONCoding.encoder.encode(
                    StudentWork(
                        assignmentIdentifier: fixture.essay.identifier, documentName: "essay.txt", activeSeconds: 60,
                        sessions: [], progress: 0.1, primaryItem: nil, additionalItems: [], completedAt: nil)),
                studentKey: key)
        }
        #expect(try await store.importSubmission(try submission("dan-1", key: danKey)) == .added)
        #expect(try await store.importSubmission(try submission("forged", key: forgedKey)) == .conflict)
        let server = try await fixture.serve()
        let page = try HTTPProbe.request(port: server.port, path: "/assignments/\(fixture.essay.identifier)")
        #expect(await server.stop() == 0)
        #expect(page.status == 200)
        #expect(page.body.contains(String(Identity.fingerprint(of: danKey).prefix(9))))
        #expect(page.body.contains("<h2>Kept aside</h2>") && page.body.contains(Identity.fingerprint(of: forgedKey)))
        #expect(page.body.contains("<td class=\"key\">–</td>"), "work collected before keys shows none")
    }

    /// The addresses of a later page of a long list and of a later part of a long replay step.
    @Test func longListsAndTextsArePagedThroughTheAddress() async throws {
        let fixture = try await ClassFixture()
        let t = ClassFixture.start
        let text = String(repeating: "A line of the lab report, long enough to count.\n", count: 8_000)
        let entry = WritingHistoryEntry(date: t.addingTimeInterval(60), sessionStart: t, activeTime: 60, sessionIdentifier: "session-1")
        var work = StudentWork(
            assignmentIdentifier: fixture.lab.identifier, documentName: "lab.txt", activeSeconds: 36_000,
            sessions: (0..<1_200).map {
                .init(start: t.addingTimeInterval(Double($0) * 60), end: t.addingTimeInterval(Double($0) * 60 + 30))
            },
            progress: 0.5, primaryItem: nil, additionalItems: [], completedAt: nil)
        work.history = [entry]
        work.snapshots = [WritingSnapshotRecord(keyframeOf: Array(text.utf8), entry: entry)]
        try await ClassFixture.submit(to: fixture.store(), ClassFixture.dan, work)
        let server = try await fixture.serve()
        let student = "/assignments/\(fixture.lab.identifier)/students/\(ClassFixture.dan.id)"

        let first = try HTTPProbe.request(port: server.port, path: student)
        #expect(first.status == 200 && DOM.elements("tr", with: "class=\"session\"", in: first.body).count == 500)
        #expect(first.body.contains("\(student)?sessions-from=500\">Next 500</a>"))
        let later = try HTTPProbe.request(port: server.port, path: student + "?sessions-from=1000")
        let rows = DOM.elements("tr", with: "class=\"session\"", in: later.body)
        #expect(rows.count == 200 && rows.first?.contains("<td class=\"number\">1001</td>") == true)
        #expect(later.body.contains("Sessions 1001–1200 of 1200."))

        let replay = try HTTPProbe.request(port: server.port, path: student + "/replay?step=1")
        #expect(replay.status == 200 && replay.body.contains("Bytes 1–131"), "\(replay.body.prefix(2_000))")
        let next = try HTTPProbe.request(port: server.port, path: student + "/replay?step=1&from=200000")
        #expect(next.body.contains("Bytes 200001–") && next.body.contains("id=\"replay-start\""))
        #expect(await server.stop() == 0)
    }

    @Test func serveIsForTheTeacherOnly() async throws {
        let fixture = try await ClassFixture(role: .student)
        let result = try run(
            try builtExecutable("clsfile"), ["serve", "--store", fixture.storeURL.path, "--port", "0"],
            environment: ["XDG_CONFIG_HOME": fixture.configHome.path])
        #expect(result.status == 64)
        #expect(
            result.errorOutput
                == "clsfile: `clsfile serve` is for a teacher, and the role now is student: run `clsfile role teacher` first\n")
    }

    @Test func aStoreThatCannotBeReadStopsServeAtOnce() async throws {
        let fixture = try await ClassFixture()
        let damaged = try fixture.scratch.file("damaged.sqlite", String(repeating: "not a database ", count: 200))
        let result = try run(
            try builtExecutable("clsfile"), ["serve", "--store", damaged.path, "--port", "0"],
            environment: ["XDG_CONFIG_HOME": fixture.configHome.path])
        #expect(result.status == 74)
        #expect(result.errorOutput.hasPrefix("clsfile: ") && result.errorOutput.contains(damaged.path))
        #expect(!result.output.contains("Class dashboard"))
    }

    @Test func aPortInUseFailsWithExit69() async throws {
        let fixture = try await ClassFixture()
        let first = try await fixture.serve()
        let result = try run(
            try builtExecutable("clsfile"), ["serve", "--store", fixture.storeURL.path, "--port", "\(first.port)"],
            environment: ["XDG_CONFIG_HOME": fixture.configHome.path])
        #expect(result.status == 69)
        #expect(result.errorOutput.hasPrefix("clsfile: cannot listen on 127.0.0.1 port \(first.port): "))
        #expect(result.errorOutput.hasSuffix("; choose another --port or --host (port 0 picks a free one)\n"))
        #expect(await first.stop() == 0)
    }

    @Test(arguments: ["short", "has spaces in the token", "ünïcödé-token-value"])
    func aBadTokenIsAUsageError(token: String) async throws {
        let fixture = try await ClassFixture()
        let fromEnvironment = try run(
            try builtExecutable("clsfile"), ["serve", "--store", fixture.storeURL.path],
            environment: fixture.environment.merging(["CLSFILE_DASHBOARD_TOKEN": token]) { $1 })
        #expect(fromEnvironment.status == 64)
        #expect(
            fromEnvironment.errorOutput.contains("CLSFILE_DASHBOARD_TOKEN: the token must have at least 16 characters"),
            "\(fromEnvironment.errorOutput)")
        let file = try fixture.tokenFile(token)
        let fromFile = try run(
            try builtExecutable("clsfile"), ["serve", "--store", fixture.storeURL.path, "--token-file", file.path],
            environment: fixture.environment)
        #expect(fromFile.status == 64)
        #expect(
            fromFile.errorOutput.contains("the token file \(file.path) does not hold a token: the token must have at least 16 characters"),
            "\(fromFile.errorOutput)")
    }

    @Test func theTokenComesFromAFileOrTheEnvironmentNeverTheCommandLine() async throws {
        let fixture = try await ClassFixture()
        let token = "correct-horse-battery-staple"
        func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
            try run(
                try builtExecutable("clsfile"), ["serve", "--store", fixture.storeURL.path, "--port", "0"] + arguments,
                environment: fixture.environment.merging(environment) { $1 })
        }
        let onArgv = try serve(["--token", token])
        #expect(
            onArgv.status == 64
                && onArgv.errorOutput.contains(
                    "--token shows the token to every user of this machine (ps): put it in a file readable by you alone and give --token-file PATH, or set CLSFILE_DASHBOARD_TOKEN"
                ),
            "\(onArgv.errorOutput)")
        #expect(
            !(try run(try builtExecutable("clsfile"), ["serve", "--help"], environment: fixture.environment).output.contains("--token <")))
        let shared = try fixture.tokenFile(token, mode: 0o644)
        let readable = try serve(["--token-file", shared.path])
        #expect(
            readable.status == 64
                && readable.errorOutput.contains("can be read by other users (mode 644): make it yours alone with chmod 600"),
            "\(readable.errorOutput)")
        let missing = try serve(["--token-file", fixture.scratch.url.appendingPathComponent("no-such-file").path])
        #expect(missing.status == 64 && missing.errorOutput.contains("cannot be read"), "\(missing.errorOutput)")
        let both = try serve(["--token-file", try fixture.tokenFile(token).path], environment: ["CLSFILE_DASHBOARD_TOKEN": token])
        #expect(both.status == 64 && both.errorOutput.contains("not both"), "\(both.errorOutput)")

        let server = try await fixture.serve(environment: ["CLSFILE_DASHBOARD_TOKEN": token])
        #expect(server.url == "http://127.0.0.1:\(server.port)/?token=\(token)")
        #expect(try HTTPProbe.request(port: server.port, path: "/").status == 401)
        #expect(try HTTPProbe.request(port: server.port, path: "/", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        #expect(await server.stop() == 0)
    }

    @Test func aConnectionThatDoesNotFinishItsRequestIsClosed() async throws {
        let fixture = try await ClassFixture()
        let server = try await fixture.serve(["--idle-timeout", "1", "--body-timeout", "3"])
        let head = "POST /api/class-report.json HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
        // Half a body, then nothing: closed once idle for a second.
        let stalled = try StallingClient.secondsUntilClosed(
            port: server.port, sending: head + "Content-Length: 1000\r\n\r\n" + String(repeating: "x", count: 500),
            then: .stalls, limit: 20)
        #expect(try #require(stalled) < 2.5, "closed after \(stalled ?? 0) s")
        // A byte every quarter second, never idle a second: closed by the body's timeout.
        let trickled = try StallingClient.secondsUntilClosed(
            port: server.port, sending: head + "Content-Length: 100000\r\n\r\n",
            then: .trickles(every: 0.25), limit: 20)
        #expect(try #require(trickled) >= 2.5 && trickled ?? 0 < 5, "closed after \(trickled ?? 0) s")
        // An idle connection between requests is closed too.
        let idle = try StallingClient.secondsUntilClosed(port: server.port, sending: "", then: .stalls, limit: 20)
        #expect(try #require(idle) < 2.5, "closed after \(idle ?? 0) s")
        #expect(try HTTPProbe.request(port: server.port, path: "/").status == 200)
        #expect(await server.stop() == 0)
    }

    @Test func chromiumIsInstalled() throws {
        // CI installs Chromium; without it the dashboard is untested, which must fail loudly.
        _ = try Chromium.executable()
    }

    /// The token a server printed that it made.
    static func printedToken(_ server: ServerProcess) -> String? {
        let prefix = "Access token (made for this run; --token-file or CLSFILE_DASHBOARD_TOKEN chooses one): "
        return server.process.output.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// A path on the server, keeping any `?token=`.
    static func url(_ base: String, _ path: String) -> String {
        guard let components = URLComponents(string: base) else { return base }
        return "http://\(components.host ?? "127.0.0.1"):\(components.port ?? 80)\(path)" + (components.query.map { "?\($0)" } ?? "")
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ png: Data) -> (Int, Int)? {
        guard png.count >= 24 else { return nil }
        let bytes = [UInt8](png[16..<24])
        let width = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[4..<8].reduce(0) { $0 << 8 | Int($1) }
        return (width, height)
    }
}
