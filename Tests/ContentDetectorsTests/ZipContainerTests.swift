import Foundation
import Testing
@testable import ContentDetectors
import TestSupport

/// ZIP documents made by ZIPFoundation, read back by ``ZipContainer``'s own reader and zlib,
/// whole and damaged in each field it trusts.
@Suite("ZIP container")
struct ZipContainerTests {
    let analyzer = DocumentAnalyzer()

    /// `count` words from a small vocabulary in a fixed pseudo-random order: compressible, but
    /// not so much that a few megabytes fit in one read.
    static func words(_ count: Int) -> String {
        let vocabulary = [
            "essay", "river", "photosynthesis", "because", "the", "students", "argue", "quietly",
            "seventeen", "northern", "evidence", "which", "library", "measured", "a", "conclusion"
        ]
        var random = SplitMix(seed: 1)
        var text = ""
        text.reserveCapacity(count * 9)
        for index in 0..<count {
            text += vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)]
            text += index % 23 == 22 ? ". " : " "
        }
        return text
    }

    /// Offsets of every header with the given signature ("PK\u{3}\u{4}" local, "PK\u{1}\u{2}" central).
    static func headers(_ bytes: [UInt8], _ kind: UInt8) -> [Int] {
        (0..<(bytes.count - 4)).filter { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == kind && bytes[$0 + 3] == kind + 1 }
    }

    static func setUInt32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    /// A DOCX whose body is `text`, as bytes to damage.
    func docx(_ dir: Scratch, _ text: String, compress: Bool = true) throws -> (URL, [UInt8]) {
        let url = dir.url.appendingPathComponent("essay.docx")
        try makeZip(
            at: url, [("word/document.xml", wordDocument(paragraph(text))), ("_rels/.rels", Data("<r/>".utf8))],
            compress: compress)
        return (url, [UInt8](try Data(contentsOf: url)))
    }

    @Test(arguments: [true, false])
    func entriesLargerThanOneReadAreCountedWhole(compressed: Bool) throws {
        // About 3.5 MB of XML: more than one 1 MiB read of the file when stored, and many 16 KiB
        // output buffers of zlib when deflated.
        let dir = try Scratch()
        let (url, bytes) = try docx(dir, Self.words(400_000), compress: compressed)
        let report = try analyzer.analyze(url)
        #expect(report.statistics.words == 400_000)
        #expect(report.kind.format == .docx)
        if !compressed { #expect(bytes.count > 3 << 20) }
    }

    /// The error from analyzing a DOCX of `text` after `damage` changed its bytes; `central` is
    /// where the central header of its first entry, `word/document.xml`, starts.
    func errorAfterDamaging(_ text: String, _ damage: (_ bytes: inout [UInt8], _ central: Int) -> Void) throws -> DetectorError? {
        let dir = try Scratch()
        var (url, bytes) = try docx(dir, text)
        damage(&bytes, try #require(Self.headers(bytes, 1).first))
        try Data(bytes).write(to: url)
        let error = detectorError { _ = try analyzer.analyze(url) }
        #expect(error?.message.contains(url.path) == true, "the message names the file: \(error?.message ?? "no error")")
        return error
    }

    @Test func damagedDeflateDataIsCorruptNotACrash() throws {
        let error = try errorAfterDamaging(Self.words(2_000)) { bytes, central in
            // 0xFF opens a DEFLATE block of the reserved type 3.
            let local = Int(Self.uint32(bytes, at: central + 42))
            let nameAndExtra =
                (Int(bytes[local + 26]) | Int(bytes[local + 27]) << 8) + (Int(bytes[local + 28]) | Int(bytes[local + 29]) << 8)
            for k in 0..<16 { bytes[local + 30 + nameAndExtra + k] = 0xFF }
        }
        #expect(error?.code == .corruptArchive)
        #expect(error?.message.contains("word/document.xml cannot be inflated") == true, "\(error?.message ?? "")")
    }

    @Test func randomlyDamagedDocumentsGiveCountsOrDetectorErrors() throws {
        // Bytes flipped anywhere (headers, compressed data, directory) of real LibreOffice and
        // pandoc files: each read ends with a report or a DetectorError, never a crash or a hang.
        let dir = try Scratch()
        let seed = SplitMix.testSeed()
        var generator = SplitMix(seed: seed)
        print("randomlyDamagedDocumentsGiveCountsOrDetectorErrors: CLSFILE_TEST_SEED=\(seed)")
        for fixture in ["english-lo.docx", "english.odt", "header-footer.odt"] {
            let original = [UInt8](try Data(contentsOf: Fixtures.url(fixture)))
            let url = dir.url.appendingPathComponent(fixture)
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                try Data(bytes).write(to: url)
                let started = ContinuousClock.now
                do {
                    _ = try analyzer.analyze(url)
                } catch is DetectorError {
                } catch {
                    Issue.record("\(fixture) threw \(error), not a DetectorError; replay with CLSFILE_TEST_SEED=\(seed)")
                }
                #expect(started.duration(to: .now) < .seconds(5), "\(fixture) took too long; CLSFILE_TEST_SEED=\(seed)")
            }
        }
    }

    @Test func anUnsupportedCompressionMethodIsNamed() throws {
        let error = try errorAfterDamaging("three short words") { bytes, _ in
            for central in Self.headers(bytes, 1) { bytes[central + 10] = 14 } // LZMA
            for local in Self.headers(bytes, 3) { bytes[local + 8] = 14 }
        }
        #expect(error?.code == .corruptArchive)
        #expect(error?.message.contains("compression method 14") == true, "\(error?.message ?? "")")
    }

    @Test func aDirectoryThatPromisesMoreThanTheDataHoldsIsCorrupt() throws {
        var actual: UInt32 = 0
        let error = try errorAfterDamaging(Self.words(500)) { bytes, central in
            actual = Self.uint32(bytes, at: central + 24)
            Self.setUInt32(&bytes, at: central + 24, actual + 10)
        }
        #expect(error?.code == .corruptArchive)
        #expect(error?.message.contains("gives \(actual) bytes but its directory says \(actual + 10)") == true, "\(error?.message ?? "")")
    }

    @Test func dataBeyondWhatTheDirectoryDeclaresIsStopped() throws {
        let error = try errorAfterDamaging(Self.words(500)) { bytes, central in
            Self.setUInt32(&bytes, at: central + 24, Self.uint32(bytes, at: central + 24) - 100)
        }
        #expect(error?.code == .decompressionLimit)
    }

    @Test func aLocalHeaderOutsideTheFileIsCorrupt() throws {
        let error = try errorAfterDamaging("three short words") { bytes, central in
            Self.setUInt32(&bytes, at: central + 42, UInt32(bytes.count - 10))
        }
        #expect(error?.code == .corruptArchive)
        #expect(error?.message.contains("local header of entry word/document.xml is damaged") == true, "\(error?.message ?? "")")
    }

    @Test func entryDataRunningPastTheEndIsCorrupt() throws {
        let error = try errorAfterDamaging("three short words") { bytes, central in
            Self.setUInt32(&bytes, at: central + 20, UInt32(bytes.count))
        }
        #expect(error?.code == .corruptArchive)
        #expect(error?.message.contains("runs past the end of the file") == true, "\(error?.message ?? "")")
    }

    @Test func directoryLookupsFindTheLastEntryOfAName() {
        func item(_ name: String, _ offset: UInt64) -> ZipContainer.Item {
            ZipContainer.Item(name: name, method: 8, compressedSize: 1, uncompressedSize: 1, localHeaderOffset: offset, encrypted: false)
        }
        var entries = (0..<50_000).map { item("word/header\($0).xml", UInt64($0)) }
        entries.insert(item("word/document.xml", 1_000_000), at: 7)
        entries.append(item("word/document.xml", 2_000_000))
        entries.append(item("", 3_000_000))
        let directory = ZipContainer.Directory(entries: entries)
        #expect(directory["word/document.xml"]?.localHeaderOffset == 2_000_000, "the later of two entries of one name")
        #expect(directory["word/header0.xml"]?.localHeaderOffset == 0)
        #expect(directory["word/header49999.xml"]?.localHeaderOffset == 49_999)
        #expect(directory[""]?.localHeaderOffset == 3_000_000)
        #expect(directory["word/header50000.xml"] == nil)
        #expect(directory["a"] == nil)
        #expect(directory["zzz"] == nil)
        #expect(directory.names.count == 50_003)
    }

    @Test func theFileIsOpenedOnceForDetectionAndExtraction() throws {
        // Kind detection reads the central directory; the extractor reuses it and the open file.
        let dir = try Scratch()
        let (url, _) = try docx(dir, "four words in all")
        let file = try SafeFile(url: url, maximumSize: 1 << 30)
        let (kind, items) = try KindDetector().detect(file)
        #expect(kind.format == .docx)
        #expect(items?["word/document.xml"]?.method == 8)
        #expect(items?["word/document.xml"]?.localHeaderOffset == 0)
        let zip = try ZipContainer(file: file, items: items, limits: ZipLimits())
        let xml = String(decoding: try zip.readSmall("word/document.xml"), as: UTF8.self)
        #expect(xml.contains("four words in all"))
    }
}
