import ArgumentParser
import ClassServer
import CommandSupport
import Foundation
import ProgramBasics

extension StudentCommand {
    /// `clsfile-server student forget ACCOUNT`.
    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a student and all their data (run as the schema's owner).",
            discussion: """
                Deletes the student's account, device keys, enrolments, work in every class and \
                the record of their applied operations, in one transaction, and prints what it \
                deleted. Their teachers' reports no longer show them; their clsfile is refused \
                from then on (within a minute on every server process) and keeps its own store. \
                Kept: nothing on the server; PostgreSQL's backups and archived WAL until they \
                expire. ACCOUNT is the account id (studentIdentifier in the class's \
                /api/class-report.json) or the key id.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Argument(help: ArgumentHelp("The student's account id or key id.", valueName: "account"))
        var account: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let forgotten = try await ServerDatabase.withDatabase(address, logger: .server) { try await $0.forgetStudent(account) }
                print(
                    "forgot the student \(TerminalText.escaped(forgotten.name)) (\(forgotten.accountID.uuidString.lowercased())): \(forgotten.keys) key\(forgotten.keys == 1 ? "" : "s"), \(forgotten.enrolments) enrolment\(forgotten.enrolments == 1 ? "" : "s"), \(forgotten.workRows) work row\(forgotten.workRows == 1 ? "" : "s"), \(forgotten.appliedOperations) applied operation id\(forgotten.appliedOperations == 1 ? "" : "s") deleted"
                )
            }
        }
    }
}
