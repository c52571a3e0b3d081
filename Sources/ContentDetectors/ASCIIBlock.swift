internal import CTextScan

/// The counting rule applied to one 64-byte block of ASCII text at once, with bit masks.
///
/// The block must start outside a token; it is counted up to and including its last separator, so
/// that no token is left open. Each byte class is a 64-bit mask (bit k for byte k, from
/// `clsfile_classify64`), and the per-token parts of the rule become mask arithmetic:
///
/// - a token is a word when it holds a letter or digit: one word per *first* letter or digit after
///   a separator (``firsts(_:after:)``), so words are a popcount;
/// - vowel groups are vowels not preceded by a vowel; a word has at least one syllable, so words
///   without a vowel add one each;
/// - the suffix rules (silent `e`, `-ed`, `-es`) are checked only at the few letter runs that end
///   in `e`, `d` or `s`;
/// - a token ends a sentence when a terminator is followed by closing punctuation and then a
///   separator; sentence and paragraph ends are walked in order, since each needs the words since
///   the previous one.
struct ASCIIBlock {
    /// Bytes counted, through the last separator.
    var length = 0
    var words = 0
    var syllables = 0
    var sentences = 0
    var paragraphs = 0
    var characters = 0
    var charactersExcludingSpaces = 0
    /// Words of the open sentence and paragraph, and the run of line breaks, after the block.
    var segmentWords: Int
    var paragraphWords: Int
    var newlineRun: Int

    /// Counts the block at `p` (64 readable bytes), or returns `nil` when it is not for this path:
    /// it starts with a non-ASCII byte, holds no separator before its first non-ASCII byte, or its
    /// last separator is a CR (whose LF may be in the next block).
    @inline(__always)
    init?(_ p: UnsafePointer<UInt8>, segmentWords: Int, paragraphWords: Int, newlineRun: Int) {
        let m = clsfile_classify64(p)
        let asciiEnd = m.non_ascii.trailingZeroBitCount
        if asciiEnd == 0 { return nil }
        let ascii: UInt64 = asciiEnd == 64 ? ~0 : (1 << UInt64(asciiEnd)) &- 1
        var separators = m.separator & ascii
        if separators == 0 { return nil }
        length = 64 &- separators.leadingZeroBitCount
        if (m.carriage_return >> UInt64(length &- 1)) & 1 == 1 { return nil }
        let inBlock: UInt64 = length == 64 ? ~0 : (1 << UInt64(length)) &- 1
        separators &= inBlock
        let visible = ~separators & inBlock
        let alnum = m.alnum & inBlock
        let letters = m.letter & inBlock
        let vowels = m.vowel & inBlock

        characters = (visible | (m.space & inBlock)).nonzeroBitCount
        charactersExcludingSpaces = visible.nonzeroBitCount

        // Words, each marked at its first letter or digit.
        let wordMarks = ASCIIBlock.firsts(alnum, after: separators)
        words = wordMarks.nonzeroBitCount

        // Syllables: vowel groups, at least one per word, less the suffix rules.
        let groupStarts = vowels & ~(vowels << 1)
        let groups = groupStarts.nonzeroBitCount
        let wordsWithVowels = ASCIIBlock.firsts(vowels, after: separators).nonzeroBitCount
        syllables = groups &+ (words &- wordsWithVowels)
        let runEnds = letters & ~(letters >> 1)
        var suffixes = runEnds & (m.e | (m.d_or_s & (m.e << 1)))
        while suffixes != 0 {
            let r = suffixes.trailingZeroBitCount
            suffixes &= suffixes &- 1
            if ASCIIBlock.suffixRemovesSyllable(p, at: r, letters: letters, separators: separators, groupStarts: groupStarts) {
                syllables &-= 1
            }
        }

        // Tokens ending in a terminator and closing punctuation: the separator after them.
        let afterTerminator = m.terminator << 1
        let closing = m.closing & inBlock
        let throughClosing = (afterTerminator | (closing &+ (afterTerminator & closing))) & ~closing
        let sentenceEnds = throughClosing & separators
        // Line breaks; an LF right after a CR belongs to the CR's break (CR VT and CR FF are two).
        var lineBreaks = m.line_break & inBlock
        var afterCR = m.carriage_return << 1 & lineBreaks & ~m.carriage_return
        while afterCR != 0 {
            let k = afterCR.trailingZeroBitCount
            afterCR &= afterCR &- 1
            if p[k] == 0x0A { lineBreaks &= ~(1 << UInt64(k)) }
        }

        // Only whether the open sentence and paragraph hold a word matters, not how many.
        var segment = segmentWords, paragraph = paragraphWords, run = newlineRun
        var events = sentenceEnds | lineBreaks
        var from: UInt64 = ~0
        while events != 0 {
            let bit = events & (0 &- events)
            events &= events &- 1
            let range = (bit &- 1) & from
            if wordMarks & range != 0 {
                segment = 1
                paragraph = 1
            }
            if visible & range != 0 { run = 0 }
            if sentenceEnds & bit != 0 && segment > 0 {
                sentences &+= 1
                segment = 0
            }
            if lineBreaks & bit != 0 {
                run &+= 1
                if run == 2 {
                    if segment > 0 {
                        sentences &+= 1
                        segment = 0
                    }
                    if paragraph > 0 {
                        paragraphs &+= 1
                        paragraph = 0
                    }
                }
            }
            from = ~(bit | (bit &- 1))
        }
        if wordMarks & from != 0 {
            segment = 1
            paragraph = 1
        }
        if visible & from != 0 { run = 0 }
        self.segmentWords = segment
        self.paragraphWords = paragraph
        self.newlineRun = run
    }

    /// The bits of `x` that are the first of `x` since the last bit of `separators` (or since bit 0,
    /// which starts outside a token).
    ///
    /// Each separator starts a carry that runs up through the bits that are neither; adding
    /// lands it on the next bit of either mask, and it is a first of `x` when it lands on `x`.
    @inline(__always)
    static func firsts(_ x: UInt64, after separators: UInt64) -> UInt64 {
        let markers = x | separators
        let gaps = ~markers
        let starts = separators << 1 | 1
        return x & (starts | (gaps &+ (starts & gaps)))
    }

    /// Whether the letter run ending at `r` is the last of its token, the token has two or more
    /// vowel groups and a suffix rule (silent `e`, `-ed`, `-es`) removes one.
    @inline(__always)
    static func suffixRemovesSyllable(_ p: UnsafePointer<UInt8>, at r: Int, letters: UInt64, separators: UInt64, groupStarts: UInt64)
        -> Bool
    {
        // The next letter or separator after r must be a separator (r < 63: the block ends in one).
        let after = (letters | separators) & ~((UInt64(2) << UInt64(r)) &- 1)
        if separators & (after & (0 &- after)) == 0 { return false }
        let before = separators & ((UInt64(1) << UInt64(r)) &- 1)
        let tokenStart = before == 0 ? 0 : 64 &- before.leadingZeroBitCount
        let groups = groupStarts & ((UInt64(2) << UInt64(r)) &- 1) & ~((UInt64(1) << UInt64(tokenStart)) &- 1)
        if groups & (groups &- 1) == 0 { return false }
        let l2: UInt8 = r >= 1 && (letters >> UInt64(r &- 1)) & 1 == 1 ? p[r &- 1] | 0x20 : 0
        let l3: UInt8 = l2 != 0 && r >= 2 && (letters >> UInt64(r &- 2)) & 1 == 1 ? p[r &- 2] | 0x20 : 0
        return WordCounter.suffixIsSilent(p[r] | 0x20, l2, l3)
    }
}
