import Foundation
import Testing
@testable import ContentDetectors
import TestSupport

@Suite("Extractors")
struct ExtractorTests {
    let analyzer = DocumentAnalyzer()

    func report(_ name: String) throws -> DocumentReport { try analyzer.analyze(Fixtures.url(name)) }

    @Test(arguments: ["utf8-bom.txt", "utf16le.txt", "utf16be.txt", "utf16le-nobom.txt", "crlf.txt", "cr.txt"])
    func encodingsAndLineEndsGiveTheSameCounts(_ name: String) throws {
        let reference = try report("english.txt").statistics
        #expect(try report(name).statistics == reference, "\(name)")
    }

    /// The expected counts, from the UTF-8 copies: Chinese and Japanese count every ideograph and
    /// kana as a word, as Word and LibreOffice do; Python's `unicodedata.name` finds 66 CJK ideographs
    /// in each Chinese text, and in the Japanese one 29 ideographs, 44 hiragana, 2 katakana and one
    /// prolonged sound mark (76). Korean and French separate words with spaces: `wc -w` says 21 and 23.
    @Test(arguments: [
        ("gb18030.txt", "chinese.utf8.txt", 66), ("big5.txt", "traditional.utf8.txt", 66),
        ("shift_jis.txt", "japanese.utf8.txt", 76), ("euc-kr.txt", "korean.utf8.txt", 21),
        ("latin1.txt", "french.utf8.txt", 23)
    ])
    func legacyEncodingsDecodeLikeUTF8(_ legacy: String, _ utf8: String, _ words: Int) throws {
        let a = try report(legacy).statistics
        let b = try report(utf8).statistics
        #expect(a == b, "\(legacy)")
        #expect(b.words == words, "\(utf8)")
    }

    /// 66 ideographs, by Python's `unicodedata.name` (each name starts "CJK UNIFIED IDEOGRAPH").
    @Test func chineseCountsEachIdeograph() throws {
        let s = try report("chinese.utf8.txt").statistics
        #expect(s.cjkWords == s.words)
        #expect(s.words == 66)
        #expect(s.paragraphs == 2)
    }

    /// `iconv -f cp1252 -t utf-8 cp1252.txt | wc -w` says 14: it takes the lone em dash for a word,
    /// which it is not. By hand: The teacher said read every day and it's true Café notes cost 5€ (13).
    @Test func windows1252SmartQuotesAndEuro() throws {
        let r = try report("cp1252.txt")
        #expect(r.statistics.words == 13)
        #expect(r.statistics.sentences == 2)
    }

    /// `wc -w invalid-utf8.txt` says 7; the stray 0xFF byte sits inside "w\u{FFFD}rld".
    @Test func invalidUTF8IsReplaced() throws {
        let s = try report("invalid-utf8.txt").statistics
        #expect(s.words == 7)
    }

    /// pandoc 2.17 (`pandoc -f markdown -t json notes.md`) holds 30 `Str` words outside `Code`,
    /// `CodeBlock` and `Image`, the checkbox glyphs it adds left out; the front matter is metadata.
    @Test func markdown() throws {
        let r = try report("notes.md")
        #expect(r.statistics.words == 30)
        #expect(r.codeLines == 3)
        #expect(r.checklist == ChecklistCount(done: 2, total: 3))
        let progress = ProgressEstimator.checklist.estimate(r)
        #expect(abs(progress.value - 2.0 / 3) < 1e-9)
        #expect(progress.basis == "2 of 3 checklist items done")
    }

    @Test func plainTextChecklist() throws {
        let dir = try Scratch()
        let url = try dir.file("todo.txt", "Plan\n- [x] one\n  * [ ] two\n1. [x] three\nnot - [x] an item\n")
        let r = try analyzer.analyze(url)
        #expect(r.checklist == ChecklistCount(done: 2, total: 3))
    }

    /// `w3m -dump page.html | wc -w` says 19; less "&" and "—", which are no words, and the four
    /// words inside `<template>`, which a browser does not show: 13.
    @Test func html() throws {
        let r = try report("page.html")
        #expect(r.statistics.words == 13)
        #expect(r.statistics.paragraphs == 3)
        #expect(try report("page-saved-as.txt").statistics == r.statistics)
    }

