internal import AsyncHTTPClient
import Foundation
import Logging
internal import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1

/// Reads the rosters of courses from their LMS (Names and Role Provisioning Services 2.0) after an
/// instructor's launch asks for it, apart from the launch: the pages of members, by their `Link:
/// <…>; rel="next"`, up to 100 of them, 20,000 members and 16 MiB in all; what it read
/// replaces the course's roster, and a failure is kept for the instructor's page to show.
actor LTIRosterReader {
    static let membershipScope = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
    private let database: ServerDatabase
    private let tokens: LTIAccessTokens
    private let logger: Logger

    init(database: ServerDatabase, tokens: LTIAccessTokens, logger: Logger) {
        self.database = database
        self.tokens = tokens
        self.logger = logger
    }

    /// Reads the rosters due, looking every two seconds, until cancelled.
    func run() async {
        await LTIBackgroundWork.repeating(every: .seconds(2), logger: logger, what: "LTI rosters") { try await readDue() }
    }

    /// Reads the rosters due now, up to 10.
    /// - Returns: How many were taken.
    func readDue() async throws -> Int {
        let due = try await database.rostersDue(limit: 10)
        for roster in due {
            do {
                try await database.rosterRead(roster, members: try await read(roster), failure: nil)
            } catch {
                logger.info("LTI roster not read", metadata: ["context": "\(roster.contextID)", "error": "\(error)"])
                try await database.rosterRead(roster, members: [], failure: "\(error)")
            }
        }
        return due.count
    }

    static func sameOrigin(_ address: String, as other: String) -> Bool {
        guard let first = URLComponents(string: address), let second = URLComponents(string: other) else { return false }
        return first.scheme?.lowercased() == second.scheme?.lowercased() && first.host?.lowercased() == second.host?.lowercased()
            && first.port == second.port
    }

    private struct Page: Decodable {
        struct Member: Decodable {
            var user_id: String
            var status: String?
            var name: String?
            var given_name: String?
            var family_name: String?
            var roles: [String]?
        }
        var members: [Member]
    }

    private func read(_ roster: ServerDatabase.LTIRosterDue) async throws -> [ServerDatabase.LTIRosterMember] {
        let token = try await tokens.token(roster.platform, scope: Self.membershipScope)
        var members: [ServerDatabase.LTIRosterMember] = []
        var next: String? = roster.membershipsURL
        var pages = 0
        var bytes = 0
        while let address = next, pages < 100, members.count < 20_000, bytes < 16 << 20 {
            pages += 1
            var request = HTTPClientRequest(url: address)
            request.headers.add(name: "Accept", value: "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 8 << 20)
            bytes += body.readableBytes
            guard response.status == .ok else {
                if response.status == .unauthorized { await tokens.forget(roster.platform.id, scope: Self.membershipScope) }
                throw ServerError(
                    .unauthorized, "the LMS answered \(response.status.code) to its roster")
            }
            let page = try JSONDecoder().decode(Page.self, from: Data(buffer: body))
            for member in page.members where (member.status ?? "Active") == "Active" {
                let name = LTIShownName.person(name: member.name, given: member.given_name, family: member.family_name, id: member.user_id)
                let learner = !Set(member.roles ?? []).isDisjoint(with: LTILaunchVerifier.learnerRoles)
                members.append(ServerDatabase.LTIRosterMember(subject: member.user_id, name: name, isLearner: learner))
            }
            // The next page only on the roster's own scheme, host and port.
            next = response.headers["Link"].lazy.flatMap { $0.split(separator: ",") }.first { $0.contains("rel=\"next\"") }
                .flatMap { link in link.firstMatch(of: /<([^>]+)>/).map { String($0.1) } }
                .flatMap { text in Self.sameOrigin(text, as: roster.membershipsURL) ? text : nil }
        }
        return members
    }
}
