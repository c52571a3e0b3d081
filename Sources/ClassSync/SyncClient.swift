public import AsyncHTTPClient
internal import Classroom
import ClassWire
public import Crypto
import Foundation
public import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1
import OpenClassKit

/// A student's side of the class server: joining a class, and sending the outbox of a store.
///
/// ```swift
/// let client = SyncClient(serverURL: URL(string: "https://class.example.org")!, key: identity.signingKey)
/// let joined = try await client.join(code: "K7QX2MPR4T", name: "Ada")
/// try await store.joinClassServer(ClassServerMembership(serverURL: client.serverURL, accountID: joined.accountID,
///                                                       classID: joined.classID, className: joined.className,
///                                                       teacherKey: joined.teacherKey))
/// let sent = try await client.sendOutbox(of: store)
/// ```
public struct SyncClient: Sendable {
    /// The server, such as `https://class.example.org`.
    public let serverURL: URL
    /// The server's origin, which every token this client makes names as its audience.
    public let origin: ServerOrigin
    /// The device's key, which signs every request's token.
    public let key: P256.Signing.PrivateKey
    /// The id of ``key`` (its tokens' `kid`), which each request also names in ``SyncWire/keyHeader``.
    private let keyIdentifier: String
    /// How long one request may take.
    public var timeout: TimeAmount = .seconds(30)
    private let http: HTTPClient

    /// A client of a server.
    /// - Throws: ``SyncError`` `.invalidValue` for an address that is not http(s) with a host.
    public init(serverURL: URL, key: P256.Signing.PrivateKey, http: HTTPClient = SyncClient.sharedHTTP) throws {
        self.serverURL = try Self.serverURL(serverURL.absoluteString)
        do {
            origin = try ServerOrigin(self.serverURL)
        } catch let error as WireError {
            throw SyncError(.invalidValue, error.message, underlyingError: error)
        }
        self.key = key
        keyIdentifier = Identity.keyIdentifier(of: key.publicKey.x963Representation)
        self.http = http
    }

