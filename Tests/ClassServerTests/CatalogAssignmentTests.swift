@testable import ClassServer
import AsyncHTTPClient
import ClassWire
import Classroom
import ClassSync
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import OpenClassKit
import Testing
import TestSupport

/// A teacher assigns a context of the production catalog from the class server's catalog page,
/// and the students' work under it — in an app that uses OpenClassKit (`Samples/ContextSample`)
/// and in a document of the course opened with `clsfile open` — reports to that assignment in
/// the class report: real `clsfile-server`, real PostgreSQL, the real programs.
@Suite(.serialized)
struct CatalogAssignmentTests {
    /// The catalog of the team acme: the sample app's book (a container), its chapter with a
    /// thumbnail and metadata, the chapter's quiz and notes; and a draft only in development.
    static func publishCatalog(_ school: ServerDatabaseTests.School) async throws -> Data {
        func context(_ path: [String], _ title: String, _ type: String, _ extra: [String: Any] = [:]) -> [String: Any] {
            ["data": ["identifierPath": path, "title": title, "type": type].merging(extra) { $1 }]
        }
        let book = ["fun-with-science"], chapter = ["fun-with-science", "measurements"]
        let production = [
            context(book, "Fun with Science", "book", ["isAssignable": false]),
            context(
                chapter, "Measurements", "chapter",
                [
                    "summary": "Units of length, mass and time.", "suggestedAge": [9, 11], "suggestedCompletionTime": [15, 20],
                    "progressReportingCapabilities": [
                        ["kind": "percent", "details": "Share of the quiz done"],
                        ["kind": "score", "details": "Total score"]
                    ],
                    "thumbnailId": "measurements"
                ]),
            context(chapter + ["measurements-quiz"], "Measurements Quiz", "quiz"),
            context(chapter + ["notes"], "Notes", "document")
        ]
        let decode = { (contexts: [[String: Any]]) in
            try JSONDecoder().decode([CatalogWire.Context].self, from: try JSONSerialization.data(withJSONObject: contexts))
        }
        let image = TestImages.png(width: 330, height: 330)
        try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
            _ = try await database.publishContexts(try decode(production), team: "acme", environment: .production)
            _ = try await database.putThumbnail(
                try CatalogThumbnail(checking: image, contentType: "image/png"), id: "measurements",
                team: "acme", environment: .production)
            _ = try await database.publishContexts(
                try decode([context(["secret-draft"], "Secret draft", "chapter")]),
                team: "acme", environment: .development)
        }
        return image
    }

    /// A page or form answer, redirects not followed.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static let browser = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    static func call(_ url: String, form: [(String, String)]? = nil, rawForm: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        if let body = rawForm
            ?? form?.map({ "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }).joined(separator: "&")
        {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await browser.execute(request, timeout: .seconds(30))
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Answer(
            status: Int(response.status.code), headers: headers, body: Data(buffer: try await response.body.collect(upTo: 16 << 20)))
    }

    @Test func aTeacherAssignsACatalogContextAndTheAppsAndTheCoursesWorkReportToIt() async throws {
        let room = try await SyncTests.Classroom()
        let image = try await Self.publishCatalog(room.school)
        let classes = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { try await $0.classes() }
        let sevenB = try #require(classes.first { $0.name == "7B" })
        let token = try await DeviceToken.make(
            key: try room.teacher.identity(.teacher).signingKey, audience: room.server.origin, lifetime: 30 * 60)
        let pages = room.server.url.absoluteString + "/classes/\(sevenB.id.uuidString.lowercased())"
        let catalog = pages + "/catalog?token=\(token)"

        // The class page leads to the catalog; the catalog lists the publishers of production catalogs.
        let classPage = try await Self.call(pages + "/?token=\(token)")
        #expect(classPage.text.contains("id=\"catalog\" href=\"/classes/\(sevenB.id.uuidString.lowercased())/catalog?token="))
        let top = try await Self.call(catalog)
        #expect(top.status == 200 && top.text.contains(">acme</a></li>"), "\(top.text)")
        #expect(
            top.headers["content-security-policy"]?.contains("img-src 'self'") == true
                && top.headers["content-security-policy"]?.contains("form-action 'self'") == true
                && top.headers["content-security-policy"]?.contains("script-src") == false)
        #expect(!top.text.contains("http-equiv=\"refresh\""), "a page with a form never reloads itself")

        // The book is a container: shown, marked, with no form. The draft is development's only.
        let books = try await Self.call(catalog + "&team=acme")
        #expect(books.text.contains("<tr data-path=\"fun-with-science\" class=\"container\">"), "\(books.text)")
        #expect(books.text.contains("Container: not assignable") && !books.text.contains("name=\"title\""))
        #expect(books.text.contains("(1 below)") && !books.text.contains("Secret draft"))

        // The chapter: thumbnail, summary, age, time and the progress it reports, and a form.
        let chapters = try await Self.call(catalog + "&team=acme&path=fun-with-science")
        let row = try #require(chapters.text.components(separatedBy: "<tr data-path=\"fun-with-science/measurements\"").dropFirst().first)
        #expect(row.hasPrefix(" class=\"assignable\">") && row.contains("Units of length, mass and time.") && row.contains("(2 below)"))
        #expect(row.contains("Age 9–11 years") && row.contains("Time 15–20 min") && row.contains(">chapter</span>"))
        #expect(
            row.contains("<span class=\"capability\">percent</span> <span class=\"meta\">(Share of the quiz done)</span>")
                && row.contains("<br><span class=\"capability\">score</span>") && !row.contains("&lt;"))
        #expect(row.contains("<form method=\"post\" action=\"/classes/\(sevenB.id.uuidString.lowercased())/catalog/assignments?token="))
        let thumbnailAddress = try #require(row.components(separatedBy: "src=\"").dropFirst().first?.components(separatedBy: "\"").first)
        let thumbnail = try await Self.call(room.server.url.absoluteString + thumbnailAddress.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(thumbnail.status == 200 && thumbnail.body == image && thumbnail.headers["content-type"] == "image/png")

        // Refused: the container, a missing context, a bad day; then assigned, once.
        let assign = pages + "/catalog/assignments?token=\(token)"
        let container = try await Self.call(assign, form: [("team", "acme"), ("path", "fun-with-science"), ("title", "All of it")])
        #expect(
            container.status == 400 && container.text.contains("is not assignable: its publisher marked it as a container"),
            "\(container.text)")
        let missing = try await Self.call(assign, form: [("team", "acme"), ("path", "nowhere"), ("title", "Nothing")])
        #expect(missing.status == 404 && missing.text.contains("has no context nowhere"))
        let badDay = try await Self.call(
            assign,
            form: [
                ("team", "acme"), ("path", "fun-with-science"), ("path", "measurements"),
                ("title", "Measuring things"), ("due", "next week")
            ])
        #expect(badDay.status == 400 && badDay.text.contains("the due day is YYYY-MM-DD"))
        let form = [
            ("team", "acme"), ("path", "fun-with-science"), ("path", "measurements"), ("title", "Measuring things"),
            ("due", "2030-06-30")
        ]
        let made = try await Self.call(assign, form: form)
        #expect(made.status == 303, "\(made.text)")
        let location = try #require(made.headers["location"])
        #expect(location.contains("team=acme&path=fun-with-science&token=") && location.contains("&assigned="))
        let after = try await Self.call(room.server.url.absoluteString + location)
        #expect(after.text.contains("Assigned ‘Measuring things’ to the class: students receive it at their next sync."), "\(after.text)")
        #expect(after.text.contains("<span class=\"badge done\">Assigned</span> <span class=\"meta\">as Measuring things</span>"))
        #expect(after.text.contains("<table id=\"assigned\">"))
        let again = try await Self.call(assign, form: form)
        #expect(again.status == 409 && again.text.contains("is assigned to this class already"))
        let nested = try await Self.call(
            assign,
            form: [
                ("team", "acme"), ("path", "fun-with-science"), ("path", "measurements"),
                ("path", "notes"), ("title", "Notes")
            ])
        #expect(nested.status == 409 && nested.text.contains("or a context above or below it is (as ‘Measuring things’)"), "\(nested.text)")
        let farDay = try await Self.call(
            assign,
            form: [
                ("team", "acme"), ("path", "fun-with-science"), ("path", "measurements"),
                ("title", "Later"), ("due", "2150-01-01")
            ])
        #expect(farDay.status == 400 && farDay.text.contains("is not between 2000 and 2100"))
        // A body that is not percent-encoding is refused, and the server goes on.
        let garbled = try await Self.call(assign, rawForm: "team=acme&path=%zz&title=\"[é|")
        #expect(garbled.status == 404 && garbled.text.contains("has no context %zz"), "\(garbled.text)")
        #expect(try await Self.call(catalog).status == 200)

        // Students: a student's key reads no catalog page; the class's students receive the assignment.
        let (ada, _) = try room.student("ada", fullName: "Ada Lovelace")
        try ada.clsfile("accept", ada.home.appendingPathComponent("work/essay.md.clshandout").path)
        let joined = try ada.clsfile("join", room.server.url.absoluteString, "--code", room.code)
        #expect(
            joined.output.contains(
                "received 'Measuring things' (class 7B, context fun-with-science/measurements, due 2030-06-30): no work recorded under it yet"
            ), "\(joined.output)")
        let adaToken = try await DeviceToken.make(key: try ada.identity(.student).signingKey, audience: room.server.origin, lifetime: 60)
        #expect(try await Self.call(pages + "/catalog?token=\(adaToken)").status == 403)

        // Ada's work: the sample quiz app, and the course's notes in an editor.
        let sample = try builtExecutable("ContextSample")
        let quiz = try run(sample, ["--answers", "1,0,1"], environment: ada.environment)
        #expect(quiz.status == 0, "\(quiz.errorOutput)")
        let work = ada.home.appendingPathComponent("course")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try Data("# Notes\n".utf8).write(to: work.appendingPathComponent("notes.md"))
        try Data(
            """
            {"contexts": [{"data": {"identifierPath": ["fun-with-science"], "title": "Fun with Science", "type": "book"}},
                          {"data": {"identifierPath": ["fun-with-science", "measurements"], "title": "Measurements", "type": "chapter"}},
                          {"data": {"identifierPath": ["fun-with-science", "measurements", "notes"], "title": "Notes", "type": "document"},
                           "document": "notes.md"}]}
            """.utf8
        ).write(to: work.appendingPathComponent("course.json"))
        try ada.clsfile("contexts", "import", work.appendingPathComponent("course.json").path)
        try ada.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo A metre is one hundred centimetres. >> \\\"$0\\\"\"",
            work.appendingPathComponent("notes.md").path)
        let synced = try ada.clsfile("sync")
        #expect(!synced.output.contains("received"), "an assignment is received once: \(synced.output)")

        var report = try await room.report()
        let quizWork = try #require(
            report.assignments.first { $0.title == "Measuring things: Measurements Quiz" }, "\(report.assignments.map(\.title))")
        #expect(quizWork.documentName == "measurements-quiz" && quizWork.contextPath == ["fun-with-science", "measurements"])
        #expect(quizWork.dueDate != nil && quizWork.className == "7B")
        let adasQuiz = try #require(quizWork.students.first?.work)
        #expect(adasQuiz.primaryItem?.value == 2 && adasQuiz.primaryItem?.maxScore == 3 && adasQuiz.progress == 1)
        #expect(adasQuiz.isDone && adasQuiz.activeSeconds > 0)
        let notes = try #require(report.assignments.first { $0.title == "Measuring things: Notes" })
        #expect(
            notes.documentName == "notes.md" && notes.students.first?.work.primaryItem?.value == 7,
            "\(String(describing: notes.students.first?.work))")
        #expect(report.assignments.contains { $0.title == "Essay on rivers" }, "the handout's work goes on as before")
        let assigned = try #require(report.contexts.first { $0.identifierPath == ["fun-with-science", "measurements"] })
        #expect(assigned.title == "Measurements" && Set(assigned.assignmentIdentifiers) == Set([quizWork.identifier, notes.identifier]))

        // Another student's quiz reports to the same assignment.
        let (grace, _) = try room.student("grace", fullName: "Grace Hopper")
        try grace.clsfile("join", room.server.url.absoluteString, "--code", room.code)
        #expect(try run(sample, ["--answers", "1,1,1"], environment: grace.environment).status == 0)
        try grace.clsfile("sync")
        report = try await room.report()
        let both = try #require(report.assignments.first { $0.identifier == quizWork.identifier })
        #expect(both.students.map(\.studentName) == ["Ada Lovelace", "Grace Hopper"])
        #expect(both.students.compactMap(\.work.primaryItem?.value) == [2, 3])

        // The class's assignments: its students and teacher read them, no one else.
        let client = try SyncClient(serverURL: room.server.url, key: try grace.identity(.student).signingKey)
        let offered = try await client.assignments(ofClass: sevenB.id)
        #expect(offered.map(\.title) == ["Measuring things"] && offered.first?.identifierPath == ["fun-with-science", "measurements"])
        #expect(
            offered.first?.contexts.map(\.data.identifierPath) == [
                ["fun-with-science"], ["fun-with-science", "measurements"],
                ["fun-with-science", "measurements", "measurements-quiz"],
                ["fun-with-science", "measurements", "notes"]
            ])
        let (_, poetryCode, _) = try SyncTests.Classroom.addTeacher(
            "okafor", name: "Mr Okafor", className: "8C", handing: "poem.md", text: "# Spring\n", title: "A poem",
            school: room.school, in: room.scratch)
        let (linus, _) = try room.student("linus", fullName: "Linus Torvalds")
        try linus.clsfile("join", room.server.url.absoluteString, "--code", poetryCode)
        let stranger = try SyncClient(serverURL: room.server.url, key: try linus.identity(.student).signingKey)
        await #expect(throws: SyncError.self) { _ = try await stranger.assignments(ofClass: sevenB.id) }
        let okafor = try await DeviceToken.make(
            key: try #require(try SyncTests.User("okafor", in: room.scratch).identity(.teacher)).signingKey, audience: room.server.origin,
            lifetime: 60)
        let foreign = try await Self.call(assign.replacingOccurrences(of: token, with: okafor), form: form)
        #expect(foreign.status == 404 && foreign.text.contains("you teach no class"), "\(foreign.text)")
    }
}
