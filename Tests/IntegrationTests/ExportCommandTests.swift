import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// `clsfile export --xapi` through the built binary, for a student and a teacher who each have
/// their own configuration and data folders, as on two machines.
struct ExportCommandTests {
    /// A student who accepted one handout for essay.txt, worked on it and marked it done, and who
    /// also worked on secret-diary.txt, which nobody assigned, and holds a handout never accepted.
    struct ClassSetup {
        let scratch: Scratch
        let student: Person
        let essay: URL
        let diary: URL
        let assignment: Assignment
        let unaccepted: Assignment
        /// The teacher whose key the handouts carry.
        let teacherIdentity = Identity()

        init() async throws {
            scratch = try Scratch()
            student = try Person("student", in: scratch)
            let role = try student.clsfile(arguments: ["role", "student", "--name", "Ada Lovelace"])
            try #require(role.status == 0, "\(role.errorOutput)")
            essay = try scratch.file("essay.txt", "one two three\n")
            diary = try scratch.file("secret-diary.txt", "my own thoughts\n")
            assignment = Self.handout("Essay on rivers", document: "essay.txt", teacher: teacherIdentity)
            unaccepted = Self.handout("Never accepted", document: "other.txt", teacher: teacherIdentity)

            let store = student.store(.student)
            try await store.acceptAssignment(assignment, for: essay)
            try await store.recordAssignment(unaccepted)
            for (file, words, progress) in [(essay, 3.0, 0.5), (diary, 999.0, 0.9)] {
                let activity = try await store.fetchActivity(for: file)
                activity.start()
                activity.stop()
                let count = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
                count.quantity = words
                activity.primaryActivityItem = count
                activity.progress = progress
            }
            try await store.save()
            #expect(try await store.markAssignedActivitiesDone(matching: ["clsfile"]) == 1)
        }

        static func handout(_ title: String, document: String, teacher: Identity) -> Assignment {
            Assignment(
                identifier: UUID().uuidString.lowercased(), title: title, documentName: document,
                documentDigest: String(repeating: "0", count: 64), teacherKey: teacher.recipientPublicKey)
        }

