import Classroom
import Foundation
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// The whole assignment round trip with one teacher and two students, each with their own stores.
struct AssignmentRoundTripTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The work inside a submission file, opened with the teacher's key.
    private func work(in file: URL, handout: Handout, teacher: Person) throws -> StudentWork {
        try SubmissionFile.read(from: file).openWork(with: handout.assignment, teacher: teacher.identity(.teacher), file: file).work
    }

    @Test func roundTripWithTwoStudentsAndOneTeacher() async throws {
        let scratch = try Scratch()
        let (teacher, ada, bob) = try Person.classOfThree(in: scratch)

        // The teacher hands out a document.
        let shared = scratch.url.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let original = shared.appendingPathComponent("essay.md")
        try Data("# Rivers\n\n- [ ] introduction\n- [ ] sources\n".utf8).write(to: original)
        let assigned = try teacher.clsfile(
            "assign", original.path, "--title", "Essay on rivers", "--class", "7B",
            "--due", "2026-12-01", "--target-words", "40", "--instructions", "Write about a river.")
        let handoutURL = shared.appendingPathComponent("essay.md.clshandout")
        #expect(assigned.output.contains(handoutURL.path))
        #expect(assigned.output.contains("(share essay.md and essay.md.clshandout with the class)"), "as README shows: \(assigned.output)")
        let handout = try Handout.read(from: handoutURL)
        let teacherKey = try teacher.identity(.teacher).recipientPublicKey
        #expect(handout.targetWords == 40 && handout.className == "7B" && handout.teacherKey == teacherKey)

        // Each student gets a copy of the folder. Ada accepts; Bob's `clsfile open` finds the handout.
        var essays: [URL] = []
        for name in ["ada", "bob"] {
            let folder = scratch.url.appendingPathComponent("\(name)-work")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in ["essay.md", "essay.md.clshandout"] {
                try FileManager.default.copyItem(at: shared.appendingPathComponent(file), to: folder.appendingPathComponent(file))
            }
            essays.append(folder.appendingPathComponent("essay.md"))
        }
        try ada.clsfile("accept", scratch.url.appendingPathComponent("ada-work/essay.md.clshandout").path)
        try ada.edit(essays[0], appending: "The Nile is the longest river in Africa and it floods every summer.")
        let bobOpen = try bob.clsfile(
            "open", "--no-pty", "--editor",
            "sh -c \"sleep 0.3; : >> \\\"$0\\\"; sleep 1.1; echo Rivers carry water to the sea. >> \\\"$0\\\"\"", essays[1].path)
        #expect(bobOpen.errorOutput.contains("accepted the handout 'Essay on rivers'"))
        #expect(try await bob.store(.student).isAssignedDocument(essays[1]))

        // Ada also works on a file of her own, which must never reach the teacher.
        let diary = scratch.url.appendingPathComponent("ada-work/diary-secret.txt")
        try Data("dear diary\n".utf8).write(to: diary)
        try ada.edit(diary, appending: "nobody reads this")
        #expect(try await ada.store(.student).isAssignedDocument(diary) == false)

        try ada.clsfile("done", essays[0].path)
        let notAssigned = try ada.clsfile("done", diary.path, expecting: 66)
        #expect(notAssigned.errorOutput.contains("not an assigned document"))

        // Both submit into the teacher's inbox.
        let inbox = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try ada.clsfile("submit", "--output", inbox.path)
        try bob.clsfile("submit", "--output", inbox.path)
        let files = try FileManager.default.contentsOfDirectory(at: inbox, includingPropertiesForKeys: nil).sorted { $0.path < $1.path }
        #expect(files.count == 2)
        for file in files {
            let raw = try String(contentsOf: file, encoding: .utf8)
            #expect(!raw.contains("diary") && !raw.contains("nobody reads this") && !raw.contains(scratch.url.path))
            let work = try work(in: file, handout: handout, teacher: teacher)
            #expect(work.documentName == "essay.md")
            let decoded = String(decoding: try JSONEncoder().encode(work), as: UTF8.self)
            #expect(!decoded.contains("diary") && !decoded.contains(scratch.url.path))
        }

        // The teacher collects twice: the second time changes nothing.
        let first = try teacher.clsfile("collect", inbox.path)
        #expect(first.output.components(separatedBy: "added: ").count == 3, "\(first.output)")
        let before = try await teacher.store(.teacher).submissions(forAssignment: handout.id)
        let second = try teacher.clsfile("collect", inbox.path)
        #expect(second.output.components(separatedBy: "unchanged: ").count == 3, "\(second.output)")
        let submissions = try await teacher.store(.teacher).submissions(forAssignment: handout.id)
        #expect(submissions.count == 2 && submissions == before)

        // The class report shows the averages of what the store holds, and only the assignment.
        let report = try json(try teacher.clsfile("class-report", "--json").output)
        let assignments = try #require(report["assignments"] as? [[String: Any]])
        #expect(assignments.count == 1)
        let summary = assignments[0]
        #expect(summary["studentCount"] as? Int == 2 && summary["doneCount"] as? Int == 1)
        let held = try submissions.map { try JSONDecoder.iso8601.decode(StudentWork.self, from: $0.payload) }
        let words = held.compactMap { $0.primaryItem?.value }
        #expect(words.count == 2 && words.allSatisfy { $0 > 5 })
        let averages = try #require(summary["primaryAverages"] as? [[String: Any]])
        #expect(averages.count == 1 && summary["warning"] == nil)
        #expect(abs((averages[0]["average"] as? Double ?? -1) - words.reduce(0, +) / 2) < 1e-9)
        let time = held.map(\.activeSeconds).reduce(0, +) / 2
        #expect(abs((summary["averageActiveSeconds"] as? Double ?? -1) - time) < 1e-6)
        #expect(held.allSatisfy { $0.activeSeconds >= 1 })
        // Each student's own store agrees with what the teacher sees.
        let adaWords = try #require(try await ada.store(.student).existingActivity(for: essays[0])?.primaryActivityItem as? CLSQuantityItem)
        #expect(held.contains { $0.primaryItem?.value == adaWords.quantity && $0.isDone })

        let text = try teacher.clsfile("class-report").output
        #expect(text.contains("Essay on rivers") && text.contains("Ada Lovelace") && text.contains("Bob Moses"))
        #expect(text.contains("2 students, 1 done"))
        let detail = try teacher.clsfile("class-report", "--student", "Ada Lovelace").output
        #expect(detail.contains("Readability Grade") && detail.contains("Sessions:") && detail.contains("Done:       yes"))
        for output in [text, detail, try teacher.clsfile("class-report", "--json").output] {
            #expect(!output.contains("diary") && !output.contains("nobody reads this"))
        }

        // The dashboard shows the same class in a browser, and nothing else.
        let server = try await ServerProcess(["--port", "0"], environment: teacher.environment, in: scratch.url)
        let classPage = try await Chromium.dumpDOM(server.url, in: scratch.url)
        let assignmentPage = try await Chromium.dumpDOM("http://127.0.0.1:\(server.port)/assignments/\(handout.id)", in: scratch.url)
        #expect(await server.stop() == 0)
        #expect(classPage.contains("Essay on rivers"))
        #expect(assignmentPage.contains("Ada Lovelace") && assignmentPage.contains("Bob Moses"))
        for page in [classPage, assignmentPage] {
            #expect(!page.contains("diary") && !page.contains("nobody reads this"))
        }

        // xAPI from either side: only the assignment, never the diary.
        for person in [ada, teacher] {
            let export = try person.clsfile("export", "--xapi").output
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(export.utf8)) as? [[String: Any]])
            #expect(!statements.isEmpty)
            #expect(!export.contains("diary") && !export.contains("nobody reads this") && !export.contains(scratch.url.path))
        }

        // Roles keep their data apart: the teacher's store has no student files, a student's no submissions.
        #expect(try await teacher.store(.teacher).allActivities().isEmpty)
        #expect(try await ada.store(.student).allActivities().count == 2)
        #expect(try await ada.store(.off).allActivities().isEmpty)
        #expect(try teacher.clsfile("list").output.contains("No activity"))
    }

    @Test func aReadingAssignmentMeasuresTheShareViewedThroughAPlugin() async throws {
        let scratch = try Scratch()
        let teacher = try Person("teacher", in: scratch), student = try Person("student", in: scratch)
        try teacher.clsfile("role", "teacher")
        let chapter = try scratch.file("chapter.txt", String(repeating: "A line to read.\n", count: 10))
        let both = try teacher.clsfile(
            "assign", chapter.path, "--title", "Read", "--reading", "--target-words", "5",
            expecting: 64)
        #expect(both.errorOutput.contains("not both"), "\(both.errorOutput)")
        try teacher.clsfile("assign", chapter.path, "--title", "Read chapter 1", "--reading")
        let handout = try Handout.read(from: Handout.defaultURL(beside: chapter))
        #expect(handout.reading == true)

        try student.clsfile("role", "student", "--name", "Ada Lovelace")
        try student.clsfile("accept", Handout.defaultURL(beside: chapter).path)
        // What a plugin sends while the student reads lines 1–4 of 10.
        for arguments in [["open"], ["view", "--view", "1-4", "--total-lines", "10"], ["close"]] {
            try student.clsfile(arguments: ["hook", arguments[0], chapter.path] + Array(arguments.dropFirst()))
        }
        let shown = try json(try student.clsfile("show", "--json", chapter.path).output)
        #expect(shown["progressBasis"] as? String == "viewed_share", "\(shown)")
        #expect(abs((shown["progress"] as? Double ?? 0) - 0.4) < 1e-9, "\(shown)")
    }

    @Test func editedDamagedForeignAndUnknownSubmissionsAreRefused() async throws {
        let scratch = try Scratch()
        let teacher = try Person("teacher", in: scratch), ada = try Person("ada", in: scratch)
        try teacher.clsfile("role", "teacher")
        try ada.clsfile("role", "student", "--name", "Ada")
        let essay = try scratch.file("essay.txt", "one two three\n")
        try teacher.clsfile("assign", essay.path, "--title", "Essay")
        try ada.clsfile("accept", scratch.url.appendingPathComponent("essay.txt.clshandout").path)
        let inbox = scratch.url.appendingPathComponent("inbox"), good = scratch.url.appendingPathComponent("good")
        for folder in [inbox, good] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let submitted = try ada.clsfile("submit", "--output", good.path).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let original = try Data(contentsOf: URL(fileURLWithPath: submitted))

        // An edited header (another name), a flipped byte in the sealed part, junk, a truncated
        // file, and work sealed for a handout the teacher never made.
        var header = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        header["studentName"] = "Mallory"
        try JSONSerialization.data(withJSONObject: header).write(to: inbox.appendingPathComponent("a-edited.clssubmission"))
        var sealed = try #require(Data(base64Encoded: header["sealed"] as? String ?? ""))
        sealed[sealed.count / 2] ^= 0x01
        header["studentName"] = "Ada"
        header["sealed"] = sealed.base64EncodedString()
        try JSONSerialization.data(withJSONObject: header).write(to: inbox.appendingPathComponent("b-flipped.clssubmission"))
        try Data("not json at all".utf8).write(to: inbox.appendingPathComponent("c-junk.clssubmission"))
        try original.prefix(original.count / 2).write(to: inbox.appendingPathComponent("d-truncated.clssubmission"))
        let stranger = try Handout(document: essay, title: "Not yours", teacher: Identity())
        let foreign = try SubmissionFile(
            work: StudentWork(
                assignmentIdentifier: stranger.id, documentName: "essay.txt",
                activeSeconds: 5, sessions: [], progress: 0.5, primaryItem: nil,
                additionalItems: [], completedAt: nil),
            handout: stranger.assignment, student: "x", studentName: "Eve", identity: Identity())
        try foreign.write(to: inbox.appendingPathComponent("e-foreign.clssubmission"))

        let result = try teacher.clsfile("collect", inbox.path, expecting: 65)
        #expect(result.output.isEmpty)
        let refusals = result.errorOutput.split(separator: "\n")
        #expect(refusals.count == 5, "\(result.errorOutput)")
        #expect(refusals[0].contains("a-edited") && refusals[0].contains("changed or damaged after the student signed it"))
        #expect(refusals[1].contains("b-flipped") && refusals[1].contains("changed or damaged after the student signed it"))
        #expect(refusals[2].contains("c-junk") && refusals[2].contains("not a clsfile submission"))
        #expect(refusals[3].contains("d-truncated"))
        #expect(refusals[4].contains("e-foreign") && refusals[4].contains("not one of yours"))
        #expect(
            try await teacher.store(.teacher).submissions(
                forAssignment: try #require(teacher.store(.teacher).assignments().first).identifier
            ).isEmpty)

        // The good file still goes in, next to refused ones.
        try FileManager.default.copyItem(at: URL(fileURLWithPath: submitted), to: inbox.appendingPathComponent("f-good.clssubmission"))
        let mixed = try teacher.clsfile("collect", inbox.path, expecting: 65)
        #expect(mixed.output.contains("added: f-good.clssubmission (Ada, 'Essay')"))
    }

    @Test func primaryItemsOfDifferentKindsAreAveragedApartWithAWarning() async throws {
        let scratch = try Scratch()
        let store = scratch.store()
        let document = try scratch.file("quiz.txt")
        let teacher = Identity()
        let handout = try Handout(document: document, title: "Quiz", teacher: teacher)
        try await store.recordAssignment(handout.assignment)
        let folder = scratch.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let primaries: [(String, StudentWork.Item)] = [
            ("Ann", .init(kind: "quantity", identifier: "total_word_count", title: "Word Count", value: 300)),
            ("Ben", .init(kind: "quantity", identifier: "total_word_count", title: "Word Count", value: 500)),
            ("Cy", .init(kind: "score", identifier: "quiz", title: "Quiz Score", value: 7, maxScore: 10))
        ]
        for (name, item) in primaries {
            let work = StudentWork(
                assignmentIdentifier: handout.id, documentName: "quiz.txt", activeSeconds: 60,
                sessions: [], progress: 1, primaryItem: item, additionalItems: [], completedAt: nil)
            try SubmissionFile(
                work: work, handout: handout.assignment, student: name.lowercased(), studentName: name,
                identity: Identity()
            )
            .write(to: folder.appendingPathComponent("\(name).clssubmission"))
        }
        let outcomes = try await Collector(store: store, teacher: teacher).collect(folder: folder)
        #expect(outcomes.map { try? $0.result.get() } == [.added, .added, .added])

        let summary = try #require(try await ClassReport(store: store).assignments.first)
        #expect(summary.primaryAverages.map(\.key) == ["quantity:total_word_count", "score:quiz"])
        #expect(summary.primaryAverages.map(\.average) == [400, 7])
        #expect(summary.primaryAverages.map(\.count) == [2, 1])
        #expect(summary.warning?.contains("2 different kinds") == true)
    }

    @Test func badInputGetsAMessageThatNamesThePathAndWhatToDo() async throws {
        let scratch = try Scratch()
        let teacher = try Person("teacher", in: scratch), ada = try Person("ada", in: scratch)
        try teacher.clsfile("role", "teacher")
        try ada.clsfile("role", "student", "--name", "Ada")
        let missing = scratch.url.appendingPathComponent("nowhere.txt").path
        #expect(
            try teacher.clsfile("assign", missing, "--title", "T", expecting: 66).errorOutput
                .contains("\(missing) does not exist; write the document first"))
        #expect(
            try teacher.clsfile("collect", missing, expecting: 66).errorOutput
                .contains("cannot list \(missing)"))
        #expect(
            try ada.clsfile("submit", "--output", missing, expecting: 66).errorOutput
                .contains("\(missing) is not a folder; create it or pass another --output"))
        #expect(try ada.clsfile("submit", expecting: 66).errorOutput.contains("no accepted assignments in"))

        // Assignments are named by identifier, prefix or title; a name that fits none says where it looked.
        let essay = try scratch.file("essay.txt"), poem = try scratch.file("poem.txt")
        try teacher.clsfile("assign", essay.path, "--title", "Essay")
        try teacher.clsfile("assign", poem.path, "--title", "Poem")
        let store = DeveloperMode.storeURL(for: .teacher, dataHome: teacher.home.appendingPathComponent("data/clsfile")).path
        let again = try teacher.clsfile("assign", essay.path, "--title", "Essay again", expecting: 66)
        #expect(again.errorOutput.contains("\(essay.path).clshandout already exists; remove it or pass another --output"))
        #expect(
            try teacher.clsfile("assignments", "remove", "Sonnet", expecting: 66).errorOutput
                .contains("no assignment 'Sonnet' in \(store); `clsfile assignments` lists them"))
        #expect(try teacher.clsfile("assignments", "remove", "essay").output.contains("removed 'Essay'"))
        #expect(try teacher.clsfile("class-report", "Essay", expecting: 66).errorOutput.contains("no assignment 'Essay' in your class"))
        #expect(try teacher.clsfile("class-report", "poem").output.contains("Poem"))

        // Damaged development-mode settings: every command says which file and how to mend it,
        // the hook included, and `clsfile role` rewrites them.
        let settings = ada.home.appendingPathComponent("config/clsfile/developer-mode.json")
        try Data("{ damaged".utf8).write(to: settings)
        let expected = "the development-mode settings \(settings.path) are damaged"
        #expect(try ada.clsfile("list", expecting: 66).errorOutput.contains(expected))
        #expect(try ada.clsfile("hook", "edit", essay.path, expecting: 66).errorOutput.contains(expected))
        let rewritten = try ada.clsfile("role", "student", "--name", "Ada")
        #expect(rewritten.errorOutput.contains("writing new settings with a new account identifier"))
        #expect(try ada.mode.role == .student)
        try ada.clsfile("list")
    }

    @Test func rolesAreRequiredAndResetDeletesOnlyTheRolesData() async throws {
        let scratch = try Scratch()
        let person = try Person("pat", in: scratch)
        let essay = try scratch.file("essay.txt")
        let off = try person.clsfile("assign", essay.path, "--title", "T", expecting: 64)
        try Handout(document: essay, title: "Lying here", teacher: Identity()).write(to: Handout.defaultURL(beside: essay))
        let hinted = try person.clsfile("open", "--no-pty", "--editor", "true", essay.path)
        #expect(hinted.errorOutput.contains("the handout 'Lying here' lies beside") && hinted.errorOutput.contains("not accepted"))
        try FileManager.default.removeItem(at: Handout.defaultURL(beside: essay))
        #expect(off.errorOutput.contains("is for a teacher, and development mode is off"))
        try person.clsfile("role", "student", expecting: 64)
        try person.clsfile("role", "student", "--name", "Pat")
        try person.clsfile("assign", essay.path, "--title", "T", expecting: 64)
        let junk = try scratch.file("junk.clshandout", "{\"format\": \"something else\"}")
        #expect(try person.clsfile("accept", junk.path, expecting: 65).errorOutput.contains("not a clsfile handout"))

        // Data of the student role and of no role stay apart; reset removes only the role's.
        try person.edit(essay, appending: "student work", seconds: 0.1)
        try person.clsfile("role", "off")
        try person.edit(essay, appending: "own work", seconds: 0.1)
        try person.clsfile("role", "student")
        #expect(try person.mode.displayName == "Pat")
        #expect(try await person.store(.student).allActivities().count == 1)
        #expect(try await person.store(.off).allActivities().count == 1)
        let refused = try person.clsfile("reset", expecting: 64)
        #expect(refused.errorOutput.contains("pass --yes"))
        let declined = try person.clsfileInTerminal("reset", typing: "no")
        #expect(
            declined.status == 1 && declined.output.contains("Type student to confirm") && declined.output.contains("nothing was deleted"))
        #expect(try await person.store(.student).allActivities().count == 1)
        let confirmed = try person.clsfileInTerminal("reset", typing: "student")
        #expect(confirmed.status == 0 && confirmed.output.contains("deleted the student data"), "\(confirmed.output)")
        #expect(try await person.store(.student).allActivities().isEmpty)
        #expect(try await person.store(.off).allActivities().count == 1)
        try person.clsfile("role", "off")
        try person.clsfile("reset", "--yes", expecting: 64)
        #expect(try await person.store(.off).allActivities().count == 1)
    }
}

extension JSONDecoder {
    fileprivate static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
