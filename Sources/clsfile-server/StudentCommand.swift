import ArgumentParser
import ClassServer
import CommandSupport
import Foundation
import ProgramBasics

/// `clsfile-server student list|remove|forget`: who is in a class, and what the administrator does to one student.
struct StudentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "student", abstract: "List a class's students, end an enrolment, forget a student.",
        subcommands: [List.self, Remove.self, Forget.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a class's students: account id, key fingerprint, enrolment date and name.",
            discussion: "Anyone with a class's code joins under a name of their choosing: tell students apart by key and date.")

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .customLong("class"), help: ArgumentHelp("The class's id (clsfile-server class list).", valueName: "id"))
        var classID: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let id = try ClassArgument.id(classID)
                let roster = try await ServerDatabase.withDatabase(address, logger: .server) { try await $0.roster(ofClass: id) }
                let names = Dictionary(grouping: roster, by: \.name)
                for entry in roster {
                    let joined = entry.joinedAt.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
                    let shared = (names[entry.name]?.count ?? 0) > 1 ? "  (same name as another)" : ""
                    print(
                        "\(entry.accountID.uuidString.lowercased())  \(entry.keyFingerprint ?? "-")  \(joined)  \(TerminalText.escaped(entry.name))\(shared)"
                    )
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a student's enrolment in a class.",
            discussion: "Their work in the class goes with it and their syncs to it are refused; the account and its other classes stay.")

        @OptionGroup var databaseOptions: DatabaseOptions

        @Option(name: .customLong("class"), help: ArgumentHelp("The class's id (clsfile-server class list).", valueName: "id"))
        var classID: String

        @Argument(help: ArgumentHelp("The student's account id (clsfile-server student list).", valueName: "account"))
        var student: String

        func run() async throws {
            try await reportingFailures {
                let address = try databaseOptions.address()
                let id = try ClassArgument.id(classID)
                guard let account = UUID(uuidString: student) else {
                    throw ServerError(
                        .invalidValue, "'\(student)' is not an account id: clsfile-server student list --class \(classID) shows them")
                }
                try await ServerDatabase.withDatabase(address, logger: .server) { try await $0.removeStudent(account, fromClass: id) }
                print("removed \(account.uuidString.lowercased()) from the class \(id.uuidString.lowercased())")
            }
        }
    }
}
