import ArgumentParser
import ClassServer
import CommandSupport
import Foundation

/// `clsfile-server class create|list|archive`.
struct ClassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "class", abstract: "Create, list and archive classes.",
        subcommands: [Create.self, List.self, Archive.self])

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
                let created = try await ServerDatabase.withDatabase(address) { try await $0.createClass(name: name, teacher: teacher) }
                print("class \(created.name) (\(created.id.uuidString.lowercased())) of \(created.teacherName): join code \(created.joinCode)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the classes with their codes and students.")

        @OptionGroup var databaseOptions: DatabaseOptions

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                for item in try await ServerDatabase.withDatabase(address, { try await $0.classes() }) {
                    print("\(item.id.uuidString.lowercased())  \(item.joinCode)  \(item.studentCount) students  \(TerminalText.escaped(item.name)) (\(TerminalText.escaped(item.teacherName)))")
                }
            }
        }
    }
}
