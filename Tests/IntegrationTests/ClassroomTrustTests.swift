import Classroom
import CommandSupport
import Crypto
import Foundation
import OpenClassKit
import ProgramBasics
import Testing
import TestSupport

/// A hostile classmate, who holds the same handout as everyone, cannot forge, read, crash or
/// redirect anyone's work: each finding of the review of issue 16, through the real CLI.
struct ClassroomTrustTests {
    /// A teacher who handed out essay.txt, and students who accepted it in folders of their own.
    private struct Classroom {
        let scratch: Scratch
        let teacher: Person
        let handout: URL
        let inbox: URL

        init() throws {
            scratch = try Scratch()
            teacher = try Person("teacher", in: scratch)
            try teacher.clsfile("role", "teacher")
            let essay = try scratch.file("essay.txt", "one two three\n")
            try teacher.clsfile("assign", essay.path, "--title", "Essay")
            handout = Handout.defaultURL(beside: essay)
            inbox = scratch.url.appendingPathComponent("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        }

        /// A student with their own copy of the folder, who accepted the handout and edited the essay.
        func student(_ name: String, words: String = "my own words") throws -> (person: Person, essay: URL) {
            let person = try Person(name.lowercased(), in: scratch)
            try person.clsfile("role", "student", "--name", name)
            let folder = scratch.url.appendingPathComponent("\(name.lowercased())-work")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for file in ["essay.txt", "essay.txt.clshandout"] {
                try FileManager.default.copyItem(at: scratch.url.appendingPathComponent(file), to: folder.appendingPathComponent(file))
            }
            let essay = folder.appendingPathComponent("essay.txt")
            try person.clsfile("accept", folder.appendingPathComponent("essay.txt.clshandout").path)
            try person.edit(essay, appending: words, seconds: 0.1)
            return (person, essay)
        }

        func classReport() throws -> String { try teacher.clsfile("class-report", "--json").output }
    }

    // MARK: Forging (finding 2)

    @Test func aClassmateWithACopiedIdentifierIsAConflictAndTheReportIsUnchanged() async throws {
        let room = try Classroom()
        let (ada, essay) = try room.student("Ada")
        try ada.clsfile("submit", "--output", room.inbox.path)
        #expect(try room.teacher.clsfile("collect", room.inbox.path).output.contains("added: "))
        let before = try room.classReport()

        // Mallory copies Ada's account identifier into her own settings and submits, later than Ada.
        let (mallory, _) = try room.student("Mallory", words: "forged forged forged forged forged")
        var settings = try mallory.mode
        settings.accountIdentifier = try ada.mode.accountIdentifier
        settings.displayName = "Ada"
        try settings.save(to: mallory.home.appendingPathComponent("config/clsfile/developer-mode.json"))
        let forgeries = room.scratch.url.appendingPathComponent("forgeries")
        try FileManager.default.createDirectory(at: forgeries, withIntermediateDirectories: true)
        try mallory.clsfile("submit", "--output", forgeries.path)

        let collected = try room.teacher.clsfile("collect", forgeries.path, expecting: 65)
        let line = collected.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("conflict: ") && line.contains("kept aside, not imported"), "\(collected.output)")
        let malloryKey = Identity.fingerprint(of: try mallory.identity(.student).signingPublicKey)
        let adaKey = Identity.fingerprint(of: try ada.identity(.student).signingPublicKey)
        #expect(line.contains(malloryKey) && line.contains(adaKey))
        #expect(!collected.output.contains("updated") && !collected.output.contains("added"))

        // The report's figures are Ada's; the forgery is listed apart, with its key.
        let after = try JSONSerialization.jsonObject(with: Data(try room.classReport().utf8)) as? [String: Any]
        let summary = try #require((after?["assignments"] as? [[String: Any]])?.first)
        let students = try #require(summary["students"] as? [[String: Any]])
        let original = try #require(
            ((try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [String: Any])?["assignments"] as? [[String: Any]])?.first)
        #expect(NSDictionary(dictionary: students[0]).isEqual(to: (original["students"] as? [[String: Any]])?[0] ?? [:]))
        #expect((summary["keptAside"] as? [[String: Any]])?.count == 1)
        let text = try room.teacher.clsfile("class-report").output
        #expect(text.contains("kept aside: Ada") && text.contains("clsfile trust-key"))

