import ArgumentParser
import ClassServer
import CommandSupport
import Foundation

/// `clsfile-server prune`: deletes the ids of operations no client can send again.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract:
            "Delete the record of operations applied more than 91 days ago, process evidence past its handout's days, and expired LTI logins and tokens (run as the schema's owner, daily).",
        discussion: """
            The server applies each operation id once, and keeps the ids it applied so that one \
            sent again (an answer lost, a server killed mid-request) changes nothing. It accepts \
            an operation only within 90 days of when it was made, so an id applied more than 91 \
            days ago can never be applied again: prune deletes those, in batches that syncs do \
            not wait behind. It also deletes the LTI logins and deep links past their time and \
            the link tokens and registration codes expired a day ago. And it deletes the process \
            evidence (history rows and snapshots) of work unchanged for longer than its handout \
            keeps it (`clsfile assign --keep-evidence DAYS`, 180 days when the handout does not \
            say): the figures stay, and the teacher's student page says when it was deleted. Run it daily (Samples/class-server has a systemd timer); safe to run \
            at any time. Prints how many ids it deleted.
            """)

    @OptionGroup var databaseOptions: DatabaseOptions

    func run() async throws {
        try await reportingFailures {
            let address = try databaseOptions.address()
            let (pruned, lti, evidence) = try await ServerDatabase.withDatabase(address, logger: .server) {
                (try await $0.pruneAppliedOperations(), try await $0.pruneLTI(), try await $0.pruneExpiredEvidence())
            }
            print(
                "pruned \(pruned.count) operation id\(pruned.count == 1 ? "" : "s") applied before \(pruned.appliedBefore.formatted(.iso8601))"
            )
            print(
                "deleted \(evidence.rows) history row\(evidence.rows == 1 ? "" : "s") of process evidence kept past its handout's days, from \(evidence.works) student\(evidence.works == 1 ? "'s" : "s'") work; the figures stay"
            )
            print("pruned \(lti) expired LTI login\(lti == 1 ? "" : "s"), deep link\(lti == 1 ? "" : "s") and token\(lti == 1 ? "" : "s")")
        }
    }
}
