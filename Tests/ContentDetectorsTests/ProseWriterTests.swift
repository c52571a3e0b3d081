import Testing
@testable import ContentDetectors

@Suite("Whitespace collapsing")
struct ProseWriterTests {
    /// Runs of words joined by single spaces reach the counter as one run; whatever the split of
    /// the text into calls, the counter must see exactly the collapsed text.
    @Test(arguments: [
        ("Students  wrote\tshort\n summaries ,  every  chapter.", "Students wrote short summaries , every chapter."),
        ("  leading and trailing  ", "leading and trailing"),
        ("one", "one"),
        ("a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z",
         "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z"),
        ("caf\u{E9} \u{4E2D}\u{6587}\r\nna\u{EF}ve\u{C}end", "caf\u{E9} \u{4E2D}\u{6587} na\u{EF}ve end"),
        (" \n\t ", ""),
    ])
    func collapsedMatchesTheCollapsedText(_ input: String, _ collapsed: String) {
        var expected = WordCounter()
        expected.consume(collapsed)
        expected.endParagraph()
        let bytes = Array(input.utf8)
        for split in 0...bytes.count {
            var writer = ProseWriter()
            bytes[..<split].withUnsafeBytes { writer.collapsed($0) }
            bytes[split...].withUnsafeBytes { writer.collapsed($0) }
            writer.paragraph()
            #expect(writer.counter.statistics == expected.statistics, "split at \(split) of \(input.debugDescription)")
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