        // Ada's own later work still goes in: the forgery superseded nothing. She writes more
        // first, so that her submission differs from the one collected (the same work again
        // would be "unchanged", and then nothing shows whether a later file is taken).
        try ada.edit(essay, appending: "and a later paragraph", seconds: 0.1)
        try ada.clsfile("submit", "--output", room.inbox.path)
        let again = try room.teacher.clsfile("collect", room.inbox.path)
        #expect(again.output.hasPrefix("updated: ") && again.output.components(separatedBy: "\n").count == 2, "\(again.output)")
    }

    @Test func workDatedInTheFutureIsAConflictNotAnUpdate() async throws {
        let room = try Classroom()
        let (ada, _) = try room.student("Ada")
        try ada.clsfile("submit", "--output", room.inbox.path)
        try room.teacher.clsfile("collect", room.inbox.path)
        let before = try room.classReport()

        // Ada's own key, but a date a year ahead: it would otherwise win over every later file.
        let assignment = try #require(try await ada.store(.student).assignments().first)
        let work = StudentWork(
            assignmentIdentifier: assignment.identifier, documentName: "essay.txt", activeSeconds: 60,
            sessions: [], progress: 1, primaryItem: nil, additionalItems: [], completedAt: nil)
        let later = room.scratch.url.appendingPathComponent("later")
        try FileManager.default.createDirectory(at: later, withIntermediateDirectories: true)
        try SubmissionFile(
            work: work, handout: assignment, student: try ada.mode.accountIdentifier, studentName: "Ada",
            identity: try ada.identity(.student), submittedAt: Date().addingTimeInterval(365 * 86_400)
        )
        .write(to: later.appendingPathComponent("future.clssubmission"))
        let collected = try room.teacher.clsfile("collect", later.path, expecting: 65)
        #expect(
            collected.output.contains("conflict: future.clssubmission") && collected.output.contains("in the future"),
            "\(collected.output)")
        let report = try JSONSerialization.jsonObject(with: Data(try room.classReport().utf8)) as? [String: Any]
        let students = ((report?["assignments"] as? [[String: Any]])?.first?["students"] as? [[String: Any]]) ?? []
        let original =
            ((try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [String: Any])?["assignments"] as? [[String: Any]])?.first?[
                "students"] as? [[String: Any]] ?? []
        #expect(students.count == 1 && NSDictionary(dictionary: students[0]).isEqual(to: original[0]))
        #expect(((report?["assignments"] as? [[String: Any]])?.first?["keptAside"] as? [[String: Any]])?.count == 1)
    }

    @Test func aTeacherTrustsAStudentsNewKeyOnPurpose() async throws {
        let room = try Classroom()
        let (ada, essay) = try room.student("Ada")
        try ada.clsfile("submit", "--output", room.inbox.path)
        try room.teacher.clsfile("collect", room.inbox.path)

        // A new computer: Ada's keys are new, her account the same.
        try FileManager.default.removeItem(at: Identity.url(for: .student, dataHome: ada.home.appendingPathComponent("data/clsfile")))
        let role = try ada.clsfile("role", "student")
        let fingerprint = Identity.fingerprint(of: try ada.identity(.student).signingPublicKey)
        #expect(role.output.contains("key \(fingerprint)"))
        try ada.edit(essay, appending: "more words on the new computer", seconds: 0.1)
        try ada.clsfile("submit", "--output", room.inbox.path)
        let refused = try room.teacher.clsfile("collect", room.inbox.path, expecting: 65)
        let account = try ada.mode.accountIdentifier
        #expect(refused.output.contains("conflict: ") && refused.output.contains("clsfile trust-key \(account) '\(fingerprint)'"))

        #expect(try room.teacher.clsfile("trust-key", "Ada", "0000 0000", expecting: 66).errorOutput.contains("no submission kept aside"))
        let trusted = try room.teacher.clsfile("trust-key", "Ada", String(fingerprint.prefix(9)))
        #expect(trusted.output.contains("1 updated"), "\(trusted.output)")
        #expect(try room.teacher.clsfile("collect", room.inbox.path).output.contains("unchanged: "))
        let pinned = try await room.teacher.store(.teacher).pinnedKey(forStudent: account)
        let newKey = try ada.identity(.student).signingPublicKey
        #expect(pinned == newKey)
    }

    // MARK: Terminals (finding 6)

    /// A name with an OSC 52 clipboard write, an escape sequence and a newline that would forge a
    /// line: every text output shows them escaped.
    @Test func namesAndTitlesCannotDriveTheTerminalOrForgeLines() async throws {
        let room = try Classroom()
        let hostile = "Ada\u{1B}]52;c;aGVsbG8=\u{07}\u{1B}[2J\nadded: forged.clssubmission (Eve, 'Essay')\u{202E}"
        let ada = try Person("ada", in: room.scratch)
        try ada.clsfile("role", "student", "--name", hostile)
        let folder = room.scratch.url.appendingPathComponent("ada-work")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in ["essay.txt", "essay.txt.clshandout"] {
            try FileManager.default.copyItem(at: room.scratch.url.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        try ada.clsfile("accept", folder.appendingPathComponent("essay.txt.clshandout").path)
        try ada.clsfile("submit", "--output", room.inbox.path)
        let outputs = [
            try room.teacher.clsfile("collect", room.inbox.path), try room.teacher.clsfile("class-report"),
            try room.teacher.clsfile("class-report", "--student", hostile)
        ]
        for result in outputs {
            let text = result.output + result.errorOutput
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(text)")
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("added: forged") }, "\(text)")
        }
        #expect(outputs[0].output.contains("\\x1B]52;c;aGVsbG8=\\x07"), "\(outputs[0].output)")
        #expect(outputs[0].output.split(separator: "\n").count == 1)
        #expect(TerminalText.escaped("plain text, é, 中文") == "plain text, é, 中文")
        #expect(TerminalText.escaped("a\tb\u{9B}c\u{2067}") == "a\\x09b\\x9Bc\\u{2067}")
    }

    // MARK: Reading (findings 12, and the encryption)

    @Test func aClassmateCannotReadAnothersSubmission() async throws {
        let room = try Classroom()
        let (ada, _) = try room.student("Ada", words: "a sentence only the teacher may read")
        let (bob, _) = try room.student("Bob")
        let written = try ada.clsfile("submit", "--output", room.inbox.path).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let file = URL(fileURLWithPath: written)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let raw = try String(contentsOf: file, encoding: .utf8)
        for secret in ["total_word_count", "Word Count", "activeSeconds", "essay.txt"] {
            #expect(!raw.contains(secret), "the file shows \(secret) in clear")
        }

        // Bob holds the handout and his own keys: neither opens Ada's work.
        let submission = try SubmissionFile.read(from: file)
        let assignment = try #require(try await bob.store(.student).assignments().first)
        for key in [try bob.identity(.student), Identity()] {
            #expect(throws: ClassroomError.self) { try submission.openWork(with: assignment, teacher: key, file: file) }
            var recipient = try HPKE.Recipient(
                privateKey: key.agreementKey, ciphersuite: .P256_SHA256_AES_GCM_256,
                info: Data(), encapsulatedKey: submission.encapsulatedKey)
            #expect(throws: (any Error).self) { try recipient.open(submission.sealed, authenticating: Data()) }
        }
        // The teacher does.
        let work = try submission.openWork(with: assignment, teacher: try room.teacher.identity(.teacher), file: file).work
        #expect(work.documentName == "essay.txt" && (work.primaryItem?.value ?? 0) > 0)
    }

    // MARK: Crashing (finding 1)

    @Test func hugeValuesInACorrectlySignedFileAreRefusedAtCollect() async throws {
        let room = try Classroom()
        let (ada, _) = try room.student("Ada")
        try ada.clsfile("submit", "--output", room.inbox.path)
        try room.teacher.clsfile("collect", room.inbox.path)
        let assignment = try #require(try await ada.store(.student).assignments().first)
        let start = Date().addingTimeInterval(-600)
        let hostile = room.scratch.url.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        let works: [(String, StudentWork)] = [
            (
                "time",
                StudentWork(
                    assignmentIdentifier: assignment.identifier, documentName: "essay.txt", activeSeconds: 1e300,
                    sessions: [], progress: 0.5, primaryItem: nil, additionalItems: [], completedAt: nil)
            ),
            (
                "item",
                StudentWork(
                    assignmentIdentifier: assignment.identifier, documentName: "essay.txt", activeSeconds: 60,
                    sessions: [], progress: 0.5,
                    primaryItem: .init(
                        kind: "quantity", identifier: "total_word_count",
                        title: "Word Count", value: 1e300),
                    additionalItems: [], completedAt: nil)
            ),
            (
                "session",
                StudentWork(
                    assignmentIdentifier: assignment.identifier, documentName: "essay.txt", activeSeconds: 60,
                    sessions: [.init(start: start, end: start.addingTimeInterval(1e15))], progress: 0.5,
                    primaryItem: nil, additionalItems: [], completedAt: nil)
            )
        ]
        for (name, work) in works {
            try SubmissionFile(
                work: work, handout: assignment, student: try ada.mode.accountIdentifier, studentName: "Ada",
                identity: try ada.identity(.student)
            )
            .write(to: hostile.appendingPathComponent("\(name).clssubmission"))
        }
        let collected = try room.teacher.clsfile("collect", hostile.path, expecting: 65)
        let lines = collected.errorOutput.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.contains("it was not imported") }, "\(collected.errorOutput)")
        #expect(lines.first { $0.contains("item.clssubmission") }?.contains("beyond ±10¹²") == true)
        #expect(lines.first { $0.contains("time.clssubmission") }?.contains("active time") == true)
        // Every reader of the class still works.
        try room.teacher.clsfile("class-report")
        try room.teacher.clsfile("export", "--xapi")
    }

    // MARK: Redirecting (findings 3, 4, 5, 7)

    @Test func aPlantedCopyOfTheHandoutNeverReTiesAnAcceptedAssignment() async throws {
        let room = try Classroom()
        let (ada, essay) = try room.student("Ada")
        // Another essay.txt elsewhere, with a copy of the real handout beside it.
        let elsewhere = room.scratch.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let other = elsewhere.appendingPathComponent("essay.txt")
        try FileManager.default.copyItem(at: room.scratch.url.appendingPathComponent("essay.txt"), to: other)
        try FileManager.default.copyItem(at: room.handout, to: Handout.defaultURL(beside: other))
        let opened = try ada.clsfile("open", "--no-pty", "--editor", "true", other.path)
        #expect(
            opened.errorOutput.contains("which you accepted for \(essay.path)") && opened.errorOutput.contains("stays tied there"),
            "\(opened.errorOutput)")
        let store = ada.store(.student)
        #expect(try await store.isAssignedDocument(essay))
        #expect(try await store.isAssignedDocument(other) == false)
    }

    @Test func onlyTheHandoutNamedAfterAnUnchangedDocumentIsAcceptedOnOpen() async throws {
        let scratch = try Scratch()
        let ada = try Person("ada", in: scratch)
        try ada.clsfile("role", "student", "--name", "Ada")
        let attacker = Identity()
        // A handout under another name whose document name matches: never read on open.
        let essay = try scratch.file("essay.txt", "the student's essay\n")
        try Handout(document: essay, title: "Attacker's", teacher: attacker).write(to: scratch.url.appendingPathComponent("zzz.clshandout"))
        let plain = try ada.clsfile("open", "--no-pty", "--editor", "true", essay.path)
        #expect(!plain.errorOutput.contains("accepted"), "\(plain.errorOutput)")
        #expect(try await ada.store(.student).isAssignedDocument(essay) == false)

        // NAME.clshandout, but the document is no longer the one handed out: a warning, not an accept.
        try Handout(document: essay, title: "Essay", teacher: attacker).write(to: Handout.defaultURL(beside: essay))
        try Data("the student's essay, changed\n".utf8).write(to: essay)
        let changed = try ada.clsfile("open", "--no-pty", "--editor", "true", essay.path)
        #expect(
            changed.errorOutput.contains("is not the document handed out") && changed.errorOutput.contains("clsfile accept"),
            "\(changed.errorOutput)")
        #expect(try await ada.store(.student).isAssignedDocument(essay) == false)
    }

    @Test func aPlantedHandoutReusingAnAssignmentIdIsAWarningAndTheEditorStarts() async throws {
        let room = try Classroom()
        let (ada, _) = try room.student("Ada")
        let folder = room.scratch.url.appendingPathComponent("ada-work")
        let poem = folder.appendingPathComponent("poem.txt")
        try Data("roses\n".utf8).write(to: poem)
        var planted = try Handout(document: poem, title: "Planted", teacher: Identity())
        planted.id = try Handout.read(from: room.handout).id
        try planted.write(to: Handout.defaultURL(beside: poem))
        let marker = room.scratch.url.appendingPathComponent("editor-ran")
        let opened = try ada.clsfile("open", "--no-pty", "--editor", "touch \(marker.path)", poem.path)
        #expect(FileManager.default.fileExists(atPath: marker.path), "the editor did not start: \(opened.errorOutput)")
        #expect(opened.errorOutput.contains("stays tied there"), "\(opened.errorOutput)")
        #expect(try await ada.store(.student).isAssignedDocument(poem) == false)
    }

    @Test func acceptRefusesADocumentNameThatIsNotAPlainName() throws {
        let room = try Classroom()
        let ada = try Person("ada", in: room.scratch)
        try ada.clsfile("role", "student", "--name", "Ada")
        for name in ["../secret/diary.txt", "/etc/passwd", "..", "a\u{1B}]52;c;aGk=\u{07}.txt"] {
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: room.handout)) as? [String: Any])
            var document = try #require(json["document"] as? [String: Any])
            document["name"] = name
            json["document"] = document
            let hostile = room.scratch.url.appendingPathComponent("hostile.clshandout")
            try JSONSerialization.data(withJSONObject: json).write(to: hostile)
            let refused = try ada.clsfile("accept", hostile.path, expecting: 65)
            #expect(refused.errorOutput.contains("not a plain file name"), "\(name): \(refused.errorOutput)")
        }
    }

    // MARK: Files from others (finding 9)

    @Test func handoutsAreReadOnlyFromRegularFilesOfBoundedSize() throws {
        let room = try Classroom()
        let ada = try Person("ada", in: room.scratch)
        try ada.clsfile("role", "student", "--name", "Ada")
        let huge = room.scratch.url.appendingPathComponent("huge.clshandout")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 300 << 20)
        try handle.close()
        #expect(try ada.clsfile("accept", huge.path, expecting: 66).errorOutput.contains("300 MiB, more than such a file can be (16 MiB)"))

        let fifo = room.scratch.url.appendingPathComponent("pipe.clshandout")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(try ada.clsfile("accept", fifo.path, expecting: 66).errorOutput.contains("it is a named pipe (FIFO), not a regular file"))

        let link = room.scratch.url.appendingPathComponent("link.clshandout")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: room.handout)
        #expect(try ada.clsfile("accept", link.path, expecting: 66).errorOutput.contains("it is a symbolic link"))

        let folder = room.scratch.url.appendingPathComponent("folder.clssubmission")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(try room.teacher.clsfile("collect", room.scratch.url.path, expecting: 65).errorOutput.contains("it is a folder"))
    }

    @Test func collectReadsFileNamesThatAreNotUTF8() throws {
        let room = try Classroom()
        let (ada, _) = try room.student("Ada")
        let written = try ada.clsfile("submit", "--output", room.inbox.path).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let data = try Data(contentsOf: URL(fileURLWithPath: written))
        try FileManager.default.removeItem(atPath: written)
        let name = Array(room.inbox.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".clssubmission".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
        }
        #expect(descriptor >= 0)
        _ = data.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
        close(descriptor)
        let collected = try room.teacher.clsfile("collect", room.inbox.path)
        #expect(collected.output.hasPrefix("added: "), "\(collected.output) \(collected.errorOutput)")
    }

    @Test func aVersionOneHandoutSaysToIssueItAgain() throws {
        let room = try Classroom()
        let ada = try Person("ada", in: room.scratch)
        try ada.clsfile("role", "student", "--name", "Ada")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: room.handout)) as? [String: Any])
        json["version"] = 1
        json["classKey"] = Data(count: 32).base64EncodedString()
        let old = room.scratch.url.appendingPathComponent("old.clshandout")
        try JSONSerialization.data(withJSONObject: json).write(to: old)
        let refused = try ada.clsfile("accept", old.path, expecting: 65)
        #expect(refused.errorOutput.contains("format version 1") && refused.errorOutput.contains("issue it again"))
    }
}
