import Classroom
import Foundation
import OpenClassKit
internal import PostgresNIO

extension ServerDatabase {
    /// A deep-linking launch waiting for the instructor's choice.
    struct LTIDeepLink: Sendable {
        var platformID: UUID
        var issuer: String
        var clientID: String
        var deploymentID: String
        var classID: UUID
        var teacherID: UUID
        /// The tool's launch address on the origin the deep-linking launch came to.
        var launchURL: String
        var returnURL: String
        var data: String?
    }

    /// Records a deep-linking launch under the hash of the id its page carries, good for `lifetime` seconds.
    func beginDeepLink(_ link: LTIDeepLink, idHash: Data, lifetime: Int) async throws {
        _ = try await translating("beginning an LTI deep link") {
            try await client.query(
                """
                SELECT clsfile.lti_begin_deep_link(\(idHash), \(link.platformID), \(link.deploymentID), \(link.classID),
                                                   \(link.teacherID), \(link.launchURL), \(link.returnURL), \(link.data), \(lifetime))
                """, logger: logger)
        }
    }

    /// Takes the deep link of an id, once; nil when none has it (never begun, taken, expired).
    func takeDeepLink(idHash: Data) async throws -> LTIDeepLink? {
        try await translating("taking an LTI deep link") {
            try await client.query(
                """
                SELECT platform_id, issuer, client_id, deployment_id, class_id, teacher_id, launch_url, return_url, data
                FROM clsfile.lti_take_deep_link(\(idHash))
                """, logger: logger
            ).decode((UUID, String, String, String, UUID, UUID, String, String, String?).self).collected().first.map {
                LTIDeepLink(
                    platformID: $0.0, issuer: $0.1, clientID: $0.2, deploymentID: $0.3, classID: $0.4, teacherID: $0.5, launchURL: $0.6,
                    returnURL: $0.7, data: $0.8)
            }
        }
    }

    /// The assignments of a class's registered handouts, by title, as its teacher reads them.
    func handoutTitles(ofClass classID: UUID, as teacher: UUID) async throws -> [(identifier: String, title: String)] {
        try await asAccount(teacher) { connection in
            try await registeredHandouts(ofClass: classID, on: connection).map { ($0.key, $0.value.title) }
                .sorted { ($0.title, $0.identifier) < ($1.title, $1.identifier) }
        }
    }

    /// How a link's scores are sent: out of what maximum, and as final grades or not.
    struct LTIGrading: Sendable, Equatable {
        var scoreMaximum: Double
        /// `FullyGraded` (the LMS shows the score as the grade) or `Pending`.
        var gradingProgress: String
    }

    /// Keeps a launched link to an assignment of the class with the line item the launch names.
    func linkResource(
        _ linkID: String, platform: UUID, classID: UUID, assignment: String, lineItem: String?, grading: LTIGrading
    ) async throws {
        _ = try await translating("keeping an LTI resource link") {
            try await client.query(
                """
                SELECT clsfile.lti_link_resource(\(platform), \(linkID), \(classID), \(assignment), \(lineItem),
                                                 \(grading.scoreMaximum), \(grading.gradingProgress))
                """, logger: logger)
        }
    }

    /// A score due to be sent, with what sending it needs.
    struct LTIScoreDue: Sendable {
        var platformID: UUID
        var resourceLinkID: String
        var studentID: UUID
        var attempts: Int
        var lineItemURL: String
        var grading: LTIGrading
        /// The student's id on the platform.
        var userID: String
        var work: StudentWork
        var updatedAt: Date
        var issuer: String
        var clientID: String
        var tokenURL: String
    }

    /// Claims up to `limit` scores due, for five minutes.
    func scoresDue(limit: Int) async throws -> [LTIScoreDue] {
        try await translating("reading the LTI scores due") {
            try await client.query(
                """
                SELECT platform_id, resource_link_id, student_id, attempts, line_item_url, score_maximum, grading_progress,
                       sub, assignment_id, detail, updated_at, issuer, client_id, auth_token_url
                FROM clsfile.lti_scores_due(\(limit))
                """, logger: logger
            ).decode(
                (UUID, String, UUID, Int32, String, Double, String, String, String, String, Date, String, String, String).self
            ).collected().map { row in
                LTIScoreDue(
                    platformID: row.0, resourceLinkID: row.1, studentID: row.2, attempts: Int(row.3),
                    lineItemURL: row.4, grading: LTIGrading(scoreMaximum: row.5, gradingProgress: row.6), userID: row.7,
                    work: StudentWork(state: try Self.decodedState(row.9, assignment: row.8)), updatedAt: row.10, issuer: row.11,
                    clientID: row.12, tokenURL: row.13)
            }
        }
    }