    /// TeXcount 3.1.1 (`texcount -merge essay.tex`): 19 words of text and 7 of headers, 3 of them the
    /// preamble's \title, which is not printed here; 19 + 4 = 23. The footnote's 4 words are its
    /// "words outside text".
    @Test func latex() throws {
        let r = try report("essay.tex")
        #expect(r.statistics.words == 23)
        #expect(r.footnotes.words == 4)
    }

    /// By hand, as `pandoc -f rtf -t plain essay.rtf` prints it: "Café au lait is tasty—really."
    /// (6 words; `wc -w` joins the dashed pair) and "Second paragraph has “quotes” too." (5; pandoc
    /// 2.17 eats the "q" after the \u8220? fallback). Footnote "A footnote here." (3); the
    /// annotation "A comment." (2), which pandoc drops; the \info title is not text.
    @Test func rtf() throws {
        let r = try report("essay.rtf")
        #expect(r.statistics.words == 11)
        #expect(r.footnotes.words == 3)
        #expect(r.comments.words == 2)
    }

    @Test(arguments: ["english.odt", "english.fodt", "english-lo.docx"])
    func libreOfficeDocumentsMatchItsWordCount(_ name: String) throws {
        // LibreOffice's meta.xml for english.odt says meta:word-count="73".
        let r = try report(name)
        #expect(r.statistics.words == 73, "\(name)")
        #expect(r.statistics.paragraphs == 3, "\(name)")
    }

    /// Page headers and footers are counted apart from the body, as for DOCX; with them,
    /// LibreOffice's own count of the file (its meta.xml) is reached: it counts them with the body.
    @Test(arguments: ["header-footer.odt", "header-footer.fodt"])
    func odtHeadersAndFootersAreCountedApart(_ name: String) throws {
        let r = try report(name)
        #expect(r.statistics.words == 19, "\(name)")
        #expect(r.statistics.paragraphs == 2, "\(name)")
        // "Ada Lovelace, essay draft" and "Page 1 of the course": the page number field holds the
        // value of the page it was saved on, and LibreOffice counts it.
        #expect(r.headersAndFooters.words == 9, "\(name)")
        #expect(r.headersAndFooters.paragraphs == 2, "\(name)")
        #expect(r.statistics.words + r.headersAndFooters.words == 28, "LibreOffice's meta:word-count")
    }

    /// With the body alone wanted, the parts that hold only notes, comments or page headers and
    /// footers go unread: damaged, they stop the whole reading and not this one, whose body is the
    /// whole reading's and whose other figures are empty, even a footnote the body's part holds.
    @Test func theBodyAloneIsReadWithoutThePartsBesideIt() throws {
        let dir = try Scratch()
        // ODT: a footnote in content.xml, the master page's header in styles.xml.
        let odt = dir.url.appendingPathComponent("parts.odt")
        let office = "xmlns:office=\"\(OpenDocumentExtractor.office)\" xmlns:text=\"\(OpenDocumentExtractor.text)\""
        try makeZip(
            at: odt,
            [
                ("mimetype", Data("application/vnd.oasis.opendocument.text".utf8)),
                (
                    "content.xml",
                    Data(
                        """
                        <office:document-content \(office)><office:body><office:text><text:p>Four words of \
                        body<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation>\
                        <text:note-body><text:p>A footnote</text:p></text:note-body></text:note></text:p>\
                        </office:text></office:body></office:document-content>
                        """.utf8)
                ),
                (
                    "styles.xml",
                    Data(
                        """
                        <office:document-styles \(office) xmlns:style="\(OpenDocumentExtractor.style)">\
                        <office:master-styles><style:master-page style:name="Standard"><style:header>\
                        <text:p>Course title</text:p></style:header></style:master-page></office:master-styles>\
                        </office:document-styles>
                        """.utf8)
                )
            ])
        // DOCX: footnotes, endnotes, comments and a header, each a part of its own.
        let docx = dir.url.appendingPathComponent("parts.docx")
        try makeDocx(
            at: docx, body: paragraph("Four words of body"), footnotes: paragraph("A footnote"),
            comments: paragraph("A remark here"), endnotes: paragraph("An endnote"),
            parts: [("word/header1.xml", "w:hdr", paragraph("Course title"))])
        let bodyOnly = AnalysisOptions(measuresBodyOnly: true)
        let partsBesideBody = [
            odt: ["styles.xml"],
            docx: ["word/footnotes.xml", "word/endnotes.xml", "word/comments.xml", "word/header1.xml"]
        ]
        for (url, parts) in partsBesideBody {
            let whole = try analyzer.analyze(url)
            #expect(whole.statistics.words == 4, "\(url.path)")
            #expect(whole.footnotes.words == 2, "\(url.path)")
            #expect(whole.headersAndFooters.words == 2, "\(url.path)")
            let body = try analyzer.analyze(url, options: bodyOnly)
            #expect(body.statistics == whole.statistics, "\(url.path)")
            for figures in [body.footnotes, body.endnotes, body.comments, body.headersAndFooters] {
                #expect(figures == TextStatistics(), "\(url.path)")
            }
            for part in parts { try DamagedZipEntry.damage(part, inZipAt: url) }
            #expect(throws: DetectorError.self, "\(url.path)") { try analyzer.analyze(url) }
            #expect(try analyzer.analyze(url, options: bodyOnly).statistics == whole.statistics, "\(url.path)")
        }
    }

