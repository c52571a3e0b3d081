import ContentDetectors
import Foundation
import SystemPackage
import TestSupport

// DetectorBenchmark: compares `clsfile stats` with wc and pandoc on generated inputs.
// Run with `swift run -c release DetectorBenchmark [--quick]`.
//
// What is compared is what a user runs: one `clsfile stats FILE` process (the release binary built
// next to this one, start-up included) against one `wc -w FILE` process or one `pandoc -t plain FILE
// | wc -w` pipeline, each timed from spawn to exit, in rounds side by side (see `sideBySide`): the
// ratio is the median of the rounds' ratios, shown beside the best run of each. Peak RSS is the
// child's own, from a run of its own through GNU time (see `PeakMemory`: wait4's figure for a
// spawned child is this benchmark's). For DOCX and ODT the analysis alone, in this process, is
// shown too: the table's reading, of the body's part.

let arguments = CommandLine.arguments
if arguments.count >= 3 && arguments[1] == "--stats" {
    // Statistics mode: for each file, the analyzer's full statistics and those of a single
    // sequential counter fed in 1 MiB and in odd-sized (4093-byte) chunks; all three must agree.
    for path in arguments.dropFirst(2) {
        let report = try DocumentAnalyzer().analyze(FilePath(path))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var results = [TextStatistics]()
        for chunkSize in [1 << 20, 4093] {
            var counter = WordCounter()
            data.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < all.count {
                    let n = min(chunkSize, all.count - offset)
                    counter.consume(UnsafeRawBufferPointer(rebasing: all[offset..<offset + n]))
                    offset += n
                }
            }
            results.append(counter.statistics)
        }
        let s = report.statistics
        print(
            "\((path as NSString).lastPathComponent): words \(s.words) characters \(s.characters) nonSpace \(s.charactersExcludingSpaces) sentences \(s.sentences) paragraphs \(s.paragraphs) syllables \(s.syllables) cjkCharacters \(s.cjkCharacters) cjkWords \(s.cjkWords) sequentialAgrees \(results.allSatisfy { $0 == s })"
        )
    }
    exit(0)
}

let quick = arguments.contains("--quick")
// The sizes of issue 38's goals: 100 MiB of English, 10 times as fast as wc -w; of multilingual
// text, 6 times.
let bigSize = (quick ? 20 : 100) << 20

struct Generator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next(_ n: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(n))
    }
}

func generate(_ url: URL, size: Int, sentences: [String]) throws {
    FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var generator = Generator()
    var buffer = [UInt8]()
    buffer.reserveCapacity(1 << 20 + 4096)
    var written = 0
    while written < size {
        while buffer.count < 1 << 20 {
            buffer.append(contentsOf: sentences[generator.next(sentences.count)].utf8)
            buffer.append(generator.next(8) == 0 ? 0x0A : 0x20)
            if generator.next(40) == 0 { buffer.append(0x0A) }
        }
        let n = min(buffer.count, size - written)
        try handle.write(contentsOf: buffer[0..<n])
        written += n
        buffer.removeAll(keepingCapacity: true)
    }
    // Flush to disk before timing, so the kernel's write-back of 200 MiB of dirty pages does not
    // compete for the two cores with whichever tool runs first.
    try handle.synchronize()
}

/// Runs a tool with stdout to a pipe and stderr to /dev/null; returns its output and wall time.
///
/// Uses posix_spawn directly: Foundation's `Process` adds about 50 ms per launch on Linux
/// (measured with /bin/true), which would be charged to both tools and compress the ratio.
func run(_ executable: String, _ args: [String], environment: [String: String] = [:], stdin: URL? = nil) throws -> (
    output: String, seconds: Double
) {
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw CocoaError(.fileWriteUnknown) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if let stdin { posix_spawn_file_actions_addopen(&actions, 0, stdin.path, O_RDONLY, 0) }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + args).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in argv { free(p) }
        for p in envp { free(p) }
    }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    close(fds[1])
    guard rc == 0 else {
        close(fds[0])
        throw CocoaError(.executableLoad)
    }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, 4096) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        data.append(contentsOf: chunk[0..<n])
    }
    close(fds[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), seconds)
}

/// The peak resident memory of one run of a program (`clsfile stats FILE` by default), for the
/// table; "-" with the package to install when GNU time is missing.
func peakMemory(of file: URL) throws -> String { try peakMemory(clsfile, ["stats", file.path]) }

func peakMemory(_ program: String, _ programArguments: [String]) throws -> String {
    guard PeakMemory.gnuTime.url != nil else { return "- (apt-get install time)" }
    return String(format: "%.1f MB", Double(try PeakMemory.ofRun(program, programArguments)) / 1024)
}