    /// Marks scores sent, in one statement: done, unless the work changed while they were sent.
    func scoresSent(_ scores: [LTIScoreDue]) async throws {
        guard !scores.isEmpty else { return }
        _ = try await translating("marking LTI scores sent") {
            try await client.query(
                """
                SELECT clsfile.lti_scores_sent(\(scores.map(\.platformID)), \(scores.map(\.resourceLinkID)), \(scores.map(\.studentID)))
                """, logger: logger)
        }
    }

    /// Marks a score not sent, due again after `retry` seconds.
    func scoreFailed(_ score: LTIScoreDue, because why: String, retryAfter retry: Int) async throws {
        _ = try await translating("marking an LTI score not sent") {
            try await client.query(
                """
                SELECT clsfile.lti_score_failed(\(score.platformID), \(score.resourceLinkID), \(score.studentID), \(why), \(retry))
                """, logger: logger)
        }
    }
}

extension ServerDatabase {
    /// Marks the roster of an instructor's course due, at the address the launch gave.
    func wantRoster(of launch: LTILaunch, platform: UUID, at url: String) async throws {
        _ = try await translating("asking for an LTI roster") {
            try await client.query(
                "SELECT clsfile.lti_roster_wanted(\(platform), \(launch.deploymentID), \(launch.context.id), \(url))", logger: logger)
        }
    }

    /// A course's roster due to be read.
    struct LTIRosterDue: Sendable {
        var platform: LTIAccessTokens.Platform
        var deploymentID: String
        var contextID: String
        var membershipsURL: String
    }

    /// Claims up to `limit` rosters due.
    func rostersDue(limit: Int) async throws -> [LTIRosterDue] {
        try await translating("reading the LTI rosters due") {
            try await client.query(
                """
                SELECT platform_id, deployment_id, context_id, memberships_url, client_id, auth_token_url
                FROM clsfile.lti_rosters_due(\(limit))
                """, logger: logger
            ).decode((UUID, String, String, String, String, String).self).collected().map {
                LTIRosterDue(
                    platform: LTIAccessTokens.Platform(id: $0.0, clientID: $0.4, tokenURL: $0.5), deploymentID: $0.1, contextID: $0.2,
                    membershipsURL: $0.3)
            }
        }
    }

    /// A person of a course's roster.
    struct LTIRosterMember: Sendable, Equatable {
        var subject: String
        var name: String
        var isLearner: Bool
    }

    /// Keeps what a roster said, or why it could not be read.
    func rosterRead(_ roster: LTIRosterDue, members: [LTIRosterMember], failure: String?) async throws {
        _ = try await translating("keeping an LTI roster") {
            try await client.query(
                """
                SELECT clsfile.lti_roster_read(\(roster.platform.id), \(roster.deploymentID), \(roster.contextID), \(members.map(\.subject)),
                                               \(members.map(\.name)), \(members.map(\.isLearner)), \(failure))
                """, logger: logger)
        }
    }

    /// The learners of an instructor's course as its roster said, whether each tied a device to
    /// the class, when the roster was read and why it could not be, if so.
    func roster(of launch: LTILaunch, platform: UUID) async throws -> (
        learners: [(name: String, linked: Bool)], readAt: Date?, failure: String?
    ) {
        try await translating("reading an LTI roster") {
            let rows = try await client.query(
                """
                SELECT name, linked, read_at, failure FROM clsfile.lti_roster(\(platform), \(launch.deploymentID), \(launch.context.id))
                """, logger: logger
            ).decode((String?, Bool, Date?, String?).self).collected()
            return (
                rows.compactMap { row in row.0.map { ($0, row.1) } }, rows.first?.2 ?? nil, rows.first?.3 ?? nil
            )
        }
    }
}
