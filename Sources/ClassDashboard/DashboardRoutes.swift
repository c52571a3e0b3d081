import Classroom
import Foundation
import Hummingbird
import OpenClassKit

/// The dashboard's pages, each built from the store as it is at the moment of the request.
struct DashboardRoutes: Sendable {
    let store: CLSDataStore
    let token: AccessToken?

    /// Adds the pages to a router, behind the access check.
    func add<Context: RequestContext>(to router: Router<Context>) {
        router.add(middleware: PageMiddleware(token: token))
        router.add(middleware: AccessMiddleware(token: token))
        router.get("/") { request, _ in
            try await respond(to: request) { report, links in
                PageResponse.html(ClassPage(report: report, links: links).render())
            }
        }
        router.get("/assignments/:assignment") { request, context in
            let identifier = Self.parameter("assignment", of: context)
            return try await respond(to: request) { report, links in
                guard let assignment = report.assignments.first(where: { $0.identifier == identifier }) else {
                    return PageResponse.notFound(links: links, what: "There is no assignment with this identifier in the teacher's store.")
                }
                return PageResponse.html(AssignmentPage(assignment: assignment, links: links).render())
            }
        }
        router.get("/assignments/:assignment/students/:student") { request, context in
            let identifier = Self.parameter("assignment", of: context), studentIdentifier = Self.parameter("student", of: context)
            return try await respond(to: request) { report, links in
                guard let assignment = report.assignments.first(where: { $0.identifier == identifier }) else {
                    return PageResponse.notFound(links: links, what: "There is no assignment with this identifier in the teacher's store.")
                }
                guard let student = assignment.students.first(where: { $0.studentIdentifier == studentIdentifier }) else {
                    return PageResponse.notFound(links: links, what: "No work from this student was collected for \(assignment.title).")
                }
                return PageResponse.html(StudentPage(assignment: assignment, student: student, links: links).render())
            }
        }
        router.get("/api/class-report.json") { request, _ in
            try await respond(to: request) { report, _ in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                return PageResponse.json(try encoder.encode(report))
            }
        }
    }

    /// Reads the class report afresh and makes the response from it.
    private func respond(to request: Request,
                         _ body: (ClassReport, Links) throws -> Response) async throws -> Response {
        let links = Links(request: request, token: token)
        let report: ClassReport
        do {
            report = try await ClassReport(store: store)
        } catch {
            let message = (error as? CLSError)?.message ?? (error as? ClassroomError)?.message ?? "\(error)"
            return PageResponse.html(MessagePage(title: "The store cannot be read", message: message, links: links).render(),
                                     status: .internalServerError)
        }
        return try body(report, links)
    }

    /// A path parameter, percent-decoded.
    private static func parameter<Context: RequestContext>(_ name: String, of context: Context) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
