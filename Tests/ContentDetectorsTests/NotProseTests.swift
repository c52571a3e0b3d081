import Foundation
import Testing
@testable import ContentDetectors

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
        // code block.
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
}
