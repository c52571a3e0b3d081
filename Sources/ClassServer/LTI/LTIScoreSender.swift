internal import AsyncHTTPClient
import Classroom
import Foundation
import Logging
internal import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1
import OpenClassKit

/// Sends students' scores to their LMS's gradebook (LTI Assignment and Grade Services 2.0) as
/// their work syncs, apart from the syncs: it takes the scores due (``ServerDatabase/scoresDue(limit:)``,
/// any number of server processes sharing them), asks each platform for an access token (a
/// client assertion signed with the tool's key; kept until a minute before it expires), and
/// posts each score to its line item, at most once per the platform's interval (10 minutes by
/// default, `clsfile-server lti register --score-interval`) per student and line item; marks a
/// batch sent in one statement. A score the platform refuses or cannot take now is tried again
/// after 5 s, then 10, 20, … up to an hour.
///
/// Its access tokens come from ``LTIAccessTokens``.
actor LTIScoreSender {
    static let scoreScope = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
    private let database: ServerDatabase
    private let tokens: LTIAccessTokens
    private let logger: Logger
    /// Made once: a formatter is dear to make.
    private let formatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    init(database: ServerDatabase, tokens: LTIAccessTokens, logger: Logger) {
        self.database = database
        self.tokens = tokens
        self.logger = logger
    }

    /// Sends what is due, looking every second, until cancelled.
    func run() async {
        await LTIBackgroundWork.repeating(every: .seconds(1), logger: logger, what: "LTI scores") { try await sendDue() }
    }

    /// Sends the scores due now, up to 20 (each call bounded to 10 s, so that a batch ends well
    /// within the ten minutes its scores are claimed for).
    /// - Returns: How many were taken.
    func sendDue() async throws -> Int {
        let due = try await database.scoresDue(limit: 20)
        var sent: [ServerDatabase.LTIScoreDue] = []
        for score in due {
            do {
                try await send(score)
                sent.append(score)
            } catch {
                let retry = min(5 << min(score.attempts, 10), 3600)
                logger.info(
                    "LTI score not sent", metadata: ["line item": "\(score.lineItemURL)", "error": "\(error)", "retry": "\(retry) s"])
                try await database.scoreFailed(score, because: "\(error)", retryAfter: retry)
            }
        }
        try await database.scoresSent(sent)
        return due.count
    }

    private func send(_ score: ServerDatabase.LTIScoreDue) async throws {
        let token = try await tokens.token(
            LTIAccessTokens.Platform(id: score.platformID, clientID: score.clientID, tokenURL: score.tokenURL), scope: Self.scoreScope)
        guard var address = URLComponents(string: score.lineItemURL) else {
            throw ServerError(.invalidValue, "the line item \(score.lineItemURL) is not an address")
        }
        address.path = (address.path.hasSuffix("/") ? String(address.path.dropLast()) : address.path) + "/scores"
        var request = HTTPClientRequest(url: address.string ?? score.lineItemURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/vnd.ims.lis.v1.score+json")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.body = .bytes(ByteBuffer(bytes: try Self.body(of: score, formatter: formatter)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        // 409: the gradebook holds a score as new or newer (Moodle's answer to a time not later
        // than its own), which sending again would not change.
        guard (200..<300).contains(response.status.code) || response.status.code == 409 else {
            if response.status.code == 401 { await tokens.forget(score.platformID, scope: Self.scoreScope) }
            throw ServerError(
                .unauthorized, "the LMS answered \(response.status.code) to a score: \(String(buffer: answer).prefix(300))")
        }
    }

    /// The score of a student's work (AGS 2.0 §3.4): the primary item's score, else progress,
    /// out of the link's maximum; where the work is; the grading the teacher chose; a comment with
    /// the time and words; the time of the work's last change.
    static func body(of score: ServerDatabase.LTIScoreDue, formatter: ISO8601DateFormatter) throws -> Data {
        let work = score.work
        let maximum = score.grading.scoreMaximum
        let fraction: Double
        if let item = work.primaryItem, item.kind == ItemKind.score.rawValue, let itemMaximum = item.maxScore, itemMaximum > 0 {
            fraction = item.value / itemMaximum
        } else {
            fraction = work.progress
        }
        let finalGrade = score.grading.gradingProgress == "FullyGraded"
        let activity =
            work.isDone
            ? (finalGrade ? "Completed" : "Submitted") : (work.activeSeconds > 0 || work.progress > 0 ? "InProgress" : "Started")
        let words = ([work.primaryItem] + work.additionalItems).compactMap { $0 }.first { $0.identifier == ItemIdentifier.wordCount }
        let minutes = Int((work.activeSeconds / 60).rounded())
        let comment = [words.map { "\(Int($0.value)) words" }, "\(minutes) min active"].compactMap { $0 }.joined(separator: " · ")
        var body: [String: Any] = [
            "userId": score.userID, "scoreGiven": (min(max(fraction, 0), 1) * maximum * 100).rounded() / 100,
            "scoreMaximum": maximum, "activityProgress": activity, "gradingProgress": score.grading.gradingProgress,
            "comment": comment, "timestamp": formatter.string(from: score.updatedAt)
        ]
        var submission: [String: String] = [:]
        if let start = work.sessions.first?.start { submission["startedAt"] = formatter.string(from: start) }
        if let done = work.completedAt { submission["submittedAt"] = formatter.string(from: done) }
        if !submission.isEmpty { body["submission"] = submission }
        return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
    }
}
