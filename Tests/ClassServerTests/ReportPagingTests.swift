@testable import ClassServer
import AsyncHTTPClient
import ClassWire
import Classroom
import ClassSync
import Crypto
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import OpenClassKit
import Testing
import TestSupport

/// `GET /api/class-report.json` and `GET /api/xapi.json` answer a page of students at a time, with
/// a link to the next page, on a real `clsfile-server serve` and PostgreSQL: following the links
/// gives every student once, a page's summaries are the class's, and the client puts the pages
/// together into the whole report.
@Suite(.serialized)
struct ReportPagingTests {
    /// A teacher's class on a running server, students joined and syncing straight to its database.
    struct Room {
        let school: ServerDatabaseTests.School
        let scratch: Scratch
        let teacherKey = P256.Signing.PrivateKey()
        let teacher: UUID
        let schoolClass: SchoolClass
        let server: SyncTests.RunningServer

        init() async throws {
            school = try await ServerDatabaseTests.School()
            scratch = try Scratch()
            let key = teacherKey.publicKey
            (teacher, schoolClass) = try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
                let teacher = try await database.addTeacher(
                    name: "Ms Rivera", publicKey: key, recipientKey: P256.KeyAgreement.PrivateKey().publicKey)
                return (teacher.id, try await database.createClass(name: "7B", teacher: teacher.id.uuidString))
            }
            let handouts = [("essay", "Essay on rivers"), ("poem", "A poem")].map {
                SyncWire.HandoutRequest.Handout(
                    identifier: $0.0, assignment: .init(title: $0.1, className: "7B", documentName: "\($0.0).md"))
            }
            let (classID, teacher) = (schoolClass.id, self.teacher)
            _ = try await ServerDatabase.withDatabase(school.app, logger: .tests) {
                try await $0.registerHandouts(handouts, inClass: classID, as: teacher)
            }
            server = try await SyncTests.RunningServer(school, in: scratch.url)
        }

        var classID: UUID { schoolClass.id }

        /// Students who join and sync work on the essay (the even-numbered ones on the poem too),
        /// each a different time and progress; their account ids.
        func join(_ count: Int, from first: Int = 0) async throws -> [String] {
            let code = schoolClass.joinCode, classID = schoolClass.id
            return try await ServerDatabase.withDatabase(school.app, logger: .tests) { database in
                var joined: [String] = []
                for number in first..<first + count {
                    let student = try await database.joinClass(
                        code: code, studentName: "Student \(number)",
                        publicKey: P256.Signing.PrivateKey().publicKey
                    ).accountID
                    let now = Date().timeIntervalSince1970
                    let operations = (number.isMultiple(of: 2) ? ["essay", "poem"] : ["essay"]).map { assignment in
                        var operation = SyncOperation(
                            assignmentIdentifier: assignment, attempt: 0, madeAt: now - 60,
                            assignment: .init(title: assignment, documentName: "\(assignment).md"))
                        operation.spans = [
                            .init(
                                id: UUID().uuidString, start: now - 600, end: now - 600 + Double(10 * (number + 1)),
                                lastPulse: now - 600 + Double(10 * (number + 1)))
                        ]
                        operation.ranges = [.init(lower: 0, upper: Double(number % 10 + 1) / 10)]
                        return operation
                    }
                    _ = try await database.apply(operations, toClass: classID, as: student)
                    joined.append(student.uuidString.lowercased())
                }
                return joined
            }
        }

        /// An answer of the server to the teacher's signed GET, with its `Link` header.
        func get(_ path: String) async throws -> (status: Int, body: Data, link: String?) {
            var request = HTTPClientRequest(url: server.url.absoluteString + path)
            let token = try await DeviceToken.make(key: teacherKey, audience: server.origin)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            return (
                Int(response.status.code), Data(buffer: try await response.body.collect(upTo: 64 << 20)),
                response.headers.first(name: "Link")
            )
        }

