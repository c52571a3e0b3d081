import Foundation
import OpenClassKit
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Measures the writing history (issue 21): what the content snapshots of a 5,000-word essay
/// written over 200 sessions cost on disk, against the final document's size (goal: ≤ 3×) and
/// against git keeping the same versions in a packed repository; the memory a replay takes (goal:
/// bounded, the same for 200 and 2,000 sessions); and the time a session's end takes to write its
/// row and snapshot.
///
///     swift run -c release HistoryBenchmark [--sessions 200] [--words 5000] [--source FILE] [--keep]
///     swift run -c release HistoryBenchmark --evidence [--sessions 2000]   # times `clsfile evidence`
///
/// The essay is real English prose: the words of `--source` (default the GPL-3 text every Debian
/// system has at /usr/share/common-licenses/GPL-3), in its paragraphs. Each session adds the next
/// words; every 7th also changes a word of an earlier paragraph, every 13th inserts a phrase in
/// one, every 29th deletes a few words. Two layouts are measured: paragraphs as one long line each
/// (as many editors save prose), and paragraphs wrapped at 72 columns and re-wrapped after every
/// edit (as `gq` in Vim or `fill-paragraph` in Emacs leave them).
@main
struct HistoryBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count == 4, arguments[1] == "--replay" {
            try await replayInThisProcess(store: arguments[2], file: arguments[3])
            return
        }
        if arguments.contains("--evidence") {
            try await EvidenceTiming.run(sessions: option("--sessions", default: 2_000))
            return
        }
        let sessions = option("--sessions", default: 200)
        let words = option("--words", default: 5_000)
        let source = value("--source") ?? "/usr/share/common-licenses/GPL-3"
        let paragraphs = try Essay.paragraphs(from: source, words: words)
        print("Writing history: \(words) words of \(source) over \(sessions) sessions\n")
        print(
            pad("layout", 23) + pad("final", 8) + pad("snapshots", 11) + pad("× final", 9) + pad("on disk", 9) + pad("× final", 9)
                + pad("git packed", 12)
                + pad("× final", 9) + pad("replay peak RSS", 14) + "session end p50/p99")
        var failed = false
        for wrapped in [false, true] {
            let result = try await measure(paragraphs, sessions: sessions, wrapped: wrapped)
            let ratio = Double(result.columnBytes) / Double(result.finalBytes)
            let diskRatio = Double(result.historyBytes) / Double(result.finalBytes)
            let git = result.gitBytes.map { "\($0)" } ?? "(no git)"
            let gitRatio = result.gitBytes.map { String(format: "%.2f", Double($0) / Double(result.finalBytes)) } ?? "-"
            print(
                pad(wrapped ? "wrapped at 72, re-wrap" : "a line per paragraph", 23) + pad("\(result.finalBytes)", 8)
                    + pad("\(result.columnBytes)", 11) + pad(String(format: "%.2f", ratio), 9)
                    + pad("\(result.historyBytes)", 9) + pad(String(format: "%.2f", diskRatio), 9) + pad(git, 12) + pad(gitRatio, 9)
                    + pad("+\(result.replayKilobytes.grown) of \(result.replayKilobytes.peak / 1024) MiB", 14)
                    + String(format: "%.2f / %.2f ms", result.saveMilliseconds.p50, result.saveMilliseconds.p99))
            if diskRatio > 3 { failed = true }
        }
        // Memory: the same essay in ten times as many sessions takes no more to replay.
        let longer = try await measure(paragraphs, sessions: sessions * 10, wrapped: false, withGit: false)
        print(
            "\nReplay of \(sessions * 10) sessions (a line per paragraph): peak memory +\(longer.replayKilobytes.grown) KiB (\(longer.replayKilobytes.peak / 1024) MiB); snapshots \(longer.columnBytes) bytes (\(String(format: "%.2f", Double(longer.columnBytes) / Double(longer.finalBytes)))× final), \(longer.historyBytes) on disk"
        )
        print("\nGoal: snapshots ≤ 3× the final document, replay memory bounded. \(failed ? "FAILED" : "Met.")")
        if failed { exit(1) }
    }

    struct Result {
        var finalBytes: Int
        var historyBytes: Int
        /// The snapshot columns' own bytes; ``historyBytes`` is what the file grows by, in pages.
        var columnBytes: Int
        var gitBytes: Int?
        /// The replay's growth of peak memory, and the peak, in KiB.
        var replayKilobytes: (grown: Int, peak: Int)
        var saveMilliseconds: (p50: Double, p99: Double)
    }

    /// Writes the essay session by session through the library, as an editor's close would.
    static func measure(_ paragraphs: [[String]], sessions: Int, wrapped: Bool, withGit: Bool = true) async throws -> Result {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("history-benchmark-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if !CommandLine.arguments.contains("--keep") { try? FileManager.default.removeItem(at: folder) } }
        let storeURL = folder.appendingPathComponent("store.sqlite")
        let file = folder.appendingPathComponent("essay.txt")
        let git = withGit ? Git(folder: folder.appendingPathComponent("repository")) : nil
        var essay = Essay(source: paragraphs)
        let perSession = Double(essay.totalWords) / Double(sessions)
        let start = Date(timeIntervalSinceNow: -Double(sessions) * 3600)
        var latencies: [Double] = []
        var text = Data()
        for session in 0..<sessions {
            essay.write(upTo: Int((Double(session + 1) * perSession).rounded()), session: session)
            text = Data(essay.rendered(wrapped: wrapped).utf8)
            try text.write(to: file)
            let store = CLSDataStore(storeURL: storeURL)
            let activity = try await store.fetchActivity(for: file)
            let end = start.addingTimeInterval(Double(session) * 3600 + 900)
            activity.start(at: end.addingTimeInterval(-900), continuingWithin: 0)
            let count = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
            count.quantity = Double(essay.writtenWords)
            activity.primaryActivityItem = count
            activity.stop(at: end, idleTimeout: nil)
            let clock = ContinuousClock.now
            try await store.save()
            let elapsed = clock.duration(to: .now)
            latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            try git?.commit(text, as: "essay.txt", session: session)
        }
        let historyBytes = try snapshotBytes(in: storeURL)
        latencies.sort()
        let percentile = { (share: Double) in latencies[min(latencies.count - 1, Int(Double(latencies.count) * share))] }
        return Result(
            finalBytes: text.count, historyBytes: historyBytes, columnBytes: try columnBytes(in: storeURL),
            gitBytes: try git?.packedBytes(),
            replayKilobytes: try replayMemory(store: storeURL, file: file, expected: text),
            saveMilliseconds: (percentile(0.5), percentile(0.99)))
    }

    /// The bytes of the snapshot columns themselves (delta, digest, size).
    static func columnBytes(in storeURL: URL) throws -> Int {
        let answer = try sqlite(
            storeURL,
            """
            SELECT coalesce(sum(length(content_delta)) + sum(length(content_digest)) + 8 * count(content_size), 0) FROM writing_history
            """)
        guard let bytes = Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkError("sqlite3 said \(answer)")
        }
        return bytes
    }

    /// The bytes the snapshots add to the store file: its size, vacuumed, with and without them
    /// (whole pages of 4 KiB).
    static func snapshotBytes(in storeURL: URL) throws -> Int {
        let copy = storeURL.deletingLastPathComponent().appendingPathComponent("without.sqlite")
        let with = storeURL.deletingLastPathComponent().appendingPathComponent("with.sqlite")
        try sqlite(storeURL, "VACUUM INTO '\(with.path)'")
        try sqlite(storeURL, "VACUUM INTO '\(copy.path)'")
        try sqlite(copy, "UPDATE writing_history SET content_delta = NULL, content_digest = NULL, content_size = NULL; VACUUM")
        return fileSize(with) - fileSize(copy)
    }

    /// Replays every snapshot in a process of its own and returns how much its peak memory grew.
    static func replayMemory(store: URL, file: URL, expected: Data) throws -> (grown: Int, peak: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        process.arguments = ["--replay", store.path, file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard process.terminationStatus == 0, fields.count == 3, let grown = Int(fields[0]),
            let peak = Int(fields[2].trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw BenchmarkError("the replay failed: \(String(decoding: data, as: UTF8.self))")
        }
        guard fields[1] == "\(expected.count)" else {
            throw BenchmarkError("the replay ended with \(fields[1]) bytes, not the file's \(expected.count)")
        }
        return (grown, peak)
    }

    /// The child: replays every snapshot, checks each against its digest (the iterator does), and
    /// prints the growth of its peak resident memory in KiB and the last snapshot's size.
    static func replayInThisProcess(store: String, file: String) async throws {
        let data = CLSDataStore(storeURL: URL(fileURLWithPath: store))
        let url = URL(fileURLWithPath: file)
        _ = try await data.writingHistory(for: url)
        // Its own high-water mark: getrusage's is the benchmark's, which spawned it, when that is higher.
        let before = PeakMemory.ofThisProcess()
        var last = 0
        for try await snapshot in try await data.snapshots(of: url) { last = snapshot.content.count }
        print("\(PeakMemory.ofThisProcess() - before) \(last) \(PeakMemory.ofThisProcess())")
    }
}