/// The fastest of `times` timed runs, after `warmup` untimed ones (as hyperfine's --warmup): a
/// short process started just after another tool's run can take a quarter longer for the next
/// few tens of milliseconds on this kind of VM, whichever tool it is, so each tool is timed in its
/// own steady state rather than in the tail of the one before.
func best(_ times: Int, warmup: Int = 1, _ body: () throws -> (output: String, seconds: Double)) rethrows -> (
    output: String, seconds: Double
) {
    for _ in 0..<warmup { _ = try body() }
    var result = try body()
    for _ in 1..<times {
        let r = try body()
        if r.seconds < result.seconds { result = r }
    }
    return result
}

let clsfile = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("clsfile")
    .path
guard FileManager.default.isExecutableFile(atPath: clsfile) else {
    print("\(clsfile) is missing: build it with swift build -c release --product clsfile")
    exit(1)
}

/// `clsfile stats FILE` and a reference command side by side, in `rounds` rounds, so that both
/// meet the same phases of a machine whose speed drifts (this VM's drifts by half from one minute
/// to the next, and a short process's start-up more than a long one's). Each round times both the
/// same way, the best of 3 runs after an untimed one (two for `clsfile`, whose runs are
/// shorter), `clsfile` first. Returns each one's best run and the median of the rounds' ratios.
func sideBySide(_ url: URL, rounds: Int, reference: () throws -> (output: String, seconds: Double))
    throws -> (
        ours: (output: String, seconds: Double), reference: (output: String, seconds: Double),
        medianRatio: Double
    )
{
    let timed = try sideBySide([(clsfile, ["stats", url.path])], rounds: rounds, reference: reference)
    return (timed.programs[0].best, timed.reference, timed.programs[0].medianRatio)
}

/// Programs beside a reference command, timed in the same rounds as `clsfile stats` is (see
/// above), each program in turn and then the reference: each program's best run and median
/// ratio (reference ÷ program), and the reference's best run.
func sideBySide(
    _ programs: [(path: String, arguments: [String])], rounds: Int,
    reference: () throws -> (output: String, seconds: Double)
) throws -> (
    programs: [(best: (output: String, seconds: Double), medianRatio: Double)], reference: (output: String, seconds: Double)
) {
    var ratios = Array(repeating: [Double](), count: programs.count)
    var bests: [(output: String, seconds: Double)?] = Array(repeating: nil, count: programs.count)
    var referenceBest: (output: String, seconds: Double)? = nil
    for _ in 0..<rounds {
        let runs = try programs.map { program in try best(3, warmup: 2) { try run(program.path, program.arguments) } }
        let other = try best(3, warmup: 1, reference)
        for (index, timed) in runs.enumerated() {
            ratios[index].append(other.seconds / timed.seconds)
            if bests[index] == nil || timed.seconds < bests[index]!.seconds { bests[index] = timed }
        }
        if referenceBest == nil || other.seconds < referenceBest!.seconds { referenceBest = other }
    }
    let medians = ratios.map { ratios in
        let sorted = ratios.sorted()
        return rounds % 2 == 1 ? sorted[rounds / 2] : (sorted[rounds / 2 - 1] + sorted[rounds / 2]) / 2
    }
    return (zip(bests, medians).map { ($0!, $1) }, referenceBest!)
}

/// The words column of a `clsfile stats` table.
func wordsColumn(_ output: String) -> String {
    let row = output.split(separator: "\n").dropFirst().first ?? ""
    return String(row.split(separator: " ").first ?? "?")
}

let english = [
    "The students wrote short summaries of every chapter before the exam.",
    "A well-known method is to review the notes once a week, not all night.",
    "Teachers say it's better to read slowly and ask questions in class.",
    "Libraries open early on weekdays, and many people study near the windows.",
    "Good essays explain how the key ideas connect to each other.",
    "Did the results surprise you? They surprised most of the group!"
]
let multilingual =
    english + [
        "Les élèves révisent leurs notes chaque semaine à la bibliothèque.",
        "Die Schüler schreiben kurze Zusammenfassungen für jedes Kapitel.",
        "Студенты пишут краткие конспекты каждой главы перед экзаменом.",
        "Οι μαθητές γράφουν σύντομες περιλήψεις κάθε κεφαλαίου.",
        "学生们在考试前为每一章写简短的总结。",
        "学生たちは試験の前に各章の短い要約を書きます。",
        "학생들은 시험 전에 각 장의 짧은 요약을 씁니다.",
        "الطلاب يكتبون ملخصات قصيرة لكل فصل قبل الامتحان."
    ]

