import ArgumentParser
import ClassServer
import CommandSupport
import Foundation
import ProgramBasics

/// `clsfile-server class create|list|code|archive`.
struct ClassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "class", abstract: "Create, list and archive classes, and replace a join code.",
        subcommands: [Create.self, List.self, Code.self, Archive.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a class and print its join code.",
            discussion: "Students join it with `clsfile join URL --code CODE`.")

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .long, help: "The class's name.")
        var name: String

        @Option(name: .long, help: ArgumentHelp("The teacher, by account id or key id.", valueName: "id"))
        var teacher: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let created = try await ServerDatabase.withDatabase(address, logger: .server) {
                    try await $0.createClass(name: name, teacher: teacher)
                }
                print(
                    "class \(created.name) (\(created.id.uuidString.lowercased())) of \(created.teacherName): join code \(created.joinCode)"
                )
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the classes with their codes and students.")

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                for item in try await ServerDatabase.withDatabase(address, logger: .server, { try await $0.classes() }) {
                    print(
                        "\(item.id.uuidString.lowercased())  \(item.joinCode)  \(item.studentCount) students  \(TerminalText.escaped(item.name)) (\(TerminalText.escaped(item.teacherName)))"
                    )
                }
            }
        }
    }

    struct Code: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a class's join code, or replace it with --rotate.",
            discussion: "After --rotate the old code joins no one; the students in the class stay in it.")

        @OptionGroup var databaseOptions: DatabaseOptions

        @Argument(help: ArgumentHelp("The class's id (clsfile-server class list).", valueName: "class"))
        var classID: String

        @Flag(name: .long, help: "Replace the code with a new one.")
        var rotate = false

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let id = try ClassArgument.id(classID)
                let found = try await ServerDatabase.withDatabase(address, logger: .server) { database in
                    try await rotate ? database.rotateJoinCode(ofClass: id) : database.schoolClass(id)
                }
                print("class \(TerminalText.escaped(found.name)) (\(found.id.uuidString.lowercased())): join code \(found.joinCode)")
            }
        }
    }
}

/// A class named on the command line by its id.
enum ClassArgument {
    static func id(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw ServerError(.invalidValue, "'\(text)' is not a class id: clsfile-server class list shows them")
        }
        return id
    }
}