/// The essay as it is written: paragraphs of words from the source, revised as it goes.
struct Essay {
    let source: [[String]]
    /// The paragraphs written so far.
    private(set) var paragraphs: [[String]] = []
    private var taken = 0
    /// Seeded: every run revises the same words.
    private var random = SplitMix(seed: 21)

    init(source: [[String]]) { self.source = source }

    var totalWords: Int { source.reduce(0) { $0 + $1.count } }
    var writtenWords: Int { paragraphs.reduce(0) { $0 + $1.count } }

    /// Adds source words up to `count` taken, then revises as the session's number says.
    mutating func write(upTo count: Int, session: Int) {
        while taken < min(count, totalWords) {
            var index = taken
            var paragraph = 0
            while index >= source[paragraph].count {
                index -= source[paragraph].count
                paragraph += 1
            }
            if paragraph >= paragraphs.count { paragraphs.append([]) }
            paragraphs[paragraph].append(source[paragraph][index])
            taken += 1
        }
        guard paragraphs.count > 1 else { return }
        let earlier = Int(random.next() % UInt64(paragraphs.count - 1))
        let words = paragraphs[earlier].count
        guard words > 10 else { return }
        let at = Int(random.next() % UInt64(words - 6))
        if session % 7 == 6 { paragraphs[earlier][at] = paragraphs[earlier][at].uppercased() }
        if session % 13 == 12 {
            paragraphs[earlier].insert(contentsOf: ["which", "as", "we", "saw", "before", "matters", "here", "too"], at: at)
        }
        if session % 29 == 28 { paragraphs[earlier].removeSubrange(at..<(at + 5)) }
    }