if arguments.count >= 3 && arguments[1] == "--generate" {
    // Writes the benchmark inputs of both sizes into a directory, for timing and `--stats`.
    let out = URL(fileURLWithPath: arguments[2])
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    for mib in [20, 200] {
        try generate(out.appendingPathComponent("english-\(mib).txt"), size: mib << 20, sentences: english)
        try generate(out.appendingPathComponent("multilingual-\(mib).txt"), size: mib << 20, sentences: multilingual)
    }
    exit(0)
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("detector-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }

var rows: [(String, String, Double, String, Double, String, String)] = []

func compareWithWC(_ name: String, _ url: URL, locale: String, goal: Double) throws -> (
    String, String, Double, String, Double, String, String
) {
    // In rounds, as DOCX and ODT: wc's runs on this VM spread by half, more than ours.
    let (ours, wc, medianRatio) = try sideBySide(url, rounds: quick ? 3 : 5) {
        try run("/usr/bin/wc", ["-w", url.path], environment: ["LC_ALL": locale])
    }
    let wcWords = String(wc.output.split(separator: " ").first ?? "?")
    return (
        name, "\(wordsColumn(ours.output)) words", ours.seconds, "wc -w (LC_ALL=\(locale)) \(wcWords) words", wc.seconds,
        String(format: "%.1fx median of rounds, %.1fx best to best (goal %.0fx)", medianRatio, wc.seconds / ours.seconds, goal),
        try peakMemory(of: url)
    )
}

let asciiURL = dir.appendingPathComponent("english.txt")
try generate(asciiURL, size: bigSize, sentences: english)
rows.append(try compareWithWC("\(bigSize >> 20) MiB ASCII", asciiURL, locale: "C", goal: 10))
try? FileManager.default.removeItem(at: asciiURL)

let multiURL = dir.appendingPathComponent("multilingual.txt")
try generate(multiURL, size: bigSize, sentences: multilingual)
rows.append(try compareWithWC("\(bigSize >> 20) MiB multilingual", multiURL, locale: "C.UTF-8", goal: 6))
try? FileManager.default.removeItem(at: multiURL)

// 10,000-word DOCX and ODT made by pandoc from Markdown, compared with `pandoc -t plain | wc -w`.
if FileManager.default.fileExists(atPath: "/usr/bin/pandoc") {
    var markdown = ""
    var generator = Generator()
    var words = 0
    while words < 10_000 {
        var paragraph = ""
        for _ in 0..<5 {
            let s = english[generator.next(english.count)]
            paragraph += s + " "
            words += s.split(separator: " ").count
        }
        markdown += paragraph + "\n\n"
    }
    let md = dir.appendingPathComponent("essay.md")
    try markdown.write(to: md, atomically: true, encoding: .utf8)
    // Issue 38's goals: DOCX 50 times as fast as pandoc, ODT 30 times (pandoc reads ODT faster).
    let floors = try FloorProgram.buildAll(in: dir)
    for (format, goal) in [("docx", 50), ("odt", 30)] {
        let doc = dir.appendingPathComponent("essay.\(format)")
        _ = try run("/usr/bin/pandoc", [md.path, "-o", doc.path])
        // With the floors (see FloorProgram) in the same rounds, beside the same pandoc runs.
        let timed = try sideBySide([(clsfile, ["stats", doc.path])] + floors.map { ($0.path, [doc.path]) }, rounds: 10) {
            try run("/bin/sh", ["-c", "pandoc -t plain '\(doc.path)' | wc -w"])
        }
        let (ours, medianRatio, pandoc) = (timed.programs[0].best, timed.programs[0].medianRatio, timed.reference)
        // What `clsfile stats`' table reads: the body alone.
        let inProcess = try best(20) { () -> (output: String, seconds: Double) in
            let start = DispatchTime.now().uptimeNanoseconds
            let r = try DocumentAnalyzer().analyze(FilePath(doc.path), options: AnalysisOptions(measuresBodyOnly: true))
            return ("\(r.statistics.words)", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        rows.append(
            (
                "10k-word \(format.uppercased()) (process)", "\(wordsColumn(ours.output)) words", ours.seconds,
                "pandoc -t plain | wc -w: \(pandoc.output) words", pandoc.seconds,
                String(format: "%.1fx median of rounds, %.1fx best to best (goal %dx)", medianRatio, pandoc.seconds / ours.seconds, goal),
                try peakMemory(of: doc)
            ))
        rows.append(
            (
                "10k-word \(format.uppercased()) (in-process)", "\(inProcess.output) words", inProcess.seconds,
                "same pandoc run", pandoc.seconds, String(format: "%.1fx (analysis only)", pandoc.seconds / inProcess.seconds), "-"
            ))
        // What no `clsfile` can beat: a Swift program that only starts, with and without the part
        // of Foundation every Swift program that reads a URL or a date links.
        for (floor, start) in zip(floors, timed.programs.dropFirst()) {
            rows.append(
                (
                    "  floor: \(floor.name)", "(starts, reads nothing)", start.best.seconds,
                    "same pandoc runs", pandoc.seconds,
                    String(format: "%.1fx median of rounds: the most any such program reaches", start.medianRatio),
                    try peakMemory(floor.path, [doc.path])
                ))
        }
    }
} else {
    print("pandoc not found: DOCX/ODT rows skipped (apt-get install -y pandoc)")
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
print(pad("input", 40), pad("clsfile stats", 32), pad("reference", 52), pad("ratio", 60), "peak RSS (ours)")
for r in rows {
    print(
        pad(r.0, 40), pad(String(format: "%.2f ms, ", r.2 * 1000) + r.1, 32), pad(String(format: "%.2f ms, ", r.4 * 1000) + r.3, 52),
        pad(r.5, 60), r.6)
}
