import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile export --xapi`: assigned work as xAPI statements, for a Learning Record Store.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write assigned work as xAPI statements (a JSON array).",
        discussion: """
            The only format is xAPI 1.0.3, so --xapi is required. A student exports their own work \
            on accepted assignments; a teacher exports every submission collected. Nothing else \
            is exported: no file that is not assigned, no name, e-mail address or path.

            The statements follow cmi5: per session `initialized` at its start and `terminated` at \
            its end with the duration (a session still running has no `terminated` yet); one \
            `progressed` with the progress in percent \
            (https://w3id.org/xapi/cmi5/result/extensions/progress) and the word count \
            (https://clsfile.invalid/xapi/result/extensions/word-count); `completed` with the active \
            time once the work is marked done. The actor is an account named by the student's \
            opaque identifier on --home-page. Times are in UTC to the second. Statement ids are \
            derived from the content, so exporting the same work twice gives the same bytes and \
            sending them again changes nothing.

            Exit codes: 0 success; 64 a usage error, or development mode off; 65 a collected \
            submission that cannot be read; 66 no accepted assignment (student), or an output file \
            that cannot be written; 74 a store that cannot be read.
            """)

    @Flag(name: .long, help: "Write xAPI 1.0.3 statements (the only format).")
    var xapi = false

    @Option(name: .long, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(
        name: .customLong("home-page"),
        help: ArgumentHelp(
            "The home page of the system the student accounts belong to (an http or https IRL).", valueName: "iri"))
    var homePage = XAPIStatementBuilder.Configuration.defaultHomePage

    @Option(
        name: .long,
        help: ArgumentHelp("Teacher: export the work synced to this class server instead of what you collected.", valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("class"),
        help: ArgumentHelp("With --server: the class, by name or id, when you teach more than one.", valueName: "class"))
    var className: String?

    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        guard server != nil || className == nil else { throw ValidationError("--class goes with --server") }
        guard xapi else {
            throw ValidationError("the only export format is xAPI: clsfile export --xapi [--output FILE] [--home-page IRI]")
        }
        guard let url = URL(string: homePage), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ValidationError(
                "--home-page must be an absolute http or https address, such as https://school.example; got '\(homePage)'.")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let mode = try DeveloperMode.current()
            if server != nil, mode.role != .teacher {
                throw ClassroomError(
                    .wrongRole,
                    "`clsfile export --server` is for a teacher: a student exports their own work from their store, without --server")
            }
            let store = storeOptions.dataStore()
            let builder = XAPIStatementBuilder(configuration: .init(homePage: homePage))
            let statements: [XAPIStatement]
            switch mode.role {
            case .off:
                throw ClassroomError(
                    .wrongRole,
                    "`clsfile export` is for a student (their own assigned work) or a teacher (the collected work), and development mode is off: run `clsfile role student --name \"Your Name\"` or `clsfile role teacher` first"
                )
            case .student:
                // Taken before the work is read: a session that has not ended by then is still running.
                let readAt = Date()
                statements = try await Submitter.assignedWork(in: store).flatMap { assignment, work in
                    builder.statements(actor: mode.accountIdentifier, assignment: assignment, work: work, readAt: readAt)
                }
            case .teacher:
                let report =
                    if let server { try ServerReport.fetch(server: server, className: className) } else {
                        try await ClassReport(store: store)
                    }
                statements = builder.statements(for: report)
            }
            let data = try XAPIStatement.jsonArray(statements)
            guard let output else {
                FileHandle.standardOutput.write(data)
                return
            }
            do { try data.write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw ClassroomError(
                    .fileAccess, "cannot write \(output): \(error.localizedDescription); check the folder exists and is writable")
            }
            print("wrote \(statements.count) xAPI statement\(statements.count == 1 ? "" : "s") to \(output)")
        }
    }
}