    func rendered(wrapped: Bool) -> String {
        paragraphs.map { words in
            guard wrapped else { return words.joined(separator: " ") + "\n" }
            var lines: [String] = [], line = ""
            for word in words {
                if !line.isEmpty, line.count + 1 + word.count > 72 {
                    lines.append(line)
                    line = word
                } else {
                    line += line.isEmpty ? word : " " + word
                }
            }
            lines.append(line)
            return lines.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// The first `words` words of a text, in its paragraphs (blank-line separated).
    static func paragraphs(from path: String, words: Int) throws -> [[String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var result: [[String]] = [], left = words
        for block in text.components(separatedBy: "\n\n") where left > 0 {
            let blockWords = block.split(whereSeparator: \.isWhitespace).map(String.init).prefix(left)
            if blockWords.isEmpty { continue }
            result.append(Array(blockWords))
            left -= blockWords.count
        }
        guard left == 0 else { throw BenchmarkError("\(path) has fewer than \(words) words") }
        return result
    }
}

/// The reference: git keeping the same versions, one commit a session, packed by `git gc --aggressive`.
struct Git {
    let folder: URL

    init?(folder: URL) {
        guard let git = Self.executable else { return nil }
        self.folder = folder
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard (try? Self.run(git, ["init", "-q", folder.path])) != nil else { return nil }
    }

    static let executable: String? = ["/usr/bin/git", "/usr/local/bin/git"].first { FileManager.default.isExecutableFile(atPath: $0) }

    func commit(_ content: Data, as name: String, session: Int) throws {
        try content.write(to: folder.appendingPathComponent(name))
        try Self.run(Self.executable!, ["-C", folder.path, "add", name])
        try Self.run(
            Self.executable!,
            [
                "-C", folder.path, "-c", "user.name=bench", "-c", "user.email=bench@example.org",
                "commit", "-q", "-m", "session \(session)"
            ])
    }

    /// The bytes of the packed objects after an aggressive gc: what git needs for every version.
    func packedBytes() throws -> Int {
        try Self.run(Self.executable!, ["-C", folder.path, "gc", "-q", "--aggressive"])
        let pack = folder.appendingPathComponent(".git/objects/pack")
        return try FileManager.default.contentsOfDirectory(at: pack, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "pack" }.reduce(0) { $0 + fileSize($1) }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("\(executable) \(arguments.joined(separator: " ")) failed") }
        return process.terminationStatus
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs SQL with the sqlite3 shell; returns what it printed.
@discardableResult
func sqlite(_ database: URL, _ sql: String) throws -> String {
    guard let sqlite3 = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
        throw BenchmarkError("sqlite3 is needed to measure the store (apt install sqlite3)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: sqlite3)
    process.arguments = [database.path, sql]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkError("sqlite3 failed on \(sql)") }
    return String(decoding: data, as: UTF8.self)
}

func fileSize(_ url: URL) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
}

func option(_ name: String, default value: Int) -> Int {
    HistoryBenchmark.value(name).flatMap(Int.init) ?? value
}

extension HistoryBenchmark {
    static func value(_ name: String) -> String? {
        guard let index = CommandLine.arguments.firstIndex(of: name), index + 1 < CommandLine.arguments.count else { return nil }
        return CommandLine.arguments[index + 1]
    }
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
