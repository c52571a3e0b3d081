import Foundation
import Testing
@testable import ContentDetectors
#if canImport(Glibc)
import Glibc
import TestSupport
#endif

@Suite("Hostile inputs")
struct HostileInputTests {
    let analyzer = DocumentAnalyzer()

    @Test func zipBombIsRefusedByRatio() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("bomb.docx")
        var xml = Data("<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body><w:p><w:r><w:t>".utf8)
        xml.append(Data(repeating: 0x61, count: 64 << 20))
        xml.append(Data("</w:t></w:r></w:p></w:body></w:document>".utf8))
        try makeZip(at: url, [("word/document.xml", xml), ("_rels/.rels", Data("<r/>".utf8))])
        var error: DetectorError?
        let seconds = elapsed { error = detectorError { _ = try analyzer.analyze(url) } }
        #expect(error?.code == .decompressionLimit)
        #expect(error?.message.contains(url.path) == true)
        #expect(seconds < 10, "bounded time, generous for a loaded machine")
    }

    @Test func entryLargerThanTheLimitIsStoppedWhileStreaming() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("big.docx")
        let text = String(repeating: "word ", count: 400_000)
        try makeZip(at: url, [("word/document.xml", wordDocument(paragraph(text)))], compress: false)
        let options = AnalysisOptions(zipLimits: ZipLimits(maximumEntrySize: 1 << 20))
        let error = detectorError { _ = try analyzer.analyze(url, options: options) }
        #expect(error?.code == .decompressionLimit)
    }

    @Test func encryptedEntryIsRefused() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("locked.docx")
        try makeDocx(at: url, body: paragraph("secret"))
        var bytes = [UInt8](try Data(contentsOf: url))
        // Set the "encrypted" flag in every local and central header.
        var i = 0
        while i + 8 < bytes.count {
            if bytes[i] == 0x50 && bytes[i + 1] == 0x4B && bytes[i + 2] == 0x03 && bytes[i + 3] == 0x04 { bytes[i + 6] |= 1 }
            if bytes[i] == 0x50 && bytes[i + 1] == 0x4B && bytes[i + 2] == 0x01 && bytes[i + 3] == 0x02 { bytes[i + 8] |= 1 }
            i += 1
        }
        try Data(bytes).write(to: url)
        let error = detectorError { _ = try analyzer.analyze(url) }
        #expect(error?.code == .encryptedEntry)
    }

    @Test func truncatedZipIsCorrupt() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("cut.docx")
        let whole = try Data(contentsOf: Fixtures.url("english-lo.docx"))
        try whole.prefix(whole.count / 2).write(to: url)
        let error = detectorError { _ = try analyzer.analyze(url) }
        #expect(error?.code == .corruptArchive)
    }

    @Test func billionLaughsDoesNotExpand() throws {
        let dir = try Scratch()
        var entities = "<!ENTITY lol \"lol\">"
        for k in 1...9 {
            let prev = k == 1 ? "lol" : "lol\(k - 1)"
            entities += "<!ENTITY lol\(k) \"" + String(repeating: "&\(prev);", count: 10) + "\">"
        }
        let doctype = "<!DOCTYPE lolz [\(entities)]>"
        let docx = dir.url.appendingPathComponent("laughs.docx")
        let xml =
            "<?xml version=\"1.0\"?>\(doctype)<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>\(paragraph("Start &lol9; end"))</w:body></w:document>"
        try makeZip(at: docx, [("word/document.xml", Data(xml.utf8))])
        let fodt = try dir.file(
            "laughs.fodt",
            "<?xml version=\"1.0\"?>\(doctype)<office:document xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body><office:text><text:p>Start &lol9; end</text:p></office:text></office:body></office:document>"
        )
        let external = try dir.file(
            "external.fodt",
            "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><office:document xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body><office:text><text:p>Start &xxe; end</text:p></office:text></office:body></office:document>"
        )
        for url in [docx, fodt, external] {
            var report: DocumentReport?
            let seconds = try elapsed { report = try analyzer.analyze(url) }
            #expect(report?.statistics.words == 2, "\(url.lastPathComponent)")
            #expect(seconds < 10, "bounded time, generous for a loaded machine")
        }
    }

    @Test func fifoIsRefusedWithoutBlocking() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("pipe")
        #expect(mkfifo(url.path, 0o600) == 0)
        var error: DetectorError?
        let seconds = elapsed { error = detectorError { _ = try analyzer.analyze(url) } }
        #expect(error?.code == .notARegularFile)
        #expect(error?.message.contains("FIFO") == true)
        #expect(seconds < 10, "bounded time, generous for a loaded machine")
        #expect(detectorError { _ = try KindDetector().kind(of: url) }?.code == .notARegularFile)
    }

    @Test func devicesAndDirectoriesAreRefused() throws {
        var error: DetectorError?
        let seconds = elapsed { error = detectorError { _ = try analyzer.analyze(URL(fileURLWithPath: "/dev/zero")) } }
        #expect(error?.code == .notARegularFile)
        #expect(error?.message.contains("character device") == true)
        #expect(seconds < 10, "bounded time, generous for a loaded machine")
        let dir = try Scratch()
        #expect(detectorError { _ = try analyzer.analyze(dir.url) }?.code == .notARegularFile)
        #expect(detectorError { _ = try analyzer.analyze(dir.url.appendingPathComponent("missing.txt")) }?.code == .unreadable)
    }

    @Test func sparseFileAboveTheLimitIsRefusedBeforeReading() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("sparse.txt")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        #expect(truncate(url.path, 2 << 30) == 0)
        var error: DetectorError?
        let seconds = elapsed { error = detectorError { _ = try analyzer.analyze(url) } }
        #expect(error?.code == .fileTooLarge)
        #expect(error?.message.contains("maximumFileSize") == true)
        #expect(seconds < 10, "bounded time, generous for a loaded machine")
    }

    @Test func sparseFileWithinTheLimitIsCountedInConstantMemory() throws {
        // 256 MiB of NUL bytes: binary, so refused as unsupported after reading only the sample.
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("zeros.bin")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        #expect(truncate(url.path, 256 << 20) == 0)
        let error = detectorError { _ = try analyzer.analyze(url) }
        #expect(error?.code == .unsupportedFormat)
    }

    @Test func randomBytesAreUnsupported() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("random.bin")
        // A fixed sequence: system randomness now and then looks like some format to libmagic.
        var random = SplitMix(seed: 1)
        let bytes = (0..<65536).map { _ in UInt8(truncatingIfNeeded: random.next() >> 24) }
        try Data(bytes).write(to: url)
        let error = detectorError { _ = try analyzer.analyze(url) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("application/octet-stream") == true)
    }

    @Test func randomBytesNeverCrashTheExtractors() throws {
        // Every extractor, fed garbage under a forced kind, must end with counts or a DetectorError.
        let dir = try Scratch()
        let seed = SplitMix.testSeed()
        var generator = SplitMix(seed: seed)
        print("randomBytesNeverCrashTheExtractors: CLSFILE_TEST_SEED=\(seed)")
        let bytes = (0..<40_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let url = dir.url.appendingPathComponent("garbage")
        try Data(bytes).write(to: url)
        let file = try SafeFile(url: url, maximumSize: 1 << 30)
        let extractors: [TextExtractor] = [
            PlainTextExtractor(), MarkdownExtractor(), HTMLExtractor(), LaTeXExtractor(), RTFExtractor(),
            OpenDocumentExtractor(flat: true), OpenDocumentExtractor(flat: false), DocxExtractor(), EPUBExtractor()
        ]
        for charset in ["utf-8", "gb18030", "utf-16le"] {
            let source = DocumentSource(
                file: file, kind: FileKind(format: .plainText, mimeType: "text/plain", charset: charset),
                zipItems: nil, options: AnalysisOptions())
            for extractor in extractors {
                var output = ExtractionOutput()
                let started = ContinuousClock.now
                do {
                    try extractor.extract(source, into: &output)
                } catch is DetectorError {
                } catch {
                    Issue.record(
                        "\(type(of: extractor)) (\(charset)) threw \(error), not a DetectorError; replay with CLSFILE_TEST_SEED=\(seed)")
                }
                // 40 kB take milliseconds; seconds would be a hang in the making.
                #expect(started.duration(to: .now) < .seconds(5), "\(type(of: extractor)) (\(charset)); CLSFILE_TEST_SEED=\(seed)")
            }
        }
    }

    /// Found by the fuzzer (Fuzz/Regressions/rtf): a \u with a parameter past 32 bits trapped
    /// converting it to a scalar. Parameters too long for RTF are read as none.
    @Test func rtfParametersTooLargeForRTFAreReadAsNone() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("huge.rtf")
        let text =
            #"{\rtf1\ansi\ansicpg99999999999999999999 one \u888888888888888888888? two \u4294967296? three \u-99999999999? four \uc99999999999 five}"#
        try Data(text.utf8).write(to: url)
        let report = try analyzer.analyze(url)
        #expect(report.statistics.words == 5, "\(report.statistics.words)")
    }
}
