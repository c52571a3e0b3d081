import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile assignments [list|remove]`: the assignments of the role in force.
struct AssignmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assignments",
        abstract: "List or remove assignments (teacher: the ones you made; student: the ones you accepted).",
        subcommands: [List.self, Remove.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the assignments.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let assignments = try await storeOptions.dataStore().assignments()
                print(json ? try AssignmentRow.json(assignments) : AssignmentRow.table(assignments))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an assignment.",
            discussion: """
                A teacher's store drops the assignment and the work collected for it; a student's \
                store stops treating the file as assigned (your own record of the file stays). Name \
                it by its identifier, a unique prefix of it, or its title.
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The assignment's identifier, a unique prefix of it, or its title.", valueName: "assignment"))
        var key: String

        func run() async throws {
            try await reportingFailures {
                let store = storeOptions.dataStore()
                let assignment = try AssignmentChoice.pick(
                    key, from: try await store.assignments(), identifier: \.identifier,
                    title: \.title, in: store.storeURL.path)
                try await store.removeAssignment(identifier: assignment.identifier)
                print("removed '\(TerminalText.escaped(assignment.title))' (\(TerminalText.escaped(assignment.identifier)))")
            }
        }
    }
}
