import ClassServer
import Foundation
import TestSupport

extension ClassServerBenchmark {
    /// For `--lti`: ties the load class's work to a gradebook, so that the servers send every
    /// student's score as their work changes. As the schema owner: a platform whose addresses
    /// are the sink's (which makes the tool's key), each student of the class an LMS student of
    /// it, and a resource link with a line item of the sink for each assignment the load writes to.
    /// Holding the scores, each student's score on each link is kept due only a day from now:
    /// the trigger on the work counts each change, but the servers send nothing. `scoreInterval`:
    /// the platform's seconds between two scores of a student on a link.
    static func linkToGradebook(
        _ sink: GradebookSink, classID: UUID, assignments: Int, holdingScores: Bool, scoreInterval: Int, owner: DatabaseAddress,
        cluster: PostgresCluster
    ) async throws {
        func address(_ path: String) -> URL {
            guard let url = URL(string: sink.url + path) else { fail("the gradebook sink's address \(sink.url) is not a URL") }
            return url
        }
        let platform = try await ServerDatabase.withDatabase(owner, logger: .benchmark) { database in
            try await database.registerLTIPlatform(
                LTIPlatform(
                    issuer: sink.url, clientID: "class-server-benchmark",
                    authLoginURL: address("/login"), authTokenURL: address("/token"), jwksURL: address("/jwks"),
                    deployments: ["1"], scoreInterval: scoreInterval)
            ).platform
        }
        let links = (0..<assignments).map {
            "('\(platform.id)', 'link-\($0)', '\(classID)', 'assignment-\($0)', '\(sink.url)/lineitems/\($0)')"
        }
        try cluster.psql(
            """
            INSERT INTO clsfile.lti_user (platform_id, sub, role, account_id)
                SELECT '\(platform.id)', 'student-' || e.student_id, 'student', e.student_id FROM clsfile.enrolment e
                WHERE e.class_id = '\(classID)';
            INSERT INTO clsfile.lti_resource_link (platform_id, resource_link_id, class_id, assignment_id, line_item_url)
                VALUES \(links.joined(separator: ", "));
            """, user: "clsfile_owner", password: "owner", database: "clsfile")
        if holdingScores {
            try cluster.psql(
                """
                INSERT INTO clsfile.lti_score (platform_id, resource_link_id, student_id, not_before)
                    SELECT '\(platform.id)', 'link-' || n, e.student_id, now() + interval '1 day'
                    FROM clsfile.enrolment e, generate_series(0, \(assignments - 1)) AS n WHERE e.class_id = '\(classID)'
                """, user: "clsfile_owner", password: "owner", database: "clsfile")
        }
    }

    /// The scores the senders could send now (due, the platform's interval since the last one sent past),
    /// and all the scores kept.
    static func scoresWaiting(in cluster: PostgresCluster) -> (ready: Int, all: Int) {
        let text =
            (try? cluster.psql(
                "SELECT count(*) FILTER (WHERE due AND not_before <= now()), count(*) FROM clsfile.lti_score", user: "clsfile_owner",
                password: "owner", database: "clsfile")) ?? ""
        let numbers = text.split(separator: "|").compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : (-1, -1)
    }
}
