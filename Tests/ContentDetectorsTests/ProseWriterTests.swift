import Testing
@testable import ContentDetectors

@Suite("Whitespace collapsing")
struct ProseWriterTests {
    /// Runs of words joined by single spaces reach the counter as one run; whatever the split of
    /// the text into three calls, the counter must see exactly the collapsed text.
    @Test(arguments: [
        ("tabl1e  b2e\tma\u{E9}s", "tabl1e b2e ma\u{E9}s"),
        ("Students  wrote\tshort\n summaries ,  every  chapter.", "Students wrote short summaries , every chapter."),
        ("  leading and trailing  ", "leading and trailing"),
        ("one", "one"),
        (
            "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z",
            "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z"
        ),
        ("caf\u{E9} \u{4E2D}\u{6587}\r\nna\u{EF}ve\u{C}end", "caf\u{E9} \u{4E2D}\u{6587} na\u{EF}ve end"),
        (" \n\t ", ""),
        // Past 16 bytes, where whole runs are checked 16 bytes at a time: two spaces across two
        // such pieces, a tab and a form feed inside one, and text that needs no collapsing at all.
        ("the quick brown  fox jumps over the lazy dog again", "the quick brown fox jumps over the lazy dog again"),
        ("the quick brown fox jumps over\tthe lazy dog again and\u{C}again", "the quick brown fox jumps over the lazy dog again and again"),
        ("the quick brown fox jumps over the lazy dog again and again", "the quick brown fox jumps over the lazy dog again and again")
    ])
    func collapsedMatchesTheCollapsedText(_ input: String, _ collapsed: String) {
        var expected = WordCounter()
        expected.consume(collapsed)
        expected.endParagraph()
        let bytes = Array(input.utf8)
        for first in 0...bytes.count {
            for second in first...bytes.count {
                var writer = ProseWriter()
                bytes[..<first].withUnsafeBytes { writer.collapsed($0) }
                bytes[first..<second].withUnsafeBytes { writer.collapsed($0) }
                bytes[second...].withUnsafeBytes { writer.collapsed($0) }
                writer.paragraph()
                let split = writer.counter.statistics
                #expect(split == expected.statistics, "split at \(first) and \(second) of \(input.debugDescription)")
                if split != expected.statistics { return }
            }
        }
    }

    @Test func exactTextKeepsSpaceRunsButNotLineBreaks() {
        var writer = ProseWriter()
        "two  spaces".utf8.withContiguousStorageIfAvailable { writer.exact(UnsafeRawBufferPointer($0)) }
        writer.paragraph()
        #expect(writer.counter.statistics.characters == 11)

        var broken = ProseWriter()
        "line\nbreak".utf8.withContiguousStorageIfAvailable { broken.exact(UnsafeRawBufferPointer($0)) }
        broken.paragraph()
        #expect(broken.counter.statistics.words == 2)
        #expect(broken.counter.statistics.characters == 10)
    }
}
