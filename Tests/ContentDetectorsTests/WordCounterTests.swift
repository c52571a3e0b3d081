import Foundation
import Testing
import CTextScan
@testable import ContentDetectors
import TestSupport

@Suite("Counting rule")
struct WordCounterTests {
    @Test func hyphensAndContractionsAreOneWord() {
        #expect(count("A well-known student's essay isn't long.").words == 6)
    }

    @Test func dashesSplitWords() {
        #expect(count("war\u{2014}peace and 1990\u{2013}2000").words == 5)
    }

    @Test func punctuationOnlyTokensAreNotWords() {
        #expect(count("Wait - what ... ?! \u{2022} ok").words == 3)
    }

    @Test func urlsAndEmailsAreOneWord() {
        #expect(count("Mail me@example.com or see https://example.com/a-b?c=d now").words == 6)
    }

    @Test func hanAndKanaCountOneWordEach() {
        let s = count("学生たちは図書館で勉強")
        #expect(s.words == 11)
        #expect(s.cjkCharacters == 11)
        #expect(s.cjkWords == 11)
    }

    @Test func hangulWordsAreSeparatedBySpaces() {
        let s = count("학생들은 도서관에서 공부합니다.")
        #expect(s.words == 3)
        #expect(s.cjkCharacters == 14)
        #expect(s.sentences == 1)
    }

    @Test func charactersAreGraphemeClusters() {
        // e + combining acute, a family emoji (ZWJ sequence) and a flag: 3 clusters plus 2 spaces.
        let s = count("e\u{301} 👨‍👩‍👧 🇫🇷")
        #expect(s.characters == 5)
        #expect(s.charactersExcludingSpaces == 3)
        #expect(s.words == 1)
    }

    @Test func sentencesAndParagraphs() {
        let s = count("One two three. Four five? \"Six seven!\"\n\nA heading\n\nLast one")
        #expect(s.sentences == 5)
        #expect(s.paragraphs == 3)
    }

    @Test func lineEndingsAreEquivalent() {
        let lf = count("a b\n\nc d\n")
        #expect(count("a b\r\n\r\nc d\r\n") == lf)
        #expect(count("a b\r\rc d\r") == lf)
    }