        /// Asserts that nothing of the diary or of the unaccepted handout is in an output.
        func expectNothingUnassigned(in output: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            for secret in [
                "secret-diary", diary.path, diary.resolvingSymlinksInPath().path, unaccepted.identifier,
                unaccepted.title, "other.txt", "Ada", "Lovelace", "mbox"
            ] {
                #expect(!output.contains(secret), "the export contains \(secret)", sourceLocation: sourceLocation)
            }
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
            let verbs = statements.compactMap { ($0["verb"] as? [String: Any])?["id"] as? String }
            #expect(verbs.contains { $0.hasSuffix("/progressed") }, "\(verbs)", sourceLocation: sourceLocation)
            for statement in statements {
                let object = statement["object"] as? [String: Any]
                #expect(
                    object?["id"] as? String == XAPIStatementBuilder.activityIRI(assignment: assignment.identifier),
                    sourceLocation: sourceLocation)
                let extensions = (statement["result"] as? [String: Any])?["extensions"] as? [String: Any]
                let verb = (statement["verb"] as? [String: Any])?["id"] as? String ?? ""
                // The progressed statement carries the essay's word count; no other carries one.
                if verb.hasSuffix("/progressed") {
                    #expect(
                        extensions?[XAPIStatementBuilder.wordCountExtension] as? Int == 3,
                        "a word count that is not the essay's", sourceLocation: sourceLocation)
                } else {
                    #expect(extensions?[XAPIStatementBuilder.wordCountExtension] == nil, "\(verb)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func aStudentExportsOnlyTheirAssignedWorkAsValidStatements() async throws {
        let classroom = try await ClassSetup()
        let result = try classroom.student.clsfile(arguments: ["export", "--xapi"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(XAPIValidator.problems(inExport: Data(result.output.utf8)) == [])
        try classroom.expectNothingUnassigned(in: result.output)

        let statements = try JSONDecoder().decode([XAPIStatement].self, from: Data(result.output.utf8))
        #expect(statements.compactMap { $0.verb.display["en-US"] }.sorted() == ["completed", "initialized", "progressed", "terminated"])
        let account = try classroom.student.mode.accountIdentifier
        #expect(statements.allSatisfy { $0.actor.account.homePage == "https://clsfile.invalid" && $0.actor.account.name == account })
        let progressed = try #require(statements.first { $0.verb.id == "http://adlnet.gov/expapi/verbs/progressed" })
        #expect(progressed.result?.extensions == [XAPIStatementBuilder.progressExtension: 50, XAPIStatementBuilder.wordCountExtension: 3])
        #expect(statements.first { $0.verb.id.hasSuffix("/completed") }?.result?.completion == true)

        let again = try classroom.student.clsfile(arguments: ["export", "--xapi"])
        #expect(again.output == result.output, "a second export is byte for byte the first")

        let file = classroom.scratch.url.appendingPathComponent("statements.json")
        let written = try classroom.student.clsfile(arguments: ["export", "--xapi", "--output", file.path])
        #expect(written.status == 0, "\(written.errorOutput)")
        #expect(written.output == "wrote 4 xAPI statements to \(file.path)\n")
        #expect(try Data(contentsOf: file) == Data(result.output.utf8))

        let school = try classroom.student.clsfile(arguments: ["export", "--xapi", "--home-page", "https://school.example"])
        #expect(school.output.contains(#""homePage" : "https://school.example""#))
        #expect(XAPIValidator.problems(inExport: Data(school.output.utf8)) == [])
    }

    @Test func theTeachersExportOfTheCollectedWorkIsTheStudentsExport() async throws {
        let classroom = try await ClassSetup()
        let teacher = try Person("teacher", in: classroom.scratch)
        #expect(try teacher.clsfile(arguments: ["role", "teacher"]).status == 0)
        try await teacher.store(.teacher).recordAssignment(classroom.assignment)

        // A submission keeps whole seconds, so a session that ends in the second of the submission
        // is taken as still running (see XAPIStatementBuilder.statements(for:)); a student submits
        // later than that.
        let fraction = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1)
        try await Task.sleep(for: .seconds(1.05 - fraction))
        let folder = classroom.scratch.url.appendingPathComponent("handin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = try await Submitter(
            store: classroom.student.store(.student), student: try classroom.student.mode,
            identity: Identity()
        ).submit(to: folder)
        #expect(files.count == 1)
        let outcomes = try await Collector(store: teacher.store(.teacher), teacher: classroom.teacherIdentity).collect(folder: folder)
        #expect(outcomes.count == 1)

        let result = try teacher.clsfile(arguments: ["export", "--xapi"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(XAPIValidator.problems(inExport: Data(result.output.utf8)) == [])
        try classroom.expectNothingUnassigned(in: result.output)
        #expect(
            result.output == (try classroom.student.clsfile(arguments: ["export", "--xapi"])).output,
            "the same work gives the same statements, so sending both changes nothing")
        #expect(try teacher.clsfile(arguments: ["export", "--xapi"]).output == result.output)
    }

    @Test func aTeacherWithNothingCollectedExportsAnEmptyArray() throws {
        let teacher = try Person("teacher", in: try Scratch())
        #expect(try teacher.clsfile(arguments: ["role", "teacher"]).status == 0)
        let result = try teacher.clsfile(arguments: ["export", "--xapi"])
        #expect(result.status == 0, "\(result.errorOutput)")
        // The pretty-printing encoder of swift-foundation writes an empty array over two lines.
        #expect(result.output == "[\n\n]\n")
    }

    // MARK: Errors

    @Test func withDevelopmentModeOffExportIsRefused() throws {
        let person = try Person("nobody", in: try Scratch())
        let result = try person.clsfile(arguments: ["export", "--xapi"], expecting: 64)
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("development mode is off"))
        #expect(result.errorOutput.contains("clsfile role student"))
        #expect(result.output.isEmpty)
    }

    @Test func withoutXAPITheUsageErrorNamesTheOnlyFormat() throws {
        let person = try Person("nobody", in: try Scratch())
        let result = try person.clsfile(arguments: ["export"], expecting: 64)
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("the only export format is xAPI"))
    }

    @Test(arguments: ["school.example", "ftp://school.example", "https://", "not a url"])
    func aHomePageThatIsNotAnAddressIsRefused(homePage: String) throws {
        let person = try Person("nobody", in: try Scratch())
        let result = try person.clsfile(arguments: ["export", "--xapi", "--home-page", homePage], expecting: 64)
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("--home-page must be an absolute http or https address"))
    }

    @Test func aStudentWithNoAcceptedAssignmentIsTold() throws {
        let student = try Person("student", in: try Scratch())
        #expect(try student.clsfile(arguments: ["role", "student", "--name", "Ada"]).status == 0)
        let result = try student.clsfile(arguments: ["export", "--xapi"], expecting: 66)
        #expect(result.status == 66)
        #expect(result.errorOutput.contains("no accepted assignments"))
    }

    @Test func anOutputThatCannotBeWrittenIsNamed() async throws {
        let classroom = try await ClassSetup()
        let missing = classroom.scratch.url.appendingPathComponent("no/such/folder/out.json").path
        let result = try classroom.student.clsfile(arguments: ["export", "--xapi", "--output", missing], expecting: 66)
        #expect(result.status == 66)
        #expect(result.errorOutput.contains("cannot write \(missing)"))
    }

    @Test func helpDescribesTheCommand() throws {
        let person = try Person("nobody", in: try Scratch())
        let result = try person.clsfile(arguments: ["export", "--help"])
        #expect(result.status == 0)
        for text in [
            "--xapi", "--output <file>", "--home-page <iri>", "initialized", "terminated", "progressed", "completed",
            "https://w3id.org/xapi/cmi5/result/extensions/progress", "Exit codes"
        ] {
            #expect(result.output.contains(text), "help lacks \(text)")
        }
        #expect(try person.clsfile(arguments: ["--help"]).output.contains("export"))
    }
}
