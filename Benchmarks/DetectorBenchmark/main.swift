import ContentDetectors
import Foundation

// DetectorBenchmark: compares ContentDetectors with wc and pandoc on generated inputs.
// Run with `swift run -c release DetectorBenchmark [--quick]`.

func peakRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

let arguments = CommandLine.arguments
if arguments.count >= 3 && arguments[1] == "--count-child" {
    // Child mode: analyze one file and print "words peakKiB".
    let report = try DocumentAnalyzer().analyze(URL(fileURLWithPath: arguments[2]))
    print("\(report.statistics.words) \(peakRSSKiB())")
    exit(0)
}

let quick = arguments.contains("--quick")
let bigSize = (quick ? 20 : 200) << 20

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
}

func run(_ executable: String, _ args: [String], environment: [String: String] = [:], stdin: URL? = nil) throws -> (output: String, seconds: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = args
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    let start = DispatchTime.now().uptimeNanoseconds
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), seconds)
}

func best(_ times: Int, _ body: () throws -> (String, Double)) rethrows -> (String, Double) {
    var result = try body()
    for _ in 1..<times {
        let r = try body()
        if r.1 < result.1 { result = r }
    }
    return result
}

let english = [
    "The students wrote short summaries of every chapter before the exam.",
    "A well-known method is to review the notes once a week, not all night.",
    "Teachers say it's better to read slowly and ask questions in class.",
    "Libraries open early on weekdays, and many people study near the windows.",
    "Good essays explain how the key ideas connect to each other.",
    "Did the results surprise you? They surprised most of the group!",
]
let multilingual = english + [
    "Les élèves révisent leurs notes chaque semaine à la bibliothèque.",
    "Die Schüler schreiben kurze Zusammenfassungen für jedes Kapitel.",
    "Студенты пишут краткие конспекты каждой главы перед экзаменом.",
    "Οι μαθητές γράφουν σύντομες περιλήψεις κάθε κεφαλαίου.",
    "学生们在考试前为每一章写简短的总结。",
    "学生たちは試験の前に各章の短い要約を書きます。",
    "학생들은 시험 전에 각 장의 짧은 요약을 씁니다.",
    "الطلاب يكتبون ملخصات قصيرة لكل فصل قبل الامتحان.",
]

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("detector-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

var rows: [(String, String, Double, String, Double, String, String)] = []

func compareWithWC(_ name: String, _ url: URL, locale: String, goal: Double) throws -> (String, String, Double, String, Double, String, String) {
    let ours = try best(3) { try run(me, ["--count-child", url.path]) }
    let wc = try best(3) { try run("/usr/bin/wc", ["-w", url.path], environment: ["LC_ALL": locale]) }
    let parts = ours.0.split(separator: " ")
    let words = String(parts.first ?? "?")
    let rss = Double(parts.last ?? "0").map { $0 / 1024 } ?? -1
    let wcWords = String(wc.0.split(separator: " ").first ?? "?")
    return (name, "\(words) words", ours.1, "wc -w (LC_ALL=\(locale)) \(wcWords) words", wc.1,
                 String(format: "%.1fx (goal %.0fx)", wc.1 / ours.1, goal), String(format: "%.1f MB", rss))
}

let asciiURL = dir.appendingPathComponent("english.txt")
try generate(asciiURL, size: bigSize, sentences: english)
rows.append(try compareWithWC("\(bigSize >> 20) MiB ASCII", asciiURL, locale: "C", goal: 4))
try? FileManager.default.removeItem(at: asciiURL)

let multiURL = dir.appendingPathComponent("multilingual.txt")
try generate(multiURL, size: bigSize, sentences: multilingual)
rows.append(try compareWithWC("\(bigSize >> 20) MiB multilingual", multiURL, locale: "C.UTF-8", goal: 3))
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
    for format in ["docx", "odt"] {
        let doc = dir.appendingPathComponent("essay.\(format)")
        _ = try run("/usr/bin/pandoc", [md.path, "-o", doc.path])
        let ours = try best(5) { try run(me, ["--count-child", doc.path]) }
        let inProcess = try best(20) { () -> (String, Double) in
            let start = DispatchTime.now().uptimeNanoseconds
            let r = try DocumentAnalyzer().analyze(doc)
            return ("\(r.statistics.words)", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let pandoc = try best(3) { try run("/bin/sh", ["-c", "pandoc -t plain '\(doc.path)' | wc -w"]) }
        let parts = ours.0.split(separator: " ")
        rows.append(("10k-word \(format.uppercased()) (process)", "\(parts.first ?? "?") words", ours.1,
                     "pandoc -t plain | wc -w: \(pandoc.0) words", pandoc.1,
                     String(format: "%.1fx (goal 20x)", pandoc.1 / ours.1), String(format: "%.1f MB", (Double(parts.last ?? "0") ?? 0) / 1024)))
        rows.append(("10k-word \(format.uppercased()) (in-process)", "\(inProcess.0) words", inProcess.1,
                     "same pandoc run", pandoc.1, String(format: "%.1fx (goal 20x)", pandoc.1 / inProcess.1), "-"))
    }
} else {
    print("pandoc not found: DOCX/ODT rows skipped (apt-get install -y pandoc)")
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
print(pad("input", 34), pad("ours", 28), pad("reference", 48), pad("ratio", 20), "peak RSS (ours)")
for r in rows {
    print(pad(r.0, 34), pad(String(format: "%.3f s, ", r.2) + r.1, 28), pad(String(format: "%.3f s, ", r.4) + r.3, 48), pad(r.5, 20), r.6)
}