    /// Empty and hidden headers are self-closing, as LibreOffice writes them; they must not end the
    /// regions that count, before the body or after them. An annotation in a header is a comment.
    @Test func emptyHeadersAndNestedNotesKeepEveryRegionApart() throws {
        let dir = try Scratch()
        let url = try dir.file(
            "empty-header.fodt",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:mimetype="application/vnd.oasis.opendocument.text">
            <office:master-styles><style:master-page style:name="Standard">
            <style:header-left style:display="false"/><style:footer/>
            <style:header><text:p>Two words<office:annotation><text:p>a remark here</text:p></office:annotation></text:p></style:header>
            <style:footer-first/><style:footer-left><text:p>left footer</text:p></style:footer-left>
            </style:master-page></office:master-styles>
            <text:p>Outside every region.</text:p>
            <office:body><office:text><text:p>Four words of body.</text:p></office:text></office:body>
            </office:document>
            """)
        // By hand: body "Four words of body." (4); headers and footers "Two words" and "left footer"
        // (4 in 2 paragraphs, the empty and hidden ones hold none); the annotation "a remark here" (3);
        // "Outside every region." is in no counted part.
        let r = try analyzer.analyze(url)
        #expect(r.kind.format == .flatODT)
        #expect(r.statistics.words == 4)
        #expect(r.statistics.paragraphs == 1)
        #expect(r.headersAndFooters.words == 4)
        #expect(r.headersAndFooters.paragraphs == 2)
        #expect(r.comments.words == 3)
    }

    /// OpenDocument's style and font declarations are read past unparsed, up to their end tags:
    /// whatever they hold is not prose, what follows them is, wherever the chunks of the stream
    /// split the end tag, and however the end tag is spaced.
    @Test(arguments: [1, 7, 64, 16_384])
    func styleDeclarationsAreReadPastInAnyChunks(chunkSize: Int) throws {
        let declarations = String(
            repeating: "<style:style style:name=\"P1\"><style:text-properties fo:color=\"#000000\"/></style:style>", count: 300)
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
            xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" \
            xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0">
            <office:font-face-decls><style:font-face style:name="Liberation Serif"/></office:font-face-decls>
            <office:styles>\(declarations)<style:header><text:p>not a real header</text:p></style:header></office:styles >
            <office:automatic-styles><style:page-layout style:name="pm1"/></office:automatic-styles\t>
            <office:master-styles><style:master-page style:name="Standard">
            <style:header><text:p>Three header words</text:p></style:header></style:master-page></office:master-styles>
            </office:document-styles>
            """
        var walker = XMLProseWalker(OpenDocumentExtractor.vocabulary)
        var tokenizer = MarkupTokenizer(html: false, path: "styles.xml")
        let bytes = Array(xml.utf8)
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            try bytes[start..<min(start + chunkSize, bytes.count)].withUnsafeBytes { try tokenizer.feed($0, &walker) }
        }
        try tokenizer.finish(&walker)
        walker.finish()
        // "Three header words" (3); "not a real header" is inside the style declarations.
        #expect(walker.output[.headersAndFooters].counter.statistics.words == 3)
        #expect(walker.output[.body].counter.statistics.words == 0)
    }

