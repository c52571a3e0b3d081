import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile class-report`: the teacher's view of the class in the terminal.
struct ClassReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "class-report",
        abstract: "Show each assignment's averages and a row per student; or one student's work in detail (teacher).",
        discussion: """
            Shows only your assignments and the work collected for them with `clsfile collect`; \
            with --server, the work your students synced to a class server instead. Primary items \
            of different kinds (a word count and a score, say) are never averaged together: each \
            kind is averaged apart, with a warning. --link prints the address of the class's pages \
            on the server, good for 30 minutes.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Show this student's work in detail (a name or account identifier).",
            valueName: "student"))
    var student: String?

    @Option(name: .long, help: ArgumentHelp("Read the class from this class server instead of your store.", valueName: "url"))
    var server: String?

    @Option(
        name: .customLong("class"),
        help: ArgumentHelp("With --server: the class, by name or id, when you teach more than one.", valueName: "class"))
    var className: String?

    @Flag(name: .long, help: "With --server: print the address of the class's pages instead.")
    var link = false

    @Argument(help: ArgumentHelp("Only this assignment (an identifier, a unique prefix, or the title).", valueName: "assignment"))
    var assignment: String?

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "class-report")
            var report: ClassReport
            if let server {
                if link { try ServerReport.showLink(server: server, className: className) }
                report = try ServerReport.fetch(server: server, className: className)
            } else {
                guard className == nil, !link else { throw ValidationError("--class and --link go with --server") }
                report = try await ClassReport(store: storeOptions.dataStore())
            }
            if let assignment {
                report.assignments = [
                    try AssignmentChoice.pick(
                        assignment, from: report.assignments, identifier: \.identifier,
                        title: \.title, in: "your class")
                ]
            }
            if let student {
                let matches = report.assignments.flatMap { summary in
                    summary.students.filter { $0.studentName == student || $0.studentIdentifier == student }.map { (summary, $0) }
                }
                guard !matches.isEmpty else {
                    throw ClassroomError(.notAssigned, "no collected work from \(student)\(assignment.map { " for \($0)" } ?? "")")
                }
                if json {
                    print(try Formatting.json(matches.map(\.1)))
                } else {
                    print(matches.map { ClassReportText.detail($0.1, in: $0.0) }.joined(separator: "\n\n"))
                }
                return
            }
            print(json ? try Formatting.json(report) : ClassReportText.overview(report))
        }
    }
}