    /// A class server's address as a person gives it.
    /// - Throws: ``SyncError`` `.invalidValue` for an address that is not http(s) with a host.
    public static func serverURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw SyncError(
                .invalidValue, "'\(text)' is not a class server's address: give it as https://HOST[:PORT], as your teacher wrote it")
        }
        return url
    }

    /// The HTTP client of every sync unless told otherwise: a connection that cannot be made is
    /// tried again for 5 seconds, then the request fails, so that a student offline waits 5
    /// seconds, not the whole request timeout. An idle connection is closed after 10 seconds,
    /// before the server closes it (after 30 by default), so that a request is not sent on a
    /// connection the server is closing.
    public static let sharedHTTP: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(60))
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(10))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Joins a class with its code, registering this device's key.
    public func join(code: String, name: String) async throws -> SyncWire.JoinAnswer {
        let body = SyncWire.JoinRequest(code: code, name: name, publicKey: key.publicKey.x963Representation)
        return try await exchange(.POST, "v1/join", body: body, answer: SyncWire.JoinAnswer.self)
    }

    /// Ties this device's key to the LMS person an LTI launch gave `token` to: a student joins
    /// their course's class; a teacher gives `recipientKey`, which their handouts carry.
    public func link(token: String, recipientKey: Data?) async throws -> SyncWire.LinkAnswer {
        let body = SyncWire.LinkRequest(token: token, publicKey: key.publicKey.x963Representation, recipientKey: recipientKey)
        return try await exchange(.POST, "v1/lti/link", body: body, answer: SyncWire.LinkAnswer.self)
    }

    /// Sends operations; the server answers once all of them are applied (or were before).
    package func send(_ operations: [SyncOperation], classID: UUID) async throws -> SyncWire.SyncAnswer {
        try await exchange(
            .POST, "v1/sync", body: SyncWire.SyncRequest(classID: classID, operations: operations),
            answer: SyncWire.SyncAnswer.self)
    }

    /// The classes the caller teaches or joined.
    public func classes() async throws -> [SyncWire.ClassEntry] {
        try await exchange(.GET, "v1/classes", body: Optional<String>.none, answer: [SyncWire.ClassEntry].self)
    }

    /// The assignments a class's teacher made from the catalog.
    public func assignments(ofClass classID: UUID) async throws -> [SyncWire.ClassAssignment] {
        try await exchange(
            .GET, "v1/classes/\(classID.uuidString.lowercased())/assignments", body: Optional<String>.none,
            answer: [SyncWire.ClassAssignment].self)
    }

    /// Registers the assignments of a teacher's handouts with a class they teach (a teacher's
    /// request), in batches; students' work reaches the class only on assignments it has.
    /// - Returns: How many handouts the class has registered now.
    public func registerHandouts(_ handouts: [SyncWire.HandoutRequest.Handout], inClass classID: UUID) async throws -> Int {
        var registered = 0
        for start in stride(from: 0, to: handouts.count, by: SyncWire.maximumHandouts) {
            let batch = Array(handouts[start..<min(handouts.count, start + SyncWire.maximumHandouts)])
            registered = try await exchange(
                .POST, "v1/classes/\(classID.uuidString.lowercased())/handouts",
                body: SyncWire.HandoutRequest(handouts: batch), answer: SyncWire.HandoutAnswer.self
            ).registered
        }
        return registered
    }

    /// What one ``receiveAssignments(into:)`` did.
    public struct Received: Sendable {
        /// The assignments accepted now, each with the number of contexts whose work reports to it.
        public var accepted: [(assignment: Assignment, contexts: Int)] = []
        /// The assignments that could not be taken, each with why; the others were.
        public var problems: [String] = []
    }

    /// Takes the assignments the teachers of the classes joined made from the catalog that the
    /// store does not hold yet: imports each one's contexts and accepts it, so that the work of
    /// every activity at or below its context reports to it and is sent to its class. A class
    /// joined before classes were tied to their teacher gets none (join it again).
    public func receiveAssignments(into store: CLSDataStore) async throws -> Received {
        var received = Received()
        let held = Set(try await store.assignments().map(\.identifier))
        for membership in try await store.classServerMemberships() where membership.serverURL == serverURL {
            guard let teacherKey = membership.teacherKey else { continue }
            let offers: [SyncWire.ClassAssignment]
            do {
                offers = try await assignments(ofClass: membership.classID)
            } catch let error as SyncError where error.code == .refused {
                // The class refuses the student (removed from it), or the server has no catalog:
                // the other classes' assignments come, and the work is sent all the same.
                received.problems.append("the assignments of the class \(membership.className) were not received: \(error.message)")
                continue
            }
            for offered in offers where !held.contains(offered.id.uuidString.lowercased()) {
                let path = offered.identifierPath
                guard !path.isEmpty, path.count < CLSContext.maximumDepth,
                    path.allSatisfy({ !$0.isEmpty && $0.count <= CLSContext.maximumIdentifierLength })
                else {
                    received.problems.append(
                        "'\(offered.title)' of the class \(membership.className) names a context this store cannot hold (\(path.count) levels); it was not taken"
                    )
                    continue
                }
                let assignment = Assignment(
                    identifier: offered.id.uuidString.lowercased(), title: offered.title, className: membership.className,
                    dueDate: offered.dueDate, instructions: offered.instructions,
                    documentName: path[path.count - 1], documentDigest: "", teacherKey: teacherKey,
                    createdAt: offered.createdAt, contextPath: path, coversContextTree: true, classIdentifier: membership.classID)
                do {
                    received.accepted.append((assignment, try await store.acceptContextTreeAssignment(assignment)))
                } catch let error as CLSError where error.code != .databaseInaccessible {
                    received.problems.append("'\(offered.title)' of the class \(membership.className) was not taken: \(error.message)")
                    continue
                }
                // The contexts' titles and metadata, from the server: only the assigned context's
                // ancestors, itself and its descendants, and never a file of the student's.
                let entries = offered.contexts.prefix(10_000).filter {
                    let other = $0.data.identifierPath
                    return other.starts(with: path) || path.starts(with: other)
                }.map { CourseManifest.Entry(data: $0.data, metadata: $0.metadata) }
                do {
                    _ = try await store.importContexts(CourseManifest(contexts: Array(entries)))
                } catch let error as CLSError where error.code != .databaseInaccessible {
                    received.problems.append(
                        "'\(offered.title)' of the class \(membership.className) was taken, but its contexts' titles were not (\(error.message)); the work under it reports to it all the same"
                    )
                }
            }
        }
        return received
    }

    /// A class's whole report as JSON (a teacher's request), as `GET /api/class-report.json`
    /// gives it a page of students at a time: the next pages are followed and put together
    /// (`init(mergingPages:)`). A class of one page is that page's bytes.
    /// - Throws: ``SyncError`` as a request does; `.unreachable` when a page is not a report or
    ///   links to something other than a next page of it.
    public func classReport(classID: UUID) async throws -> Data {
        let route = "/api/class-report.json?"
        var path = "\(route)class=\(classID.uuidString)", visited: Set<String> = []
        var pages: [Data] = []
        while true {
            let data = try await request(.GET, String(path.dropFirst()), body: nil)
            pages.append(data)
            let next: String?
            do {
                next = try SyncWire.decoder.decode(ReportPageLink.self, from: data).next
            } catch {
                throw SyncError(
                    .unreachable,
                    "\(serverURL.absoluteString) answered \(route.dropLast()) with something that is not a class report (\(error)); check the address"
                )
            }
            guard let next else { break }
            // Only the next page of this report, and each once: no answer sends the token elsewhere or in circles.
            guard next.hasPrefix(route), visited.insert(next).inserted else {
                throw SyncError(
                    .unreachable,
                    "\(serverURL.absoluteString) linked the report to \(next.prefix(200)), which is not a next page of it; check that clsfile and the server are of the same version"
                )
            }
            path = next
        }
        guard pages.count > 1 else { return pages[0] }
        do {
            let decoder = ClassReport.jsonDecoder()
            return try ClassReport.jsonEncoder().encode(
                ClassReport(mergingPages: try pages.map { try decoder.decode(ClassReport.self, from: $0) }))
        } catch {
            throw SyncError(
                .unreachable,
                "\(serverURL.absoluteString) answered a page of the class report that cannot be read (\(error)); check that clsfile and the server are of the same version"
            )
        }
    }

    /// What a page of `GET /api/class-report.json` says of the next one.
    private struct ReportPageLink: Decodable {
        /// The address of the next page, from the server's root; nil on the last.
        var next: String?
    }

    /// What one ``sendOutbox(of:batchSize:progress:)`` did.
    public struct Outcome: Sendable, Equatable {
        /// Operations the server acknowledged.
        public var sent = 0
        /// Of those, how many it had applied before (a retry).
        public var repeated = 0
        /// Requests made.
        public var batches = 0
        /// Operations the server refused for their values, set aside (`refusedSyncOperations()`).
        public var refused = 0
    }

    /// Sends everything in a store's outbox, in batches, oldest first, each to the class it was
    /// queued for, removing each batch once the server acknowledged it. An operation the server
    /// refuses for its values is set aside with the server's reason, so that the rest can go.
    /// Any other failure leaves the rest in the outbox (and is noted for `clsfile status`);
    /// sending again later picks up where it stopped, and the server ignores what it applied already.
    /// - Parameters:
    ///   - store: The store whose outbox is sent.
    ///   - batchSize: The most operations a request carries.
    ///   - progress: Called after each batch with the operations sent so far and the number
    ///     that waited at the start.
    public func sendOutbox(
        of store: CLSDataStore, batchSize: Int = SyncWire.maximumOperations,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws -> Outcome {
        guard let membership = try await store.classServerMemberships().first else {
            throw SyncError(
                .notJoined, "the store \(store.storeURL.path) has joined no class server: join one first (clsfile join URL --code CODE)")
        }
        guard membership.serverURL == serverURL else {
            throw SyncError(
                .invalidValue,
                "the store syncs to \(membership.serverURL.absoluteString), not \(serverURL.absoluteString): join that server first")
        }
        let total = try await store.syncOutboxDepth()
        var outcome = Outcome()
        // Classes the server refuses the student (left, or removed from it): their operations
        // wait, and the other classes' go. So do the operations on assignments a class does not
        // have yet (its teacher has not registered the handout).
        var refusedClasses: [UUID: SyncError] = [:]
        var waitingAssignments: [UUID: Set<String>] = [:]
        var waitingReason: SyncError?
        do {
            while true {
                let batch = try Self.fitting(
                    try await store.pendingSyncOperations(
                        limit: max(1, min(batchSize, SyncWire.maximumOperations)),
                        excludingClasses: Set(refusedClasses.keys), excludingAssignments: waitingAssignments))
                guard let classID = batch.first?.classID else { break }
                do {
                    let answer = try await send(batch.map(\.operation), classID: classID)
                    try await store.acknowledgeSyncOperations(batch.map(\.sequence))
                    outcome.sent += batch.count
                    outcome.repeated += answer.repeated
                } catch let error as SyncError where Self.isRefusalOfValues(error) {
                    try await sendOneByOne(batch, to: classID, of: store, outcome: &outcome)
                } catch let error as SyncError where error.code == .refused && ["notFound", "forbidden"].contains(error.answer?.code ?? "")
                {
                    refusedClasses[classID] = error
                    continue
                } catch let error as SyncError
                    where error.code == .refused && error.answer?.code == "unknownAssignment"
                    && !(error.answer?.assignments ?? []).isEmpty
                {
                    waitingAssignments[classID, default: []].formUnion(error.answer?.assignments ?? [])
                    waitingReason = error
                    continue
                }
                outcome.batches += 1
                progress?(outcome.sent + outcome.refused, total)
            }
            if let (classID, error) = refusedClasses.first {
                throw SyncError(
                    .refused,
                    "sent \(outcome.sent) operation\(outcome.sent == 1 ? "" : "s"); the operations for the class \(classID.uuidString.lowercased()) wait: \(error.message)",
                    answer: error.answer)
            }
            if let error = waitingReason {
                let count = waitingAssignments.values.reduce(0) { $0 + $1.count }
                throw SyncError(
                    .refused,
                    "sent \(outcome.sent) operation\(outcome.sent == 1 ? "" : "s"); the work on \(count) assignment\(count == 1 ? "" : "s") waits: \(error.answer?.message ?? error.message)",
                    answer: error.answer)
            }
        } catch {
            try? await store.recordSyncFailure((error as? SyncError)?.message ?? "\(error)")
            throw error
        }
        return outcome
    }

    /// The first operations of a batch that one request carries within the server's body limit
    /// (``ClassWire/SyncWire/maximumBodyBytes``), one at least: operations that carry process
    /// evidence may take a megabyte each (a store queues none larger). Others are small, and go
    /// as they are.
    private static func fitting(_ batch: [OutboxEntry]) throws -> [OutboxEntry] {
        guard batch.contains(where: { $0.operation.historyRows != nil }) else { return batch }
        // The request's own keys and the class's id, then each operation and its comma.
        let encoder = SyncWire.encoder
        var bytes = 128
        var count = 0
        for entry in batch {
            bytes += try encoder.encode(entry.operation).count + 1
            guard count == 0 || bytes <= SyncWire.maximumBodyBytes else { break }
            count += 1
        }
        return Array(batch.prefix(count))
    }

    /// A batch the server refused for a value: each operation on its own, the refused set aside.
    private func sendOneByOne(_ batch: [OutboxEntry], to classID: UUID, of store: CLSDataStore, outcome: inout Outcome) async throws {
        for entry in batch {
            do {
                let answer = try await send([entry.operation], classID: classID)
                try await store.acknowledgeSyncOperations([entry.sequence])
                outcome.sent += 1
                outcome.repeated += answer.repeated
            } catch let error as SyncError where Self.isRefusalOfValues(error) {
                try await store.setAsideSyncOperation(entry.sequence, reason: error.answer?.message ?? error.message)
                outcome.refused += 1
            }
        }
    }

    /// Whether the server refused the operations' values (which sending again cannot change),
    /// not the caller or the class.
    private static func isRefusalOfValues(_ error: SyncError) -> Bool {
        error.code == .refused && ["invalidValue", "tooLarge"].contains(error.answer?.code ?? "")
    }

    // MARK: Requests

    private func exchange<Body: Encodable, Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, body: Body?,
        answer: Answer.Type
    ) async throws -> Answer {
        let data = try await request(method, path, body: try body.map { try SyncWire.encoder.encode($0) })
        do {
            return try SyncWire.decoder.decode(Answer.self, from: data)
        } catch {
            throw SyncError(
                .unreachable,
                "\(serverURL.absoluteString) answered \(path) with something that is not the class server's API (\(error)); check the address"
            )
        }
    }

    private func request(_ method: HTTPMethod, _ path: String, body: Data?) async throws -> Data {
        try await ServerConnection(
            serverURL: serverURL, http: http, timeout: timeout, retrying: "sync again (clsfile sync): nothing is lost meanwhile"
        )
        .request(
            method, path, body: body.map { ($0, "application/json") },
            token: try await DeviceToken.make(key: key, audience: origin, lifetime: 5 * 60), keyIdentifier: keyIdentifier
        ).data
    }
}
