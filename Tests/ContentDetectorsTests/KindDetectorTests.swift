import Foundation
import Testing
@testable import ContentDetectors
import TestSupport

@Suite("Kind detection")
struct KindDetectorTests {
    let detector = KindDetector()

    @Test(arguments: [
        ("english.txt", DocumentFormat.plainText, "text/plain", "us-ascii"),
        ("utf8-bom.txt", .plainText, "text/plain", "utf-8"),
        ("utf16le.txt", .plainText, "text/plain", "utf-16le"),
        ("utf16be.txt", .plainText, "text/plain", "utf-16be"),
        ("utf16le-nobom.txt", .plainText, "text/plain", "utf-16le"),
        ("latin1.txt", .plainText, "text/plain", "iso-8859-1"),
        ("cp1252.txt", .plainText, "text/plain", "windows-1252"),
        ("gb18030.txt", .plainText, "text/plain", "gb18030"),
        ("big5.txt", .plainText, "text/plain", "big5"),
        ("shift_jis.txt", .plainText, "text/plain", "shift_jis"),
        ("euc-kr.txt", .plainText, "text/plain", "euc-kr"),
        ("chinese.utf8.txt", .plainText, "text/plain", "utf-8"),
        ("invalid-utf8.txt", .plainText, "text/plain", "utf-8"),
        ("short-note.txt", .plainText, "text/plain", "us-ascii"),
        ("short-note", .plainText, "text/plain", "us-ascii"),
        ("notes.md", .markdown, "text/markdown", "us-ascii"),
        ("notes-no-extension", .markdown, "text/markdown", "us-ascii"),
        ("page.html", .html, "text/html", "us-ascii"),
        ("page-saved-as.txt", .html, "text/html", "us-ascii"),
        ("essay.tex", .latex, "text/x-tex", "us-ascii"),
        ("essay.rtf", .rtf, "text/rtf", "us-ascii"),
        ("english.odt", .odt, "application/vnd.oasis.opendocument.text", "binary"),
        ("english.fodt", .flatODT, "application/vnd.oasis.opendocument.text-flat-xml", "us-ascii"),
        ("english-lo.docx", .docx, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "binary"),
        ("notebook.ipynb", .notebook, "application/x-ipynb+json", "us-ascii")
    ])
    func detects(_ name: String, _ format: DocumentFormat, _ mime: String, _ charset: String) throws {
        let kind = try detector.kind(of: Fixtures.url(name))
        #expect(kind == FileKind(format: format, mimeType: mime, charset: charset), "\(name)")
    }

    @Test func docxSavedAsDocWithLateRelsIsRecognisedByEntries() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("essay.doc")
        try makeDocx(at: url, body: paragraph("Hello there"))
        let kind = try detector.kind(of: url)
        #expect(kind.format == .docx)
    }

    @Test func binaryIsUnknownWithMagicMimeType() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("image.png")
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52]
        bytes += [UInt8](repeating: 0, count: 64)
        try Data(bytes).write(to: url)
        let kind = try detector.kind(of: url)
        #expect(kind.format == .unknown)
        #expect(kind.mimeType == "image/png")
        let error = detectorError { _ = try DocumentAnalyzer().analyze(url) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("image/png") == true)
        #expect(error?.description == error?.message)
    }

    @Test func magicIsThreadSafeUnderConcurrency() async throws {
        let url = Fixtures.url("notes.md")
        try await withThrowingTaskGroup(of: FileKind.self) { group in
            for _ in 0..<16 { group.addTask { try KindDetector().kind(of: url) } }
            for try await kind in group { #expect(kind.format == .markdown) }
        }
    }

    /// The `mimetype` entry decides between OpenDocument kinds: read from the first bytes when it
    /// is stored first, else through the central directory.
    @Test(arguments: [false, true])
    func theDeclaredMimetypeDecidesEvenWhenItIsCompressed(_ compress: Bool) throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("sheet.odt")
        let spreadsheet = "application/vnd.oasis.opendocument.spreadsheet"
        try makeZip(
            at: url,
            [
                ("mimetype", Data(spreadsheet.utf8)), ("content.xml", Data("<x/>".utf8)),
                ("META-INF/manifest.xml", Data("<x/>".utf8))
            ], compress: compress)
        let head = try [UInt8](Data(contentsOf: url).prefix(KindDetector.sampleSize))
        let stored = ZipContainer.leadingStoredEntry(named: "mimetype", in: head, limit: 256)
        #expect(stored.map { String(decoding: $0, as: UTF8.self) } == (compress ? nil : spreadsheet))
        let kind = try detector.kind(of: url)
        #expect(kind.format == .zip && kind.mimeType == spreadsheet)
    }

    @Test func aLeadingMimetypeIsOnlyTakenWhenItIsPlainAndWhole() throws {
        func header(flags: UInt8 = 0, method: UInt8 = 0, size: UInt8, name: String = "mimetype") -> [UInt8] {
            var bytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 20, 0, flags, 0, method, 0] + [UInt8](repeating: 0, count: 8)
            bytes += [size, 0, 0, 0, size, 0, 0, 0, UInt8(name.utf8.count), 0, 0, 0]
            return bytes + Array(name.utf8)
        }
        func entry(_ head: [UInt8], limit: Int = 256) -> String? {
            ZipContainer.leadingStoredEntry(named: "mimetype", in: head, limit: limit).map { String(decoding: $0, as: UTF8.self) }
        }
        let type = Array("application/epub+zip".utf8)
        #expect(entry(header(size: UInt8(type.count)) + type) == "application/epub+zip")
        #expect(entry(header(flags: 1, size: UInt8(type.count)) + type) == nil, "encrypted")
        #expect(entry(header(method: 8, size: UInt8(type.count)) + type) == nil, "deflated")
        #expect(entry(header(size: UInt8(type.count)) + type.prefix(5)) == nil, "truncated")
        #expect(entry(header(size: UInt8(type.count), name: "mimetypf") + type) == nil, "another entry")
        #expect(entry(header(size: UInt8(type.count)) + type, limit: 8) == nil, "over the limit")
        #expect(entry(Array(header(size: 4).prefix(20))) == nil, "a short head")
    }
}
