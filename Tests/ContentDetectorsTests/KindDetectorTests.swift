import Foundation
import Testing
@testable import ContentDetectors

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
        ("notebook.ipynb", .notebook, "application/x-ipynb+json", "us-ascii"),
    ])
    func detects(_ name: String, _ format: DocumentFormat, _ mime: String, _ charset: String) throws {
        let kind = try detector.kind(of: Fixtures.url(name))
        #expect(kind == FileKind(format: format, mimeType: mime, charset: charset), "\(name)")
    }

    @Test func docxSavedAsDocWithLateRelsIsRecognisedByEntries() throws {
        let dir = try TemporaryDirectory()
        let url = dir.url.appendingPathComponent("essay.doc")
        try makeDocx(at: url, body: paragraph("Hello there"))
        let kind = try detector.kind(of: url)
        #expect(kind.format == .docx)
    }

    @Test func binaryIsUnknownWithMagicMimeType() throws {
        let dir = try TemporaryDirectory()
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
        #expect(error?.errorDescription == error?.message)
    }

    @Test func magicIsThreadSafeUnderConcurrency() async throws {
        let url = Fixtures.url("notes.md")
        try await withThrowingTaskGroup(of: FileKind.self) { group in
            for _ in 0..<16 { group.addTask { try KindDetector().kind(of: url) } }
            for try await kind in group { #expect(kind.format == .markdown) }
        }
    }
}
