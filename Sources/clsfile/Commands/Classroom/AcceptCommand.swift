import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

/// `clsfile accept HANDOUT`: a student takes on an assignment.
struct AcceptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept",
        abstract: "Accept a handout: from now on its document is assigned (student).",
        discussion: """
            The document is the file the handout names, in the handout's folder, unless --document \
            gives another. Only assigned documents ever leave your machine (with `clsfile submit`); \
            everything else you open stays in your own store.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Your copy of the document, when it is not beside the handout.",
            valueName: "file"))
    var document: String?

    @Argument(help: ArgumentHelp("The .clshandout file.", valueName: "handout"))
    var handout: String

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.student, for: "accept")
            let handoutURL = FileArgument.url(for: handout)
            let handout = try Handout.read(from: handoutURL)
            let documentURL =
                document.map(FileArgument.url(for:))
                ?? handoutURL.deletingLastPathComponent().appendingPathComponent(handout.document.name)
            guard FileManager.default.fileExists(atPath: documentURL.path) else {
                throw ClassroomError(
                    .fileAccess,
                    "the handout is for \(handout.document.name), which is not at \(documentURL.path); put the document there or pass --document"
                )
            }
            try await handout.accept(for: documentURL, in: storeOptions.dataStore())
            print(
                "accepted '\(TerminalText.escaped(handout.title))' for \(TerminalText.escaped(documentURL.displayPath))"
                    + (handout.course.map { " in \(TerminalText.escaped($0.documentPath.joined(separator: " › ")))" } ?? ""))
            print(ProcessEvidence.statement(for: handout.processEvidence))
            if handout.processEvidence != nil {
                print(ProcessEvidence.keepingStatement(days: handout.assignment.evidenceKeptDays, withdrawnAt: nil, assignment: handout.id))
            }
            if let asked = AIStatement.Requirement.statement(for: handout.aiStatementRequirement) { print(asked) }
        }
    }
}
