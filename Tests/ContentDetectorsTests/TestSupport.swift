import Foundation
import ZIPFoundation
@testable import ContentDetectors

enum Fixtures {
    static func url(_ name: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }
}

/// A temporary directory removed when the value is dropped.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("detectors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ contents: String) throws -> URL {
        let u = url.appendingPathComponent(name)
        try Data(contents.utf8).write(to: u)
        return u
    }
}

/// Builds ZIP files for tests; entries are written in the order given.
func makeZip(at url: URL, _ entries: [(String, Data)], compress: Bool = true) throws {
    let archive = try Archive(url: url, accessMode: .create)
    for (path, data) in entries {
        try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                             compressionMethod: compress ? .deflate : .none) { position, size in
            data.subdata(in: Int(position)..<Int(position) + size)
        }
    }
}

func wordDocument(_ body: String, namespaces: String = "") -> Data {
    Data("""
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"\(namespaces)><w:body>\(body)</w:body></w:document>
    """.utf8)
}

/// A minimal DOCX; `document.xml` comes first so `_rels/.rels` is not among the first entries.
/// `parts` are further parts as (path, root element, content), such as `("word/header1.xml", "w:hdr", …)`.
func makeDocx(at url: URL, body: String, footnotes: String? = nil, comments: String? = nil, endnotes: String? = nil,
              parts: [(String, String, String)] = []) throws {
    var entries: [(String, Data)] = [("word/document.xml", wordDocument(body))]
    let ns = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\""
    for (path, root, content) in parts { entries.append((path, Data("<\(root) \(ns)>\(content)</\(root)>".utf8))) }
    if let footnotes { entries.append(("word/footnotes.xml", Data("<w:footnotes \(ns)>\(footnotes)</w:footnotes>".utf8))) }
    if let endnotes { entries.append(("word/endnotes.xml", Data("<w:endnotes \(ns)>\(endnotes)</w:endnotes>".utf8))) }
    if let comments { entries.append(("word/comments.xml", Data("<w:comments \(ns)>\(comments)</w:comments>".utf8))) }
    entries.append(("[Content_Types].xml", Data("<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>".utf8)))
    entries.append(("_rels/.rels", Data("<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"/>".utf8)))
    try makeZip(at: url, entries)
}

func paragraph(_ text: String) -> String { "<w:p><w:r><w:t xml:space=\"preserve\">\(text)</w:t></w:r></w:p>" }

func elapsed(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func detectorError(_ body: () throws -> Void) -> DetectorError? {
    do {
        try body()
        return nil
    } catch let error as DetectorError {
        return error
    } catch {
        return nil
    }
}

/// A xorshift64 sequence: the same numbers on every run, so that a failure can be replayed.
struct FixedRandom: RandomNumberGenerator {
    private var state: UInt64 = 0x2545_F491_4F6C_DD1D

    /// The sequence the generated fixtures are made from.
    init() {}

    /// A sequence per test argument: small seeds are spread over all 64 bits (from a small state
    /// xorshift's first numbers are small too), and the state is never zero.
    init(seed: UInt64) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    /// A number in `0..<n`.
    mutating func next(below n: Int) -> Int {
        Int(next() % UInt64(n))
    }

    /// The seed of a randomized test: `CLSFILE_TEST_SEED` replays a failing run; otherwise each run
    /// draws a new one, which the test names in every failure.
    static func testSeed() -> UInt64 {
        ProcessInfo.processInfo.environment["CLSFILE_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
    }
}

func count(_ text: String) -> TextStatistics {
    var counter = WordCounter()
    counter.consume(text)
    return counter.statistics
}
