import ArgumentParser
import ClassWire
import Classroom
import ClassSync
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile register --server URL`: a teacher's handouts registered with a class on the server.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register your handouts' assignments with your class on the class server (teacher role).",
        discussion: """
            The class server takes students' work only on the assignments a class has, and its \
            report shows each as its teacher registered it (title, due date, target, document), \
            never as a student's work says. `clsfile assign --server URL` registers each new \
            handout; this registers those made before: every assignment of yours for the class \
            (or without a class), or those named with --assignment. Registering again updates \
            them. Students' work on an assignment not registered yet waits on their machines and \
            goes with their next sync after it is.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The class server's address.", valueName: "url"))
    var server: String

    @Option(name: .customLong("class"), help: ArgumentHelp("The class, by name or id; needed when you teach more than one.", valueName: "class"))
    var className: String?

    @Option(name: .customLong("assignment"), help: ArgumentHelp("An assignment's id (clsfile assignments lists them); all of the class's by default.",
                                                               valueName: "id"))
    var identifiers: [String] = []

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "register")
            let client = try SyncClient(serverURL: try SyncClient.serverURL(server), key: try RoleGate.identity(of: .teacher).signingKey)
            let chosen = try await TaughtClass.chosen(className, on: client, server: server)
            let held = try await storeOptions.dataStore().assignments().filter { $0.classIdentifier == nil && !$0.coversContextTree }
            let chosenAssignments: [Assignment]
            if identifiers.isEmpty {
                chosenAssignments = held.filter { $0.className == nil || $0.className == chosen.name }
            } else {
                let byIdentifier = Dictionary(held.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
                if let missing = identifiers.first(where: { byIdentifier[$0] == nil }) {
                    throw SyncError(.invalidValue, "you have no assignment \(missing) in \(try storeOptions.storeURL.path): clsfile assignments lists yours")
                }
                chosenAssignments = identifiers.compactMap { byIdentifier[$0] }
            }
            guard !chosenAssignments.isEmpty else {
                throw SyncError(.invalidValue, "you have no assignment for \(chosen.name) to register: make one with clsfile assign FILE --title T --class \(chosen.name)")
            }
            let registered = try await client.registerHandouts(chosenAssignments.map {
                SyncWire.HandoutRequest.Handout(identifier: $0.identifier, assignment: SyncOperation.AssignmentInfo(describing: $0))
            }, inClass: chosen.id)
            for assignment in chosenAssignments { print("registered '\(TerminalText.escaped(assignment.title))' (\(assignment.identifier))") }
            print("\(chosen.name) on \(server) has \(registered) handout\(registered == 1 ? "" : "s") registered")
        }
    }
}
