import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile assign FILE --title T`: a teacher hands a document out.
struct AssignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Hand a document out: record the assignment and write its handout file (teacher).",
        discussion: """
            Writes FILE.clshandout beside the document (or at --output): share both with the class, \
            the way Schoolwork shares a folder per handout. A student accepts it with \
            `clsfile accept`, or `clsfile open` finds it beside the document. The handout holds a \
            class key that seals what students send back with `clsfile submit`.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("What the students see as the assignment's title.", valueName: "title"))
    var title: String

    @Option(name: .customLong("class"), help: ArgumentHelp("The class it is for.", valueName: "name"))
    var className: String?

    @Option(name: .long, help: ArgumentHelp("The due day, YYYY-MM-DD (local time, end of the day), or an ISO 8601 date and time.",
                                            valueName: "date"))
    var due: String?

    @Option(name: .long, help: ArgumentHelp("The number of words asked for; students' progress is measured toward it.",
                                            valueName: "n"))
    var targetWords: Int?

    @Flag(name: .long, help: "A reading assignment: students' progress is the share of the document they have viewed (through an editor plugin).")
    var reading = false

    @Option(name: .long, help: ArgumentHelp("What the students are asked to do.", valueName: "text"))
    var instructions: String?

    @Option(name: .long, help: ArgumentHelp("Where to write the handout; FILE.clshandout beside the document by default.",
                                            valueName: "path"))
    var output: String?

    @Argument(help: ArgumentHelp("The document to hand out.", valueName: "file"))
    var file: String

    func validate() throws {
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--title cannot be empty.") }
        if let targetWords, targetWords <= 0 {
            throw ValidationError("--target-words must be a positive number of words, not \(targetWords).")
        }
        if reading, targetWords != nil {
            throw ValidationError("Give --target-words for writing or --reading for reading, not both: progress has one basis.")
        }
        _ = try dueDate()
    }

    private func dueDate() throws -> Date? {
        guard let due else { return nil }
        if let date = try? Date(due, strategy: .iso8601) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        guard let date = formatter.date(from: "\(due) 23:59:59") else {
            throw ValidationError("--due takes a day as YYYY-MM-DD or an ISO 8601 date and time, not '\(due)'.")
        }
        return date
    }

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "assign")
            let document = FileArgument.url(for: file)
            guard FileManager.default.fileExists(atPath: document.path) else {
                throw ClassroomError(.fileAccess, "\(file) does not exist; write the document first, then assign it")
            }
            let handout = try Handout(document: document, title: title, className: className, due: try dueDate(),
                                      targetWords: targetWords, isReading: reading, instructions: instructions,
                                      teacher: try RoleGate.identity(of: .teacher))
            let destination = output.map { URL(fileURLWithPath: $0) } ?? Handout.defaultURL(beside: document)
            try handout.write(to: destination)
            do {
                try await storeOptions.dataStore().recordAssignment(handout.assignment)
            } catch {
                try? FileManager.default.removeItem(at: destination)
                throw error
            }
            print("assigned '\(title)' (\(handout.id)); handout: \(destination.path)")
        }
    }
}