        /// The whole report, as the archive and the teacher's pages read it.
        func wholeReport() async throws -> ClassReport {
            let (classID, teacher) = (schoolClass.id, self.teacher)
            return try await ServerDatabase.withDatabase(school.app, logger: .tests) { try await $0.classReport(classID, as: teacher) }
        }
    }

    /// A page of `class-report.json`.
    struct Page: Decodable {
        var assignments: [ClassReport.AssignmentSummary]
        var contexts: [ClassReport.ContextSummary]
        var next: String?

        /// The account ids of the students with rows on the page.
        var students: Set<String> { Set(assignments.flatMap { $0.students.map(\.studentIdentifier) }) }
    }

    /// The account ids whose statements an xAPI page holds.
    static func actors(of statements: Data) throws -> Set<String> {
        let array = try #require(try JSONSerialization.jsonObject(with: statements) as? [[String: Any]])
        return Set(array.compactMap { (($0["actor"] as? [String: Any])?["account"] as? [String: Any])?["name"] as? String })
    }

    /// Summaries without their rows, which differ from page to page while the figures must not.
    static func figures(_ assignments: [ClassReport.AssignmentSummary]) -> [ClassReport.AssignmentSummary] {
        assignments.map {
            var summary = $0
            summary.students = []
            return summary
        }
    }

    @Test func followingTheNextLinksGivesEveryStudentOnceWhileAnotherJoins() async throws {
        let room = try await Room()
        let students = try await room.join(7)
        let whole = try await room.wholeReport()
        var path = "/api/class-report.json?class=\(room.classID.uuidString)&limit=3"
        var pages: [Set<String>] = []
        var joiner: (id: String, after: String)?
        while true {
            let answer = try await room.get(path)
            try #require(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            let page = try ClassReport.jsonDecoder().decode(Page.self, from: answer.body)
            #expect(page.students.count <= 3, "a page of limit=3 held \(page.students.count) students")
            #expect(answer.link == page.next.map { "<\($0)>; rel=\"next\"" }, "the Link header is the JSON's next")
            if joiner == nil {
                // The class's figures on a page of its students: both assignments, each with every student counted.
                #expect(Self.figures(page.assignments) == Self.figures(whole.assignments))
                #expect(page.contexts == whole.contexts)
                #expect(page.assignments.first { $0.identifier == "essay" }?.studentCount == 7)
            }
            pages.append(page.students)
            guard let next = page.next else { break }
            let last = try #require(page.students.max())
            #expect(next == "/api/class-report.json?class=\(room.classID.uuidString.lowercased())&after=\(last)&limit=3")
            if joiner == nil {
                joiner = (try #require(try await room.join(1, from: 7).first), last)
            }
            path = next
        }
        let walked = pages.flatMap { $0 }
        #expect(walked.count == Set(walked).count, "a student was on two pages: \(pages)")
        let joined = try #require(joiner)
        // The student who joined is on a later page when their id sorts after the page read then.
        let expected = Set(students).union(joined.id > joined.after ? [joined.id] : [])
        #expect(Set(walked) == expected, "missing \(expected.subtracting(walked)), extra \(Set(walked).subtracting(expected))")
        #expect(pages.dropLast().allSatisfy { $0.count == 3 }, "\(pages.map(\.count))")

        // xAPI: the statements of a page's students, the next page in the Link header.
        var xapiPath: String? = "/api/xapi.json?class=\(room.classID.uuidString)&limit=3&homePage=https://school.example/a%26b"
        var actors: [Set<String>] = []
        while let path = xapiPath {
            let answer = try await room.get(path)
            try #require(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(XAPIValidator.problems(inExport: answer.body).isEmpty)
            actors.append(try Self.actors(of: answer.body))
            #expect(actors.last?.count ?? 0 <= 3)
            xapiPath = try answer.link.map { link in
                #expect(
                    link.hasPrefix("</api/xapi.json?class=")
                        && link.hasSuffix("&limit=3&homePage=https://school.example/a%26b>; rel=\"next\""), "\(link)")
                return String(try #require(link.split(separator: ">").first).dropFirst())
            }
        }
        let everyone = Set(students + [joined.id])
        #expect(actors.flatMap { $0 }.count == everyone.count && Set(actors.flatMap { $0 }) == everyone, "\(actors)")
    }

    @Test func theDefaultPageIsBoundedAndTheClientPutsThePagesTogether() async throws {
        let room = try await Room()
        let students = try await room.join(SyncWire.reportStudentsPerPage + 1)
        let first = try await room.get("/api/class-report.json?class=\(room.classID.uuidString)")
        try #require(first.status == 200)
        let page = try ClassReport.jsonDecoder().decode(Page.self, from: first.body)
        #expect(page.students.count == SyncWire.reportStudentsPerPage)
        #expect(
            page.next == "/api/class-report.json?class=\(room.classID.uuidString.lowercased())&after=\(try #require(page.students.max()))")
        let xapi = try await room.get("/api/xapi.json?class=\(room.classID.uuidString)")
        #expect(try Self.actors(of: xapi.body).count == SyncWire.reportStudentsPerPage)
        #expect(xapi.link?.hasPrefix("</api/xapi.json?class=") == true)

        // What `clsfile class-report --server` prints: every page put together, the whole report.
        let client = try SyncClient(serverURL: room.server.url, key: room.teacherKey)
        let fetched = try await client.classReport(classID: room.classID)
        let whole = try ClassReport.jsonDecoder().decode(ClassReport.self, from: fetched)
        #expect(Set(whole.assignments.flatMap { $0.students.map(\.studentIdentifier) }) == Set(students))
        #expect(whole.assignments.first { $0.identifier == "essay" }?.students.count == students.count)
        #expect(
            fetched == (try ClassReport.jsonEncoder().encode(try await room.wholeReport())),
            "the pages put together are not the whole report")
    }

    @Test func aBadCursorOrLimitIsRefusedNamingIt() async throws {
        let room = try await Room()
        _ = try await room.join(2)
        for route in ["/api/class-report.json", "/api/xapi.json"] {
            let base = "\(route)?class=\(room.classID.uuidString)"
            for (query, text) in [
                ("&limit=0", "limit is a number of students from 1 to 1000, not 0"),
                ("&limit=1001", "limit is a number of students from 1 to 1000, not 1001"),
                ("&limit=ten", "limit is a number of students from 1 to 1000, not ten"),
                ("&after=Student%201", "after is a student's account id, as the next link of the page before gives it, not Student 1")
            ] {
                let answer = try await room.get(base + query)
                let error = try? SyncWire.decoder.decode(SyncWire.ErrorAnswer.self, from: answer.body)
                #expect(answer.status == 400 && error?.code == "invalidValue", "\(base + query): \(answer.status)")
                #expect(error?.message == text, "\(error?.message ?? String(decoding: answer.body, as: UTF8.self))")
            }
            // A cursor past every student is the last page: no rows, no next one.
            let past = try await room.get(base + "&after=ffffffff-ffff-4fff-bfff-ffffffffffff&limit=1")
            #expect(past.status == 200 && past.link == nil)
            if route.hasPrefix("/api/class-report") {
                let page = try ClassReport.jsonDecoder().decode(Page.self, from: past.body)
                #expect(page.students.isEmpty && page.next == nil && page.assignments.first { $0.identifier == "essay" }?.studentCount == 2)
            } else {
                #expect(try Self.actors(of: past.body).isEmpty)
            }
        }
    }
}