    @Test func chunkSplitsDoNotChangeCounts() throws {
        let text = String(repeating: "Caf\u{E9} na\u{EF}ve \u{4E2D}\u{6587} r\u{E9}sum\u{E9}s are well-known.\r\n\r\n", count: 50)
        let whole = count(text)
        let bytes = Array(text.utf8)
        for step in [1, 2, 3, 7, 64, 65, 1000] {
            var counter = WordCounter()
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + step)
                bytes[i..<end].withUnsafeBytes { counter.consume($0) }
                i = end
            }
            #expect(counter.statistics == whole, "step \(step)")
        }
    }

    /// A word's last letters are those after its last non-letter, however the text is cut: the
    /// silent final e of "tabl1e" makes it one syllable in one piece and in three.
    @Test func cutsInsideAWordDoNotChangeItsSyllables() {
        let chunks = ["tabl", "1", "e"]
        var counter = WordCounter()
        for chunk in chunks { counter.consume(chunk) }
        #expect(count(chunks.joined()).syllables == 1)
        #expect(counter.statistics == count(chunks.joined()))
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func randomCutsDoNotChangeCounts(seed: UInt64) {
        // Short final letter runs after a non-letter are where the suffix rules look across a cut.
        let pieces = [
            "tabl1e", "b2e", "l'e", "it'le", "ma\u{E9}s", "caf\u{E9}e", "rock'n'rolle", "x1ed", "a.b.es", "table",
            "\u{4E2D}\u{6587}", "na\u{EF}ve", "4e", "e", "done.", "\u{1F469}\u{200D}\u{1F4BB}e"
        ]
        let gaps = [" ", " ", "\n", "\r\n", "\n\n", "\t"]
        var random = SplitMix(seed: seed)
        let text = randomText(400, of: pieces, gaps: gaps, using: &random)
        let whole = count(text)
        let bytes = Array(text.utf8)
        for cutting in 1...20 {
            let cut = countInRandomChunks(bytes, longest: 4, using: &random)
            #expect(cut == whole, "cutting \(cutting) of seed \(seed)")
            if cut != whole { break }
        }
    }

    /// Whole, runs of two- and three-byte letters, ideographs and Hangul (and the spaces between
    /// them) are counted by one loop a class; a byte at a time every scalar goes through the
    /// general path; cut at random, runs end at a chunk's end, mid-sequence too. All must agree on
    /// text that switches scripts mid-word and mid-run.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func otherScriptsCountAlikeWholeAndAByteAtATime(seed: UInt64) {
        let pieces = [
            "\u{421}\u{442}\u{443}\u{434}\u{435}\u{43D}\u{442}\u{44B}", "\u{3B3}\u{3C1}\u{3AC}\u{3C6}\u{3BF}\u{3C5}\u{3BD}",
            "\u{D559}\u{C0DD}\u{B4E4}\u{C740}", "\u{C2DC}\u{D5D8}", "\u{5B66}\u{751F}\u{4EEC}", "\u{8A66}\u{9A13}\u{306E}\u{524D}",
            "\u{627}\u{644}\u{637}\u{644}\u{627}\u{628}", "r\u{E9}sum\u{E9}", "\u{E9}l\u{E8}ves", "Sch\u{FC}ler", "table",
            "\u{43A}\u{43E}\u{43D}a\u{441}\u{43F}", "\u{5B66}\u{D559}\u{C0DD}", "\u{D559}a", "\u{3002}", "\u{421}.", "42\u{5B66}",
            "\u{1F1EB}\u{1F1F7}", "\u{1F469}\u{200D}\u{1F4BB}", "e\u{301}t\u{E9}", "\u{301}", "\u{1100}\u{1161}", "\u{FEFF}"
        ]
        let gaps = [" ", " ", " ", "  ", "\n", "\n\n", "\r\n", "\t", ", ", "\u{A0}", "\u{3000}", ""]
        var random = SplitMix(seed: seed)
        let text = randomText(1500, of: pieces, gaps: gaps, using: &random)
        let whole = count(text)
        var slow = WordCounter()
        for b in text.utf8 { [b].withUnsafeBytes { slow.consume($0) } }
        #expect(whole == slow.statistics)
        let bytes = Array(text.utf8)
        for cutting in 1...10 {
            let cut = countInRandomChunks(bytes, longest: 200, using: &random)
            #expect(cut == whole, "cutting \(cutting) of seed \(seed)")
        }
    }

    @Test func wordsOfOtherScriptsBetweenSpaces() {
        // By hand: three Cyrillic words, the second after two spaces; three Hangul words of 4, 2
        // and 2 syllable blocks; four ideographs; a Greek word ending a sentence.
        let s = count(
            "\u{421}\u{442}\u{443}\u{434}\u{435}\u{43D}\u{442}\u{44B}  \u{43F}\u{438}\u{448}\u{443}\u{442} \u{43A}\u{43E}\u{43D} \u{D559}\u{C0DD}\u{B4E4}\u{C740} \u{C2DC}\u{D5D8} \u{C804}\u{C5D0} \u{5B66}\u{751F}\u{4EEC}\u{5728} \u{3B3}\u{3C1}\u{3AC}\u{3C6}\u{3BF}\u{3C5}\u{3BD}."
        )
        #expect(s.words == 3 + 3 + 4 + 1)
        #expect(s.cjkWords == 4)
        #expect(s.cjkCharacters == 8 + 4)
        #expect(s.characters == 8 + 2 + 5 + 1 + 3 + 1 + 4 + 1 + 2 + 1 + 2 + 1 + 4 + 1 + 8)
        #expect(s.charactersExcludingSpaces == 8 + 5 + 3 + 4 + 2 + 2 + 4 + 8)
        #expect(s.sentences == 1)
    }

    @Test func blockPathMatchesBytePath() {
        // Long ASCII text goes through the 64-byte block path; one byte at a time never does.
        let text = String(
            repeating: "The quick (brown) fox's well-known leap: \"done.\" Really? Yes!\n  \n\tNext 42 items, e.g. apples.\r\n", count: 40)
        var slow = WordCounter()
        for b in text.utf8 { [b].withUnsafeBytes { slow.consume($0) } }
        #expect(count(text) == slow.statistics)
    }

    /// Words drawn from pieces that exercise every rule the 64-byte block path applies with bit
    /// masks: suffixes (-e, -le, -ed, -es), vowel-less words, terminators and closing punctuation,
    /// CR LF, CR VT, blank lines with spaces, controls and a few non-ASCII letters.
    private func blockPathText(seed: UInt64, pieceCount: Int = 3000) -> String {
        let pieces = [
            "the", "table", "used", "wanted", "boxes", "notes", "make", "rhythm", "Mr", "42", "e.g.", "U.S.", "bee",
            "done.", "\"why?\"", "(yes!)", "end.)", "it's", "-", "...", "cafe\u{301}", "na\u{EF}ve", "x"
        ]
        let gaps = [" ", " ", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r\n\r\n", "\r", "\r\u{0B}", "\n \n", "\u{0C}", "\u{01}", "\u{7F}"]
        var random = SplitMix(seed: seed)
        var text = ""
        for _ in 0..<pieceCount {
            text += pieces[Int.random(in: 0..<pieces.count, using: &random)]
            text += Int.random(in: 0..<3, using: &random) == 0 ? gaps[Int.random(in: 0..<gaps.count, using: &random)] : " "
        }
        return text
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func blockPathMatchesBytePathOnRandomText(seed: UInt64) {
        let text = blockPathText(seed: seed)
        var slow = WordCounter()
        for b in text.utf8 { [b].withUnsafeBytes { slow.consume($0) } }
        #expect(count(text) == slow.statistics)
    }

    /// The AVX2 block loop that counts on this machine and the portable one that counts where
    /// there is no AVX2 give the same counts and stop at the same byte, from every token start.
    @Test(.enabled(if: clsfile_has_wide_blocks() != 0, "this processor has no AVX2"), arguments: [1, 2, 3, 4])
    func wideAndPortableBlockLoopsCountAlike(seed: UInt64) {
        let bytes = Array(blockPathText(seed: seed, pieceCount: 600).utf8)
        var starts = 0, counted = 0, mismatches: [Int] = []
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            for start in 0..<buffer.count where start == 0 || buffer[start - 1] <= 0x20 {
                var state = clsfile_ascii_run()
                (state.segment_words, state.paragraph_words, state.newline_run) = (Int64(start % 2), Int64(start / 2 % 2), Int64(start % 3))
                var wide = state, portable = state
                let wideCount = clsfile_count_ascii_blocks_using(1, base + start, buffer.count - start, &wide)
                let portableCount = clsfile_count_ascii_blocks_using(0, base + start, buffer.count - start, &portable)
                let same =
                    wideCount == portableCount && wide.words == portable.words && wide.syllables == portable.syllables
                    && wide.sentences == portable.sentences && wide.paragraphs == portable.paragraphs
                    && wide.characters == portable.characters
                    && wide.characters_excluding_spaces == portable.characters_excluding_spaces
                    && wide.segment_words == portable.segment_words && wide.paragraph_words == portable.paragraph_words
                    && wide.newline_run == portable.newline_run
                if !same { mismatches.append(start) }
                starts += 1
                if wideCount > 0 { counted += 1 }
            }
        }
        #expect(mismatches.count == 0, "first starts that differ: \(mismatches.prefix(5))")
        #expect(counted > starts / 4, "the blocks must be counted from many starts: \(counted) of \(starts)")
    }

    /// The AVX2 loop is chosen exactly where the processor has what it uses, as the kernel lists
    /// it: a wrong answer would skip the test above and count at the portable loop's pace. (glibc's
    /// tunables can turn features off, and then the kernel's list is not the answer.)
    @Test(
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/cpuinfo"), "no /proc/cpuinfo"),
        .enabled(if: ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] == nil, "GLIBC_TUNABLES is set"))
    func theWideLoopIsChosenWhereTheProcessorHasIt() throws {
        #if arch(x86_64)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flagsLine = try #require(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") })
        let flags = Set(flagsLine.split(separator: ":").last!.split(separator: " ").map(String.init))
        let hasAll = ["avx2", "popcnt", "bmi1", "bmi2"].allSatisfy(flags.contains)
        #expect((clsfile_has_wide_blocks() != 0) == hasAll, "the processor's flags: \(flags.sorted().joined(separator: " "))")
        #else
        #expect(clsfile_has_wide_blocks() == 0)
        #endif
    }

    @Test func basicPlaneTableMatchesClassify() {
        // The generated table must follow CharacterClass.ascii and CharacterClass.classify; after
        // changing either, run Scripts/generate-basic-plane.sh.
        let table = clsfile_basic_plane_classes()!
        var mismatches: [UInt32] = []
        for v in UInt32(0)..<0x10000 {
            let expected =
                v < 0x80
                ? CharacterClass.ascii[Int(v)]
                : Unicode.Scalar(v).map(CharacterClass.classify) ?? CharacterClass.punctuation
            if table[Int(v)] != expected { mismatches.append(v) }
        }
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5).map { String($0, radix: 16) })")
    }

    @Test func invalidBytesAreReplacedNotFatal() {
        var counter = WordCounter()
        ([0x61, 0x62, 0xFF, 0x63, 0x20, 0xC3] as [UInt8]).withUnsafeBytes { counter.consume($0) }
        let s = counter.statistics
        #expect(s.words == 1) // "ab\u{FFFD}c" and a lone "\u{FFFD}", which is no word
        #expect(s.characters == 6)
    }

    @Test func wcAgreesOnPlainASCII() throws {
        let url = Fixtures.url("english.txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wc")
        process.arguments = ["-w", url.path]
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let expected = Int(output.split(separator: " ").first ?? "") ?? -1
        let report = try DocumentAnalyzer().analyze(url)
        #expect(report.statistics.words == expected)
        #expect(expected == 73)
    }

    /// One word of many syllables, or a script the syllable rule does not fit, gave grades no
    /// school has (654309.4): the grade stays in 0…18 and the ease in 0…121.22.
    @Test func readabilityStaysOnItsScale() {
        var s = TextStatistics()
        s.words = 1
        s.sentences = 1
        s.syllables = 55_000
        #expect(s.fleschKincaidGrade == TextStatistics.highestGrade && s.fleschReadingEase == 0)
        s.words = 500
        s.syllables = 500
        #expect(s.fleschKincaidGrade == 18 && s.fleschReadingEase == 0, "500 words in one sentence")
        s.sentences = 500
        #expect(s.fleschKincaidGrade == 0 && abs(s.fleschReadingEase - 121.22) < 0.01)
    }

    @Test func readabilityMatchesTextstat() throws {
        // Reference: textstat 0.7.3 (pip install textstat==0.7.3; newer releases need NLTK's
        // cmudict download), on Fixtures/readability.txt:
        //   flesch_kincaid_grade 2.1, flesch_reading_ease 101.6, lexicon_count 96,
        //   sentence_count 8, syllable_count 106.
        let s = try DocumentAnalyzer().analyze(Fixtures.url("readability.txt")).statistics
        #expect(s.words == 96)
        #expect(s.sentences == 8)
        #expect(abs(s.fleschKincaidGrade - 2.1) <= 0.5)
        #expect(abs(s.fleschReadingEase - 101.6) <= 5)
        #expect(abs(s.readingTimeMinutes - 96.0 / 238) < 0.001)
    }

    @Test func libreOfficeAgreesOnCharacters() throws {
        // LibreOffice 7.4 (soffice --headless --convert-to odt english.txt), meta.xml:
        // meta:word-count="73" meta:character-count="425" meta:non-whitespace-character-count="355".
        let s = try DocumentAnalyzer().analyze(Fixtures.url("english.txt")).statistics
        #expect(s.characters == 425)
        #expect(s.charactersExcludingSpaces == 355)
        #expect(s.paragraphs == 3)
    }
}