    @Test func otherPrefixesBoundToTheDialectsNamespacesWork() throws {
        // WordprocessingML bound to "x" and "w" to an unrelated namespace: elements are matched
        // by namespace, not by the usual prefix.
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("prefixes.docx")
        let xml = """
            <x:document xmlns:w="urn:example:other" xmlns:x="http://schemas.openxmlformats.org/wordprocessingml/2006/main">\
            <x:body><x:p><x:r><x:t>Three counted words</x:t></x:r><w:r><w:t>not prose</w:t></w:r></x:p>\
            <x:p><x:del><x:r><x:t>deleted</x:t></x:r></x:del><x:r><x:t>kept</x:t></x:r></x:p></x:body></x:document>
            """
        try makeZip(at: url, [("word/document.xml", Data(xml.utf8))])
        // By hand: "Three counted words" and "kept" (4); "deleted" is a tracked deletion.
        let report = try analyzer.analyze(url)
        #expect(report.statistics.words == 4)
        #expect(report.statistics.paragraphs == 2)
    }

    @Test func namespaceDeclarationsAreReadInOrderWhateverTheirQuotes() {
        let attributes = """
            xmlns:office="urn:office" version="1.3" xmlns:text = 'urn:text' xmlns='urn:default' \
            data-xmlns:fake="urn:not" xmlns:bare=unquoted xmlns:cut="urn:cut
            """
        let declared = Array(attributes.utf8).withUnsafeBytes { MarkupTokenizer.namespaces(in: $0) }
        // The default namespace has no prefix; "data-xmlns:fake" ends in the key, so it counts
        // like any other; an unquoted value is skipped; a value cut off at the end keeps what is there.
        #expect(declared.map(\.prefix) == ["office", "text", "fake", "cut"])
        #expect(declared.map(\.uri) == ["urn:office", "urn:text", "urn:not", "urn:cut"])
        #expect(Array("xmlns:".utf8).withUnsafeBytes { MarkupTokenizer.namespaces(in: $0) }.isEmpty)
    }

