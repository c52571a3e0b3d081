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
        let store = self.store, token = self.token
        DashboardPages(source: .teachersStore).add(to: router, under: "") { request, _ in
            let report: ClassReport
            do {
                report = try await ClassReport(store: store)
            } catch {
                let message = (error as? CLSError)?.message ?? (error as? ClassroomError)?.message ?? "\(error)"
                throw DashboardPages.PageFailure(title: "The store cannot be read", message: message)
            }
            return DashboardPages.Context(report: report, base: "", linkToken: Links(request: request, token: token).token)
        }
    }
}
