import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile assign FILE --title T`: a teacher hands a document out.
struct AssignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Hand a document, or a context of an imported course, out: record the assignment and write its handout files (teacher).",
        discussion: """
            Writes FILE.clshandout beside the document (or at --output): share both with the class, \
            the way Schoolwork shares a folder per handout. A student accepts it with \
            `clsfile accept`, or `clsfile open` finds it beside the document. The handout holds \
            your public key, to which what students send back with `clsfile submit` is sealed.

            With --context PATH (a context of a course imported with `clsfile contexts import`), \
            every document at or below that context is handed out, one handout beside each, all \
            carrying the course's contexts: a student's work on any of them counts toward the \
            context, and `clsfile class-report` shows the context's averages and each document's row.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("What the students see as the assignment's title.", valueName: "title"))
    var title: String

    @Option(name: .customLong("class"), help: ArgumentHelp("The class it is for.", valueName: "name"))
    var className: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The due day, YYYY-MM-DD (local time, end of the day), or an ISO 8601 date and time.",
            valueName: "date"))
    var due: String?

    // Unconditional, so that `--target-words -5` is refused as a count rather than as a missing value.
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "The number of words asked for; students' progress is measured toward it.",
            valueName: "n"))
    var targetWords: Int?

    @Flag(
        name: .long,
        help: "A reading assignment: students' progress is the share of the document they have viewed (through an editor plugin).")
    var reading = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Ask for process evidence with the work: 'figures' (each session's time, words, typed and pasted characters) or 'replay' (the figures and the snapshots of the text). Students are told on accepting; without it, no history leaves their machines.",
            valueName: "figures|replay"))
    var processEvidence: ProcessEvidence?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "With --process-evidence: how many days your store and the class server keep the writing history of submitted work after it last changed (default \(ProcessEvidence.defaultKeptDays)); then it is deleted and the figures stay. Students are told on accepting.",
            valueName: "days"))
    var keepEvidence: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Ask students to say how they used AI tools (none, ideas, feedback, editing or drafting, and their own words): 'required' refuses a submission without it, 'optional' leaves it to them. Students are told on accepting; reports show their words, never a verdict.",
            valueName: "required|optional"))
    var aiStatement: AIStatement.Requirement?

    @Option(name: .long, help: ArgumentHelp("What the students are asked to do.", valueName: "text"))
    var instructions: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where to write the handout; FILE.clshandout beside the document by default.",
            valueName: "path"))
    var output: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A class server to register the assignment with (for --class, or the only class you teach there): students' work reaches the class only on registered assignments.",
            valueName: "url"))
    var server: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A context of an imported course to hand out, as its identifiers joined by '/' (algebra/ch1), in place of a file.",
            valueName: "path"))
    var context: String?

    @Argument(help: ArgumentHelp("The document to hand out.", valueName: "file"))
    var file: String?

    func validate() throws {
        switch (file, context) {
        case (nil, nil): throw ValidationError("Give the document to hand out, or --context PATH for a context of an imported course.")
        case (.some, .some): throw ValidationError("Give a document or --context, not both.")
        case (nil, .some) where output != nil:
            throw ValidationError("--output names one handout; with --context each handout is written beside its document.")
        default: break
        }
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--title cannot be empty.") }
        if let targetWords, targetWords <= 0 {
            throw ValidationError("--target-words must be a positive number of words, not \(targetWords).")
        }
        if reading, targetWords != nil {
            throw ValidationError("Give --target-words for writing or --reading for reading, not both: progress has one basis.")
        }
        if let keepEvidence {
            guard processEvidence != nil else {
                throw ValidationError(
                    "--keep-evidence says how long process evidence is kept: give it with --process-evidence figures|replay.")
            }
            guard (1...ProcessEvidence.maximumKeptDays).contains(keepEvidence) else {
                throw ValidationError(
                    "--keep-evidence must be a number of days from 1 to \(ProcessEvidence.maximumKeptDays), not \(keepEvidence).")
            }
        }
        _ = try dueDate()
    }

    private func dueDate() throws -> Date? {
        try due.map { try DateArgument.date($0, option: "--due", day: .end) }
    }

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "assign")
            guard let file else { return try await assignContext(context ?? "") }
            let document = FileArgument.url(for: file)
            guard FileManager.default.fileExists(atPath: document.path) else {
                throw ClassroomError(.fileAccess, "\(file) does not exist; write the document first, then assign it")
            }
            let handout = try Handout(
                document: document, title: title, className: className, due: try dueDate(),
                targetWords: targetWords, isReading: reading, instructions: instructions,
                teacher: try RoleGate.identity(of: .teacher), processEvidence: processEvidence,
                aiStatementRequirement: aiStatement, keptEvidenceDays: keepEvidence)
            let destination = output.map { URL(fileURLWithPath: $0) } ?? Handout.defaultURL(beside: document)
            try handout.write(to: destination)
            do {
                try await storeOptions.dataStore().recordAssignment(handout.assignment)
            } catch {
                try? FileManager.default.removeItem(at: destination)
                throw error
            }
            print("assigned '\(title)' (\(handout.id)); handout: \(destination.path)")
            print("   (share \(document.lastPathComponent) and \(destination.lastPathComponent) with the class)")
            try register([handout.id])
        }
    }

    /// Hands out every document at or below a context of an imported course, one handout each.
    private func assignContext(_ pathText: String) async throws {
        let store = storeOptions.dataStore()
        let path = pathText.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !path.isEmpty, let assigned = try await store.mainAppContext.descendant(matchingIdentifierPath: path) else {
            throw CLSError(
                .invalidArgument,
                "no context \(pathText) in \(store.storeURL.path): import the course with `clsfile contexts import MANIFEST.json`; `clsfile contexts` lists what is there"
            )
        }
        guard assigned.isAssignable else {
            throw CLSError(
                .invalidArgument,
                "the context \(pathText) is not assignable (the course marks it as a container); assign one of its children: `clsfile contexts \(path.joined(separator: " "))` lists them"
            )
        }
        let full = assigned.identifierPath
        let below = try await store.contexts(
            matching: NSPredicate { context, _ in
                guard let contextPath = (context as? CLSContext)?.identifierPath else { return false }
                return contextPath.count > full.count && contextPath.starts(with: full)
            })
        var ancestors: [CLSContext] = []
        var parent = assigned.parent
        while let context = parent, context.parent != nil {
            ancestors.insert(context, at: 0)
            parent = context.parent
        }
        let entries = (ancestors + [assigned] + below).map { CourseManifest.Entry(data: CourseManifest.ContextData(describing: $0)) }
        let documents = ([assigned] + below).filter { $0.fileURL != nil }
        guard !documents.isEmpty else {
            throw CLSError(
                .invalidArgument,
                "the context \(pathText) has no documents at or below it: name them in the course manifest (\"document\": \"FILE\") and import it again"
            )
        }
        let teacher = try RoleGate.identity(of: .teacher)
        var written: [(url: URL, handout: Handout)] = []
        var recorded: [String] = []
        do {
            for context in documents {
                guard let url = context.fileURL, FileManager.default.fileExists(atPath: url.path) else {
                    throw ClassroomError(
                        .fileAccess,
                        "the document of \(context.identifierPath.dropFirst().joined(separator: "/")) is not at \(context.fileURL?.path ?? "its path") any more; put it back, or import the manifest again"
                    )
                }
                let course = Handout.Course(
                    assignedPath: Array(full.dropFirst()), documentPath: Array(context.identifierPath.dropFirst()),
                    contexts: entries)
                let handout = try Handout(
                    document: url, title: context === assigned ? title : "\(title): \(context.title)",
                    className: className, due: try dueDate(), targetWords: targetWords, isReading: reading,
                    instructions: instructions, teacher: teacher, course: course,
                    processEvidence: processEvidence, aiStatementRequirement: aiStatement, keptEvidenceDays: keepEvidence)
                let destination = Handout.defaultURL(beside: url)
                try handout.write(to: destination)
                written.append((destination, handout))
            }
            for (_, handout) in written {
                try await store.recordAssignment(handout.assignment)
                recorded.append(handout.id)
            }
        } catch {
            // All or nothing: no handout is left without its assignment, nor the reverse.
            for (url, _) in written { try? FileManager.default.removeItem(at: url) }
            for identifier in recorded { _ = try? await store.removeAssignment(identifier: identifier) }
            throw error
        }
        print("assigned '\(title)' (\(path.joined(separator: " › "))): \(written.count) \(written.count == 1 ? "document" : "documents")")
        for (url, handout) in written { print("  \(handout.document.name): \(url.path)") }
        try register(recorded)
    }

    /// Registers assignments with the class server of `--server`, if given.
    private func register(_ identifiers: [String]) throws {
        guard let server else { return }
        var arguments =
            ["register", "--server", server] + (className.map { ["--class", $0] } ?? []) + identifiers.flatMap { ["--assignment", $0] }
        if let store = storeOptions.store { arguments += ["--store", store] }
        let status = try HelperProgram.sync.run(arguments, for: "assign --server")
        guard status == 0 else {
            Diagnostics.warn(
                "the assignment is made and its handout written, but it is not registered with \(server) (above): once that is fixed, run clsfile register --server \(server)\(className.map { " --class \($0)" } ?? "")"
            )
            throw ExitCode(status)
        }
    }
}

extension ProcessEvidence: ExpressibleByArgument {}