    /// Text held in entities the document defines itself is never expanded, so not counted; the
    /// report says so instead of giving 0 words silently.
    @Test func unexpandedEntitiesAreReported() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("entities.docx")
        try makeDocx(at: url, body: paragraph("&intro; &intro; &amp; two words"))
        let r = try analyzer.analyze(url)
        #expect(r.statistics.words == 2)
        #expect(r.ignoredEntities == 2)
        #expect(r.warnings.first?.contains("2 entity references (&name;) left unexpanded") == true)
        #expect(try report("page.html").warnings.isEmpty)
    }

    @Test func docxNotesCommentsAndDeletions() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("essay.docx")
        let body =
            paragraph("Kept words here")
            + "<w:p><w:r><w:t>Also</w:t></w:r><w:del w:id=\"1\"><w:r><w:delText>deleted words</w:delText></w:r></w:del><w:ins w:id=\"2\"><w:r><w:t xml:space=\"preserve\"> inserted</w:t></w:r></w:ins><w:r><w:tab/><w:t>tabbed</w:t></w:r></w:p>"
            + "<w:p><w:r><w:t>fallback</w:t></w:r><mc:AlternateContent><mc:Choice Requires=\"wps\"><w:r><w:t>box</w:t></w:r></mc:Choice><mc:Fallback><w:r><w:t>box</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>"
        try makeDocx(
            at: url, body: body,
            footnotes:
                "<w:footnote w:type=\"separator\" w:id=\"-1\"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id=\"1\">\(paragraph("A footnote of six words here."))</w:footnote>",
            comments: "<w:comment w:id=\"0\" w:author=\"T\">\(paragraph("Nice point"))</w:comment>",
            endnotes: "<w:endnote w:id=\"1\">\(paragraph("End"))</w:endnote>")
        let r = try analyzer.analyze(url)
        // By hand: "Kept words here" + "Also inserted tabbed" + "fallbackbox" (adjacent runs join;
        // the mc:Fallback copy of the box is skipped; "deleted words" is a tracked deletion). Notes:
        // "A footnote of six words here." (6), comment "Nice point" (2), endnote "End" (1).
        #expect(r.statistics.words == 7)
        #expect(r.statistics.paragraphs == 3)
        #expect(r.footnotes.words == 6)
        #expect(r.comments.words == 2)
        #expect(r.endnotes.words == 1)
    }

    @Test func odtNotesAnnotationsAndTrackedChanges() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("essay.odt")
        let content = """
            <?xml version="1.0" encoding="UTF-8"?>
            <office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <office:body><office:text>
            <text:tracked-changes><text:changed-region><text:deletion><text:p>gone words</text:p></text:deletion></text:changed-region></text:tracked-changes>
            <text:h>Title here</text:h>
            <text:p>Body<text:s/>text<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Foot note</text:p></text:note-body></text:note> and<text:tab/>more.</text:p>
            <text:p>Second<office:annotation><dc:creator>Ann</dc:creator><dc:date>2026-01-01</dc:date><text:p>A remark</text:p></office:annotation> paragraph<text:note text:note-class="endnote"><text:note-citation>i</text:note-citation><text:note-body><text:p>End note text</text:p></text:note-body></text:note>.</text:p>
            </office:text></office:body></office:document-content>
            """
        try makeZip(
            at: url, [("mimetype", Data("application/vnd.oasis.opendocument.text".utf8)), ("content.xml", Data(content.utf8))],
            compress: false)
        // By hand: "Title here", "Body text and more.", "Second paragraph." (8 in 3 paragraphs; the
        // tracked deletion "gone words" is not text); footnote "Foot note" (2), endnote "End note
        // text" (3), annotation "A remark" (2, its author and date are not text).
        let r = try analyzer.analyze(url)
        #expect(r.kind.format == .odt)
        #expect(r.statistics.words == 8)
        #expect(r.statistics.paragraphs == 3)
        #expect(r.footnotes.words == 2)
        #expect(r.endnotes.words == 3)
        #expect(r.comments.words == 2)
    }

    @Test func epubFollowsTheSpine() throws {
        let dir = try Scratch()
        let url = dir.url.appendingPathComponent("book.epub")
        let container =
            "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles></container>"
        let opf = """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>
            <manifest><item id="c2" href="text/ch%202.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/><item id="extra" href="text/extra.xhtml" media-type="application/xhtml+xml"/></manifest>
            <spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>
            """
        func page(_ text: String) -> Data {
            Data(
                "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>T</title><script/></head><body><p>\(text)</p></body></html>"
                    .utf8)
        }
        try makeZip(
            at: url,
            [
                ("mimetype", Data("application/epub+zip".utf8)), ("META-INF/container.xml", Data(container.utf8)),
                ("OEBPS/content.opf", Data(opf.utf8)), ("OEBPS/text/ch1.xhtml", page("Chapter one has five words.")),
                ("OEBPS/text/ch 2.xhtml", page("Chapter two &amp; three")), ("OEBPS/text/extra.xhtml", page("Not in the spine"))
            ])
        let r = try analyzer.analyze(url)
        #expect(r.kind.format == .epub)
        // By hand, in spine order: "Chapter one has five words." and "Chapter two & three" (8: "&" is
        // no word); extra.xhtml is not in the spine and the head's title is not text.
        #expect(r.statistics.words == 8)
        #expect(r.statistics.paragraphs == 2)
    }

    /// pandoc 2.17 (`pandoc -f ipynb -t json`) holds 10 `Str` words in the markdown cell outside
    /// `Code`, checkbox glyphs left out; code, its output and the raw cell are not prose.
    @Test func notebook() throws {
        let r = try report("notebook.ipynb")
        #expect(r.notebookCells == NotebookCells(code: 3, executed: 2, markdown: 1))
        #expect(r.codeLines == 4)
        #expect(r.statistics.words == 10)
        #expect(r.checklist == ChecklistCount(done: 1, total: 2))
        let progress = ProgressEstimator.executedCells.estimate(r)
        #expect(abs(progress.value - 2.0 / 3) < 1e-9)
        #expect(progress.basis == "2 of 3 code cells executed")
    }

    @Test func targetWordCountProgress() throws {
        let r = try report("english.txt")
        let p = ProgressEstimator.targetWordCount(146).estimate(r)
        #expect(p.value == 0.5)
        #expect(p.basis == "73 of 146 words")
        #expect(ProgressEstimator.targetWordCount(10).estimate(r).value == 1)
        #expect(ProgressEstimator.checklist.estimate(r).basis == "no checklist items found")
    }
}
