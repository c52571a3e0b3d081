import Foundation
import Testing
@testable import ContentDetectors
import TestSupport

/// What each format holds that is not body prose: code, tracked deletions, page furniture and file
/// names, and the charset an HTML file declares.
@Suite("Not prose")
struct NotProseTests {
    let analyzer = DocumentAnalyzer()

    func report(_ name: String) throws -> DocumentReport { try analyzer.analyze(Fixtures.url(name)) }

    @Test func markdownIndentedCodeIsCodeNotWords() throws {
        // pandoc -f commonmark reads indented-code.md as: paragraph, code block (two pieces with a
        // blank line between), paragraph, a list (two paragraphs and a code block indented past the
        // item's text), a paragraph with a lazy and an indented continuation line, a tab-indented
        // code block. Its JSON (`-t json`) holds 27 `Str` words outside the code blocks.
        let r = try report("indented-code.md")
        #expect(r.statistics.words == 27)
        #expect(r.codeLines == 5)
    }

    @Test func markdownIndentedLinesContinueAParagraphOrAListItem() {
        var output = ExtractionOutput()
        var state = MarkdownState()
        for line in ["Words here", "    still the same paragraph", "", "1. Item", "", "    item paragraph"] {
            state.line(Array(line.utf8), &output)
        }
        // By hand: "Words here still the same paragraph", "Item", "item paragraph" (9).
        #expect(output.codeLines == 0)
        #expect(output[.body].counter.statistics.words == 9)
    }

    @Test func markdownIndentedCodeStartsEachNotebookCell() {
        var output = ExtractionOutput()
        var state = MarkdownState()
        state.line(Array("Text".utf8), &output)
        state.endBlock()
        state.line(Array("    code()".utf8), &output)
        #expect(output.codeLines == 1)
        #expect(output[.body].counter.statistics.words == 1)
    }

    @Test func htmlMetaCharsetIsHonoured() throws {
        // Two ideographs are too few to tell Shift_JIS from Windows-1252 by their bytes. The page holds
        // 経済 (two words: each ideograph is one) in its heading; its title "x" is not text.
        let r = try report("meta-shift_jis.html")
        #expect(r.kind.charset == "shift_jis")
        #expect(r.statistics.words == 2)
        #expect(r.statistics.cjkWords == 2)
    }

    @Test func htmlHttpEquivContentTypeIsHonoured() throws {
        let r = try report("meta-koi8-r.html")
        #expect(r.kind.charset == "koi8-r")
        let utf8 = try report("meta-koi8-r.utf8.html")
        #expect(r.statistics == utf8.statistics)
        // "Студенты пишут краткие конспекты каждой главы." (6 by hand and by `w3m -dump | wc -w`).
        #expect(utf8.statistics.words == 6)
    }

    @Test func htmlDeclarationsFollowTheWHATWGLabels() {
        func declared(_ html: String) -> String? { HTMLCharset.declared(in: Array(html.utf8)) }
        #expect(declared("<meta charset=\"ISO-8859-1\">") == "windows-1252")
        #expect(declared("<META CHARSET=gbk>") == "gb18030")
        #expect(declared("<meta content='text/html; charset=\"sjis\"' http-equiv=Content-Type>") == "shift_jis")
        #expect(declared("<meta charset=\"utf-16\">") == "utf-8")
        #expect(declared("<?xml version=\"1.0\" encoding=\"windows-1251\"?><html>") == "windows-1251")
        #expect(declared("<!-- <meta charset=\"big5\"> --><p>none</p>") == nil)
        #expect(declared("<meta charset=\"no-such-charset\">") == nil)
        #expect(declared(String(repeating: " ", count: 1024) + "<meta charset=\"big5\">") == nil)
    }

    @Test func htmlByteOrderMarkWinsOverTheDeclaration() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("bom.html")
        try Data([0xEF, 0xBB, 0xBF] + Array("<html><head><meta charset=\"windows-1252\"></head><body><p>Caf\u{E9}</p></body></html>".utf8))
            .write(to: url)
        #expect(try analyzer.analyze(url).kind.charset == "utf-8")
    }

    @Test func docxHeadersAndFootersAreReportedApart() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("essay.docx")
        try makeDocx(
            at: url, body: paragraph("Four words of body"),
            parts: [
                ("word/header1.xml", "w:hdr", paragraph("Course title here")),
                ("word/header2.xml", "w:hdr", paragraph("First page")),
                (
                    "word/footer1.xml", "w:ftr",
                    paragraph("Page") + "<w:p><w:del w:id=\"1\"><w:r><w:delText>old</w:delText></w:r></w:del></w:p>"
                ),
                ("word/headerStyles.xml", "w:hdr", paragraph("not a header part"))
            ])
        // By hand: body "Four words of body" (4); "Course title here", "First page", "Page" (6 in 3
        // paragraphs; the footer's second paragraph holds only a deletion); headerStyles.xml is no
        // header part.
        let r = try analyzer.analyze(url)
        #expect(r.statistics.words == 4)
        #expect(r.headersAndFooters.words == 6)
        #expect(r.headersAndFooters.paragraphs == 3)
    }

    @Test func headerAndFooterPartsAreFoundInNumberOrder() {
        let names = [
            "word/footer10.xml", "word/header2.xml", "word/footer2.xml", "word/header.xml", "word/document.xml",
            "word/header1.xml.rels", "word/_rels/header1.xml.rels", "customXml/header1.xml"
        ]
        let expected = ["word/header.xml", "word/footer2.xml", "word/header2.xml", "word/footer10.xml"]
        #expect(DocxExtractor.headerAndFooterParts(names) == expected)
    }

    @Test func rtfTrackedDeletionsAreExcluded() throws {
        // Kept: "Kept words stay here." "Inserted text counts." "Café" "back" "end."; the deleted
        // run's \u239? fallback is used up, not carried into the kept text.
        let r = try report("tracked-deletion.rtf")
        #expect(r.statistics.words == 10)
        #expect(r.statistics.paragraphs == 2)
    }

    @Test func latexInlineCodeVerbatimAndFileNamesAreNotWords() throws {
        // TeXcount 3.1.1 (texlive-extra-utils 2022) on inline-code.tex: "Words in text: 16",
        // "Words in headers: 1"; the body here counts headings too.
        let r = try report("inline-code.tex")
        #expect(r.statistics.words == 17)
        #expect(r.codeLines == 4)
    }
}
