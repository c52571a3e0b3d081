@testable import ClassServer
import ClassWire
import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// The class server's pages — the class, an assignment, a student, the catalog a level at a time,
/// a refused form, a page that is not there, and an LTI refusal — pass axe-core's WCAG 2.1 AA
/// rules in Chromium and work with the keyboard alone: real `clsfile-server`, real PostgreSQL.
@Suite(.serialized)
struct AccessibilityTests {
    @Test func theClassServersPagesPassAxeAndTheKeyboard() async throws {
        let room = try await SyncTests.Classroom()
        _ = try await CatalogAssignmentTests.publishCatalog(room.school)
        let (ada, essay) = try room.joinedStudent("ada", fullName: "Ada Lovelace")
        try await SyncTests.Saver(ada, essay: essay).save(4, steps: 10)
        try ada.clsfile("sync")
        let report = try await room.report()
        let assignment = try #require(report.assignments.first)
        let student = try #require(assignment.students.first, "Ada's work reached the class")

        let classes = try await ServerDatabase.withDatabase(room.school.owner, logger: .tests) { try await $0.classes() }
        let sevenB = try #require(classes.first { $0.name == "7B" })
        let token = try await DeviceToken.make(
            key: try room.teacher.identity(.teacher).signingKey, audience: room.server.origin, lifetime: 30 * 60)
        let server = room.server.url.absoluteString
        let pages = server + "/classes/\(sevenB.id.uuidString.lowercased())"
        let catalog = pages + "/catalog?token=\(token)"
        let reportPages = [
            pages + "/?token=\(token)",
            pages + "/assignments/\(assignment.identifier)?token=\(token)",
            pages + "/assignments/\(assignment.identifier)/students/\(student.studentIdentifier)?token=\(token)",
            pages + "/assignments/no-such-assignment?token=\(token)"
        ]

        // A form's refusal is the answer to a post: kept as a file, as the browser shows it.
        let refused = try await CatalogAssignmentTests.call(
            pages + "/catalog/assignments?token=\(token)", form: [("team", "acme"), ("path", "fun-with-science"), ("title", "All of it")])
        #expect(refused.status == 400 && refused.text.contains("is not assignable"), "\(refused.text)")
        let refusal = room.scratch.url.appendingPathComponent("catalog-refusal.html")
        try refused.body.write(to: refusal)
        let otherPages = [
            catalog, catalog + "&team=acme", catalog + "&team=acme&path=fun-with-science", refusal.absoluteString,
            server + "/lti/login?iss=a&iss=b&login_hint=1&target_link_uri=\(server)/lti/launch"
        ]

        let checked = try await AxeCheck.check(reportPages + otherPages, in: room.scratch.url)
        // Every page, the report pages as a teacher first sees them: reloading only when asked
        // (`&reload=on`, which axe's meta-refresh rule would flag, as WCAG 2.2.1 allows a reload
        // its reader turned on).
        for page in checked {
            #expect(page.passes, "\(page.report)")
        }
    }
}
