import ArgumentParser
import CommandSupport
import Classroom
import Foundation
import OpenClassKit

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
                store stops treating the file as assigned (your own record of the file stays). The \
                identifier may be shortened to a unique prefix.
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The assignment's identifier, or a unique prefix of it.", valueName: "id"))
        var identifier: String

        func run() async throws {
            try await reportingFailures {
                let store = try storeOptions.dataStore()
                let matches = try await store.assignments().filter { $0.identifier.hasPrefix(identifier.lowercased()) }
                guard matches.count == 1, let assignment = matches.first else {
                    throw ClassroomError(.notAssigned, matches.isEmpty
                        ? "no assignment \(identifier) in \(store.storeURL.path); `clsfile assignments` lists them"
                        : "\(identifier) is the start of \(matches.count) assignments' identifiers; give more of it")
                }
                try await store.removeAssignment(identifier: assignment.identifier)
                print("removed '\(assignment.title)' (\(assignment.identifier))")
            }
        }
    }
}
