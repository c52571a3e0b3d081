import ArgumentParser
import ClassServer
import CommandSupport
import Foundation
import ProgramBasics

extension ClassCommand {
    /// `clsfile-server class archive CLASS --output FILE`.
    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a class's report to a file, then delete the class and its work (run as the schema's owner).",
            discussion: """
                At the end of a term: writes the class's whole report, what GET \
                /api/class-report.json?class=ID gives a page of students at a time, every student \
                at once (every assignment with each student's work), to FILE and flushes it to disk; then deletes the class, its join code, \
                enrolments, work and catalog assignments, in one transaction that syncs to the \
                class wait behind (they are refused afterwards). Kept: the teacher, the students' \
                accounts and keys (they may be in other classes; `student forget` deletes one), \
                the record of their applied operations (until `prune`), the catalogs. CLASS is \
                the class's id or join code; FILE must not exist.
                """)

        @OptionGroup var databaseOptions: DatabaseOptions

        @Argument(help: ArgumentHelp("The class's id or join code.", valueName: "class"))
        var schoolClass: String

        @Option(name: .long, help: ArgumentHelp("The file to write the report to; must not exist.", valueName: "file"))
        var output: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let file = URL(fileURLWithPath: output)
                let archived = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.archiveClass(schoolClass, to: file)
                }
                print(
                    "archived \(TerminalText.escaped(archived.name)) (\(archived.classID.uuidString.lowercased())) of \(TerminalText.escaped(archived.teacherName)) to \(file.path): \(archived.assignments) assignment\(archived.assignments == 1 ? "" : "s"), \(archived.students) student\(archived.students == 1 ? "" : "s"), \(archived.workRows) work row\(archived.workRows == 1 ? "" : "s") deleted; \(archived.studentsInNoClass) of the students are now in no class (student forget deletes one)"
                )
            }
        }
    }
}
