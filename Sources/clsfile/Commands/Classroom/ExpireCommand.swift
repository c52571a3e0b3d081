import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile expire`: a teacher's store deletes the process evidence kept past its handout's days.
struct ExpireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire",
        abstract: "Delete the process evidence your store keeps past the days its handout says (teacher).",
        discussion: """
            A handout keeps the writing history of submitted work (its rows, and for replay the \
            snapshots of the text) the days given by `clsfile assign --keep-evidence DAYS`, \
            \(ProcessEvidence.defaultKeptDays) when it does not say, after the student submitted it. \
            Past them, this deletes it and marks the work with the date; the figures stay (time, \
            sessions, words, progress, items, the student's notes and statement of AI use). \
            `clsfile collect` does the same after each import. Prints one line per submission; \
            --dry-run only says what would go. A class server deletes its own copy with \
            `clsfile-server prune`.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Say what would be deleted, and delete nothing.")
    var dryRun = false

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "expire")
            let expired = try await EvidenceExpiry(store: storeOptions.dataStore()).expire(dryRun: dryRun)
            Self.report(expired, dryRun: dryRun)
            if expired.isEmpty { print("no process evidence is kept past its handout's days") }
        }
    }

    /// One line per submission whose evidence was deleted (or would be, with `dryRun`).
    static func report(_ expired: [EvidenceExpiry.Expired], dryRun: Bool) {
        for item in expired {
            // Names and titles come from students' files and handouts: escaped.
            let snapshots = item.snapshots > 0 ? " and \(item.snapshots) snapshots of the text" : ""
            print(
                "\(dryRun ? "would delete" : "deleted") the process evidence of \(TerminalText.escaped(item.studentName)), '\(TerminalText.escaped(item.assignmentTitle))' submitted \(Formatting.timestamp(item.submittedAt)) (kept \(item.keptDays) days): \(item.rows) history rows\(snapshots); the figures stay"
            )
        }
    }
}
