import Foundation
import TestSupport
import ZIPFoundation
@testable import ContentDetectors

enum Fixtures {
    static func url(_ name: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(name)
    }
}

/// Builds ZIP files for tests; entries are written in the order given.
func makeZip(at url: URL, _ entries: [(String, Data)], compress: Bool = true) throws {
    let archive = try Archive(url: url, accessMode: .create)
    for (path, data) in entries {
        try archive.addEntry(
            with: path, type: .file, uncompressedSize: Int64(data.count),
            compressionMethod: compress ? .deflate : .none
        ) { position, size in
            data.subdata(in: Int(position)..<Int(position) + size)
        }
    }
}

func wordDocument(_ body: String, namespaces: String = "") -> Data {
    Data(
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"\(namespaces)><w:body>\(body)</w:body></w:document>
        """.utf8)
}

/// A minimal DOCX; `document.xml` comes first so `_rels/.rels` is not among the first entries.
/// `parts` are further parts as (path, root element, content), such as `("word/header1.xml", "w:hdr", …)`.
func makeDocx(
    at url: URL, body: String, footnotes: String? = nil, comments: String? = nil, endnotes: String? = nil,
    parts: [(String, String, String)] = []
) throws {
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

func count(_ text: String) -> TextStatistics {
    var counter = WordCounter()
    counter.consume(text)
    return counter.statistics
}

/// `count` pieces picked at random, each followed by a gap picked at random.
func randomText(_ count: Int, of pieces: [String], gaps: [String], using random: inout SplitMix) -> String {
    var text = ""
    for _ in 0..<count {
        text += pieces[Int.random(in: 0..<pieces.count, using: &random)] + gaps[Int.random(in: 0..<gaps.count, using: &random)]
    }
    return text
}

/// The statistics of `bytes` fed to one counter in chunks of 1 to `longest` bytes, their lengths
/// picked at random: chunks end mid-word and mid-sequence.
func countInRandomChunks(_ bytes: [UInt8], longest: Int, using random: inout SplitMix) -> TextStatistics {
    var counter = WordCounter()
    var i = 0
    while i < bytes.count {
        let end = min(bytes.count, i + Int.random(in: 1...longest, using: &random))
        bytes[i..<end].withUnsafeBytes { counter.consume($0) }
        i = end
    }
    return counter.statistics
}
