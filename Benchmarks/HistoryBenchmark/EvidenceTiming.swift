import Foundation
import OpenClassKit

/// Times `clsfile evidence` on an assignment whose document has a long writing history (issue
/// 37: goal ≤ 200 ms for 2,000 sessions): the process, start-up included, best and median of
/// several runs after an untimed one.
///
///     swift run -c release HistoryBenchmark --evidence [--sessions 2000]
enum EvidenceTiming {
    static func run(sessions: Int) async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "evidence-benchmark-\(UUID().uuidString.prefix(8))")
        defer { if !CommandLine.arguments.contains("--keep") { try? FileManager.default.removeItem(at: folder) } }
        let config = folder.appendingPathComponent("config"), data = folder.appendingPathComponent("data")
        try DeveloperMode(role: .student, displayName: "Ada Lovelace").save(
            to: config.appendingPathComponent("clsfile/developer-mode.json"))
        let storeURL = DeveloperMode.storeURL(for: .student, dataHome: data.appendingPathComponent("clsfile"))
        try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let essay = folder.appendingPathComponent("essay.txt")
        try Data("Rivers\n".utf8).write(to: essay)
        let store = CLSDataStore(storeURL: storeURL)
        let assignment = Assignment(
            identifier: UUID().uuidString.lowercased(), title: "Essay on rivers", documentName: "essay.txt", documentDigest: "00",
            teacherKey: Data(repeating: 4, count: 65), processEvidence: .figures)
        try await store.acceptAssignment(assignment, for: essay)

        // One session an hour, each adding a sentence, with its typed and pasted characters.
        let start = Date(timeIntervalSinceNow: -Double(sessions + 1) * 3600)
        var text = "Rivers\n"
        for session in 0..<sessions {
            text += "Sentence \(session) of the essay, about the rivers that carry water to the sea.\n"
            try Data(text.utf8).write(to: essay)
            let activity = try await store.fetchActivity(for: essay)
            let begin = start.addingTimeInterval(Double(session) * 3600)
            activity.start(at: begin, continuingWithin: 0)
            let figures: [(String, String, Double)] = [
                (ItemIdentifier.typedCharacters, "Typed Characters", Double(session * 70)),
                (ItemIdentifier.pastedCharacters, "Pasted Characters", Double(session * 10))
            ]
            for (identifier, title, value) in figures {
                let item = CLSQuantityItem(identifier: identifier, title: title)
                item.quantity = value
                activity.addAdditionalActivityItem(item)
            }
            let words = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
            words.quantity = Double(1 + session * 14)
            activity.primaryActivityItem = words
            activity.stop(at: begin.addingTimeInterval(900), idleTimeout: nil)
            try await store.save()
        }

        let clsfile = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("clsfile")
        var milliseconds: [Double] = []
        var lines = 0
        for round in 0..<11 {
            let process = Process()
            process.executableURL = clsfile
            process.arguments = ["evidence", assignment.identifier]
            process.environment = ProcessInfo.processInfo.environment.merging([
                "XDG_CONFIG_HOME": config.path, "XDG_DATA_HOME": data.path, "CLSFILE_STORE": ""
            ]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            let clock = ContinuousClock.now
            try process.run()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let elapsed = clock.duration(to: .now)
            guard process.terminationStatus == 0 else { throw BenchmarkError("clsfile evidence exited with \(process.terminationStatus)") }
            lines = String(decoding: printed, as: UTF8.self).split(separator: "\n").count
            // The first run warms the page cache, untimed.
            if round > 0 { milliseconds.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15) }
        }
        milliseconds.sort()
        print(
            "clsfile evidence, \(sessions) sessions (\(lines) lines printed): best \(String(format: "%.1f", milliseconds[0])) ms, median \(String(format: "%.1f", milliseconds[milliseconds.count / 2])) ms (goal ≤ 200 ms)"
        )
    }
}
