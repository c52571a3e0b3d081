import ArgumentParser
import ClassWire
import Classroom
import ClassSync
import CommandSupport
import ForwardedCommands
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile register --server URL`: a teacher's handouts registered with a class on the server.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = RegisterArguments.configuration

    @OptionGroup var arguments: RegisterArguments

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "register")
            let client = try SyncClient(
                serverURL: try SyncClient.serverURL(arguments.server), key: try RoleGate.identity(of: .teacher).signingKey)
            let chosen = try await TaughtClass.chosen(arguments.className, on: client, server: arguments.server)
            let held = try await arguments.storeOptions.dataStore().assignments().filter {
                $0.classIdentifier == nil && !$0.coversContextTree
            }
            let chosenAssignments: [Assignment]
            if arguments.identifiers.isEmpty {
                chosenAssignments = held.filter { $0.className == nil || $0.className == chosen.name }
            } else {
                let byIdentifier = Dictionary(held.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
                if let missing = arguments.identifiers.first(where: { byIdentifier[$0] == nil }) {
                    throw SyncError(
                        .invalidValue,
                        "you have no assignment \(missing) in \(try arguments.storeOptions.storeURL.path): clsfile assignments lists yours")
                }
                chosenAssignments = arguments.identifiers.compactMap { byIdentifier[$0] }
            }
            guard !chosenAssignments.isEmpty else {
                throw SyncError(
                    .invalidValue,
                    "you have no assignment for \(chosen.name) to register: make one with clsfile assign FILE --title T --class \(chosen.name)"
                )
            }
            let registered = try await client.registerHandouts(
                chosenAssignments.map {
                    SyncWire.HandoutRequest.Handout(identifier: $0.identifier, assignment: SyncOperation.AssignmentInfo(describing: $0))
                }, inClass: chosen.id)
            for assignment in chosenAssignments {
                print("registered '\(TerminalText.escaped(assignment.title))' (\(assignment.identifier))")
            }
            print("\(chosen.name) on \(arguments.server) has \(registered) handout\(registered == 1 ? "" : "s") registered")
        }
    }
}
