internal import CTextScan

/// A streaming accumulator that applies the counting rule to UTF-8 text fed in pieces.
///
/// Feed it any number of chunks with ``consume(_:)-(UnsafeRawBufferPointer)``; pieces may split
/// a UTF-8 sequence or a line break anywhere. Invalid bytes count as U+FFFD. A blank line, or a
/// call to ``endParagraph()``, ends a paragraph. Read ``statistics`` at any time.
public struct WordCounter: Sendable {
    private var totals = TextStatistics()
    private var inToken = false
    private var tokenIsWord = false
    private var tokenTerminated = false
    private var vowelGroups = 0
    private var previousVowel = false
    private var extraSyllables = 0
    private var lastLetters: UInt32 = 0
    private var segmentWords = 0
    private var paragraphWords = 0
    private var newlineRun = 0
    private var pendingCR = false
    /// The last chunk ended inside a run of ASCII letters; true only until the next chunk starts.
    private var letterRunOpen = false
    private var joinNext = false
    private var regionalOdd = false
    private var lastWasHangul = false
    private var carry: UInt32 = 0
    private var carryCount = 0

    /// Creates an empty counter.
    public init() {}

    /// Counts of everything consumed so far, as if the text ended here.
    public var statistics: TextStatistics {
        var copy = self
        copy.flushCarry()
        copy.endParagraph()
        return copy.totals
    }

    /// Feeds a string.
    public mutating func consume(_ text: String) {
        var text = text
        text.withUTF8 { consume(UnsafeRawBufferPointer($0)) }
    }

    /// Ends the current paragraph (and the current sentence, if it holds a word).
    public mutating func endParagraph() {
        endToken()
        if segmentWords > 0 {
            totals.sentences += 1
            segmentWords = 0
        }
        if paragraphWords > 0 {
            totals.paragraphs += 1
            paragraphWords = 0
        }
        newlineRun = 2
    }

    /// Feeds UTF-8 bytes.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        let count = bytes.count
        let tables = Tables.shared
        // The previous chunk's letter run goes on only if this chunk starts with a letter, which the
        // first letter run below then reads with `letterRunOpen` still set.
        if letterRunOpen && tables.letters[Int(base[0])] == 0 { letterRunOpen = false }
        var i = 0
        if carryCount > 0 { i = completeCarry(base, count, tables) }
        if pendingCR {
            pendingCR = false
            if i < count && base[i] == 0x0A { i += 1 }
        }
        while i < count {
            // Outside a token, runs of 64-byte ASCII blocks are counted with bit masks (CTextScan);
            // a block that starts with a byte from 0x80 on is not for them.
            if !inToken && count &- i >= 64 && base[i] < 0x80 {
                var run = clsfile_ascii_run()
                (run.segment_words, run.paragraph_words, run.newline_run) = (Int64(segmentWords), Int64(paragraphWords), Int64(newlineRun))
                let counted = clsfile_count_ascii_blocks_using(tables.wide, base + i, count &- i, &run)
                if counted > 0 {
                    add(run)
                    i &+= counted
                    continue
                }
            }
            i = consumeScalarRange(base, i, min(count, i &+ 64), count, tables)
        }
    }

    /// Byte-at-a-time path from `start` until at least `end`; returns where it stopped.
    /// Stops at the first token boundary after `end`, so the block path can take over; a run of
    /// words in other scripts (``consumeNonASCIIRun``) may take it further, over blocks that
    /// path would not take anyway.
    private mutating func consumeScalarRange(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ count: Int, _ tables: Tables) -> Int
    {
        let table = tables.ascii
        let letters = tables.letters
        var i = start
        while i < end || (inToken && i < count) {
            let b = base[i]
            let cls = table[Int(b)]
            if cls == CharacterClass.vowel || cls == CharacterClass.consonant {
                // A run of ASCII letters, scanned with locals only.
                if !inToken { startToken() }
                tokenIsWord = true
                tokenTerminated = false
                var prev = previousVowel ? 1 : 0
                var groups = vowelGroups
                var j = i
                while j < count {
                    let t = Int(letters[Int(base[j])])
                    if t == 0 { break }
                    let v = t >> 1
                    groups &+= v & (prev ^ 1)
                    prev = v
                    j &+= 1
                }
                let run = j &- i
                vowelGroups = groups
                previousVowel = prev == 1
                totals.characters &+= run
                totals.charactersExcludingSpaces &+= run
                // A run continuing from the previous buffer keeps its earlier letters.
                var last: UInt32 = letterRunOpen ? lastLetters : 0
                var k = max(i, j &- 3)
                while k < j {
                    last = last << 8 | UInt32(base[k] | 0x20)
                    k &+= 1
                }
                lastLetters = last & 0xFF_FFFF
                letterRunOpen = j == count
                i = j
                continue
            }
            switch cls {
            case CharacterClass.space:
                if inToken { endToken() }
                totals.characters &+= 1
                i &+= 1
            case CharacterClass.newline:
                lineBreak()
                i &+= 1
            case CharacterClass.carriageReturn:
                lineBreak()
                i &+= 1
                if i < count {
                    if base[i] == 0x0A { i &+= 1 }
                } else {
                    pendingCR = true
                }
            case CharacterClass.nonASCII:
                i = joinNext ? consumeScalar(base, i, count, tables.basicPlane) : consumeNonASCIIRun(base, i, count, tables.basicPlane)
            default:
                handle(cls)
                i &+= 1
            }
        }
        return i
    }

    // MARK: - Token and block boundaries

    @inline(__always)
    private mutating func add(_ run: clsfile_ascii_run) {
        totals.words &+= Int(run.words)
        totals.syllables &+= Int(run.syllables)
        totals.sentences &+= Int(run.sentences)
        totals.paragraphs &+= Int(run.paragraphs)
        totals.characters &+= Int(run.characters)
        totals.charactersExcludingSpaces &+= Int(run.characters_excluding_spaces)
        segmentWords = Int(run.segment_words)
        paragraphWords = Int(run.paragraph_words)
        newlineRun = Int(run.newline_run)
    }

    @inline(__always)
    private mutating func startToken() {
        inToken = true
        tokenIsWord = false
        tokenTerminated = false
        vowelGroups = 0
        previousVowel = false
        extraSyllables = 0
        lastLetters = 0
        newlineRun = 0
    }

    @inline(__always)
    private mutating func endToken() {
        guard inToken else { return }
        inToken = false
        if tokenIsWord {
            totals.words += 1
            segmentWords += 1
            paragraphWords += 1
            totals.syllables += WordCounter.syllables(groups: vowelGroups, lastLetters: lastLetters, extra: extraSyllables)
        }
        if tokenTerminated && segmentWords > 0 {
            totals.sentences += 1
            segmentWords = 0
        }
    }

    private mutating func lineBreak() {
        endToken()
        newlineRun += 1
        if newlineRun == 2 { endParagraph() }
    }

    /// English syllable estimate from vowel groups and the last three letters of the final letter run.
    @inline(__always)
    static func syllables(groups: Int, lastLetters: UInt32, extra: Int) -> Int {
        var n = groups
        // The suffix rule is CTextScan's, which the block path applies too.
        if n > 1
            && clsfile_suffix_is_silent(UInt8(lastLetters & 0xFF), UInt8((lastLetters >> 8) & 0xFF), UInt8((lastLetters >> 16) & 0xFF)) != 0
        {
            n -= 1
        }
        return max(1, n + extra)
    }

    // MARK: - Classes other than ASCII letters, spaces and line breaks

    @inline(__always)
    private mutating func handle(_ cls: UInt8) {
        handle(cls, lastWasHangul: lastWasHangul)
    }

    @inline(__always)
    private mutating func handle(_ cls: UInt8, lastWasHangul: Bool) {
        switch cls {
        case CharacterClass.digit:
            countVisible()
            if !inToken { startToken() }
            tokenIsWord = true
            tokenTerminated = false
            previousVowel = false
        case CharacterClass.terminator:
            countVisible()
            if !inToken { startToken() }
            tokenTerminated = true
            previousVowel = false
        case CharacterClass.closing:
            countVisible()
            if !inToken { startToken() }
            previousVowel = false
        case CharacterClass.punctuation:
            countVisible()
            if !inToken { startToken() }
            tokenTerminated = false
            previousVowel = false
        case CharacterClass.vowel, CharacterClass.consonant:
            // Non-ASCII letters.
            countVisible()
            if !inToken { startToken() }
            tokenIsWord = true
            tokenTerminated = false
            let isVowel = cls == CharacterClass.vowel
            if isVowel && !previousVowel { vowelGroups += 1 }
            previousVowel = isVowel
            lastLetters = (lastLetters << 8 | (isVowel ? 0x61 : 0x6E)) & 0xFF_FFFF
        case CharacterClass.space:
            endToken()
            totals.characters += 1
        case CharacterClass.newline, CharacterClass.carriageReturn:
            lineBreak()
        case CharacterClass.paragraphSeparator:
            endParagraph()
        case CharacterClass.control:
            endToken()
        case CharacterClass.dash:
            endToken()
            countVisible()
        case CharacterClass.ideograph:
            endToken()
            countVisible()
            newlineRun = 0
            totals.cjkCharacters += 1
            totals.cjkWords += 1
            totals.words += 1
            totals.syllables += 1
            segmentWords += 1
            paragraphWords += 1
        case CharacterClass.cjkTerminator:
            endToken()
            countVisible()
            if segmentWords > 0 {
                totals.sentences += 1
                segmentWords = 0
            }
        case CharacterClass.hangul:
            countVisible()
            totals.cjkCharacters += 1
            if !inToken { startToken() }
            tokenIsWord = true
            tokenTerminated = false
            extraSyllables += 1
            previousVowel = false
        case CharacterClass.hangulVowelOrTrail:
            if !lastWasHangul {
                countVisible()
                totals.cjkCharacters += 1
            }
            if !inToken { startToken() }
            tokenIsWord = true
        case CharacterClass.regionalIndicator:
            if !regionalOdd { countVisible() }
            regionalOdd.toggle()
            if !inToken { startToken() }
        default:
            break // extend, zero-width joiner, format: no new character
        }
    }

    @inline(__always)
    private mutating func countVisible() {
        newlineRun = 0
        totals.characters += 1
        totals.charactersExcludingSpaces += 1
    }

    // MARK: - UTF-8 decoding

    @inline(__always)
    private mutating func handleScalar(_ v: UInt32, _ basicPlane: UnsafePointer<UInt8>) {
        let cls: UInt8
        if v < 0x10000 {
            cls = basicPlane[Int(v)]
        } else if let scalar = Unicode.Scalar(v) {
            cls = CharacterClass.classify(scalar)
        } else {
            cls = CharacterClass.punctuation
        }
        if cls != CharacterClass.regionalIndicator { regionalOdd = false }
        if cls == CharacterClass.zeroWidthJoiner {
            joinNext = true
            return
        }
        if joinNext {
            joinNext = false
            if cls != CharacterClass.space && cls != CharacterClass.newline && cls != CharacterClass.carriageReturn {
                if !inToken { startToken() }
                return // joined into the previous cluster (emoji ZWJ sequences)
            }
        }
        let wasHangul = lastWasHangul
        lastWasHangul = cls == CharacterClass.hangul || cls == CharacterClass.hangulVowelOrTrail
        handle(cls, lastWasHangul: wasHangul)
    }

    /// Consumes a run of well-formed two- and three-byte letters, ideographs and Hangul syllables,
    /// and the ASCII spaces between them, with `handleScalar`'s effects written out; anything else
    /// ends the run. Needs `joinNext` false.
    ///
    /// Consecutive scalars of one class are taken by a loop of their own that keeps the counts in
    /// locals and stores them once: what a scalar changes is the same for every scalar of a run,
    /// but for the vowel groups and last letters of a word.
    @inline(__always)
    private mutating func consumeNonASCIIRun(_ base: UnsafePointer<UInt8>, _ start: Int, _ count: Int, _ basicPlane: UnsafePointer<UInt8>)
        -> Int
    {
        var i = start
        var (scalar, length) = Self.decodeTwoOrThreeBytes(base, i, count)
        while true {
            if length == 0 {
                // A space between words of other scripts, taken here as the ASCII path takes it:
                // going back to that path's switch for it cost a mispredicted jump a word.
                guard i < count && base[i] == 0x20 else { break }
                if inToken { endToken() }
                totals.characters &+= 1
                i &+= 1
                (scalar, length) = Self.decodeTwoOrThreeBytes(base, i, count)
                continue
            }
            let cls = basicPlane[Int(scalar)]
            if cls == CharacterClass.vowel || cls == CharacterClass.consonant {
                regionalOdd = false
                lastWasHangul = false
                newlineRun = 0
                if !inToken { startToken() }
                tokenIsWord = true
                tokenTerminated = false
                var previous = previousVowel, groups = vowelGroups, last = lastLetters, letters = 0
                var letterClass = cls
                repeat {
                    let isVowel = letterClass == CharacterClass.vowel
                    if isVowel && !previous { groups &+= 1 }
                    previous = isVowel
                    last = (last << 8 | (isVowel ? 0x61 : 0x6E)) & 0xFF_FFFF
                    letters &+= 1
                    i &+= length
                    (scalar, length) = Self.decodeTwoOrThreeBytes(base, i, count)
                    guard length != 0 else { break }
                    letterClass = basicPlane[Int(scalar)]
                } while letterClass == CharacterClass.vowel || letterClass == CharacterClass.consonant
                previousVowel = previous
                vowelGroups = groups
                lastLetters = last
                totals.characters &+= letters
                totals.charactersExcludingSpaces &+= letters
            } else if cls == CharacterClass.ideograph {
                regionalOdd = false
                lastWasHangul = false
                if inToken { endToken() }
                newlineRun = 0
                // Each ideograph is a word of one syllable.
                let ideographs = Self.stepOverRun(of: cls, base, &i, count, basicPlane, &scalar, &length)
                totals.characters &+= ideographs
                totals.charactersExcludingSpaces &+= ideographs
                totals.cjkCharacters &+= ideographs
                totals.cjkWords &+= ideographs
                totals.words &+= ideographs
                totals.syllables &+= ideographs
                segmentWords &+= ideographs
                paragraphWords &+= ideographs
            } else if cls == CharacterClass.hangul {
                regionalOdd = false
                lastWasHangul = true
                newlineRun = 0
                if !inToken { startToken() }
                tokenIsWord = true
                tokenTerminated = false
                previousVowel = false
                // Each syllable block is one more syllable of the word.
                let syllables = Self.stepOverRun(of: cls, base, &i, count, basicPlane, &scalar, &length)
                totals.characters &+= syllables
                totals.charactersExcludingSpaces &+= syllables
                totals.cjkCharacters &+= syllables
                extraSyllables &+= syllables
            } else {
                break
            }
        }
        return i == start ? consumeScalar(base, i, count, basicPlane) : i
    }

    /// Steps over the scalars of one class from the one at `i`, decoded as `scalar` and `length`,
    /// which is of that class; returns how many, with `i` after them and `scalar` and `length`
    /// the next one's.
    @inline(__always)
    private static func stepOverRun(
        of cls: UInt8, _ base: UnsafePointer<UInt8>, _ i: inout Int, _ count: Int, _ basicPlane: UnsafePointer<UInt8>,
        _ scalar: inout UInt32, _ length: inout Int
    ) -> Int {
        var run = 0
        repeat {
            run &+= 1
            i &+= length
            (scalar, length) = decodeTwoOrThreeBytes(base, i, count)
        } while length != 0 && basicPlane[Int(scalar)] == cls
        return run
    }

    /// The scalar of the well-formed two- or three-byte sequence at `i` and its length; length 0
    /// for anything else, and when fewer than three bytes are left (``consumeScalar`` takes those).
    @inline(__always)
    private static func decodeTwoOrThreeBytes(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int) -> (scalar: UInt32, length: Int) {
        guard i &+ 2 < count else { return (0, 0) }
        let b0 = base[i]
        if b0 >= 0xC2 && b0 <= 0xDF {
            let c1 = base[i &+ 1]
            guard c1 & 0xC0 == 0x80 else { return (0, 0) }
            return (UInt32(b0 & 0x1F) << 6 | UInt32(c1 & 0x3F), 2)
        }
        guard b0 & 0xF0 == 0xE0 else { return (0, 0) }
        let c1 = base[i &+ 1], c2 = base[i &+ 2]
        guard c1 & 0xC0 == 0x80 && c2 & 0xC0 == 0x80 else { return (0, 0) }
        let v = UInt32(b0 & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F)
        guard v >= 0x800 && (v < 0xD800 || v > 0xDFFF) else { return (0, 0) }
        return (v, 3)
    }

    /// Decodes the scalar starting at `i`; returns the index after it.
    @inline(__always)
    private mutating func consumeScalar(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int, _ basicPlane: UnsafePointer<UInt8>) -> Int {
        let b0 = base[i]
        if b0 >= 0xC2 && b0 <= 0xDF {
            if i &+ 1 < count {
                let c1 = base[i &+ 1]
                if c1 & 0xC0 == 0x80 {
                    handleScalar(UInt32(b0 & 0x1F) << 6 | UInt32(c1 & 0x3F), basicPlane)
                    return i &+ 2
                }
            }
        } else if b0 & 0xF0 == 0xE0 && i &+ 2 < count {
            let c1 = base[i &+ 1], c2 = base[i &+ 2]
            if c1 & 0xC0 == 0x80 && c2 & 0xC0 == 0x80 {
                let v = UInt32(b0 & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F)
                if v >= 0x800 && (v < 0xD800 || v > 0xDFFF) {
                    handleScalar(v, basicPlane)
                    return i &+ 3
                }
            }
        }
        return consumeScalarSlow(base, i, count, basicPlane)
    }

    @inline(never)
    private mutating func consumeScalarSlow(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int, _ basicPlane: UnsafePointer<UInt8>) -> Int
    {
        let b0 = base[i]
        var need: Int
        var v: UInt32
        switch b0 {
        case 0xC2...0xDF:
            need = 1
            v = UInt32(b0 & 0x1F)
        case 0xE0...0xEF:
            need = 2
            v = UInt32(b0 & 0x0F)
        case 0xF0...0xF4:
            need = 3
            v = UInt32(b0 & 0x07)
        default:
            handleScalar(0xFFFD, basicPlane)
            return i + 1
        }
        var k = 1
        while k <= need {
            if i + k >= count {
                // Sequence continues in the next chunk: keep what we have.
                carry = 0
                carryCount = 0
                for j in i..<count {
                    carry = carry << 8 | UInt32(base[j])
                    carryCount += 1
                }
                return count
            }
            let c = base[i + k]
            guard c & 0xC0 == 0x80 else {
                handleScalar(0xFFFD, basicPlane)
                return i + k
            }
            v = v << 6 | UInt32(c & 0x3F)
            k += 1
        }
        if (need == 2 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (need == 3 && (v < 0x10000 || v > 0x10FFFF)) {
            v = 0xFFFD
        }
        handleScalar(v, basicPlane)
        return i + need + 1
    }

    /// Completes a sequence split across chunks; returns how many bytes of the new chunk it used.
    private mutating func completeCarry(_ base: UnsafePointer<UInt8>, _ count: Int, _ tables: Tables) -> Int {
        var joined = [UInt8]()
        for shift in stride(from: (carryCount - 1) * 8, through: 0, by: -8) {
            joined.append(UInt8((carry >> UInt32(shift)) & 0xFF))
        }
        let old = carryCount
        carryCount = 0
        carry = 0
        let take = min(4 - old, count)
        for j in 0..<take { joined.append(base[j]) }
        let used = joined.withUnsafeBufferPointer { consumeScalarSlow($0.baseAddress!, 0, $0.count, tables.basicPlane) }
        if carryCount > 0 {
            // Still incomplete: everything of this chunk went into the carry.
            return count
        }
        return max(0, used - old)
    }

    private mutating func flushCarry() {
        if carryCount > 0 {
            carryCount = 0
            carry = 0
            handleScalar(0xFFFD, Tables.shared.basicPlane)
        }
    }
}

/// The lookup tables as raw pointers, so that the hot loop pays no bounds or lazy-initialisation
/// checks. The two ASCII tables are made once per process, and all of it is read from ``shared``
/// once per call to `consume`: each read of a lazy global is a call to `swift_once`, and XML runs
/// call `consume` thousands of times a document.
private struct Tables {
    let ascii: UnsafePointer<UInt8>
    /// 0 for a non-letter, 1 for an ASCII consonant, 2 for an ASCII vowel (including y).
    let letters: UnsafePointer<UInt8>
    /// The class of each scalar U+0000...U+FFFF: the generated constant table of `CTextScan`.
    let basicPlane: UnsafePointer<UInt8>
    /// 1 where the processor runs CTextScan's AVX2 block loop, else 0.
    let wide: Int32

    nonisolated(unsafe) static let shared: Tables = {
        let ascii = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        CharacterClass.ascii.withUnsafeBufferPointer { ascii.initialize(from: $0.baseAddress!, count: 256) }
        let letters = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for b in 0..<256 {
            let c = CharacterClass.ascii[b]
            letters[b] = c == CharacterClass.vowel ? 2 : (c == CharacterClass.consonant ? 1 : 0)
        }
        return Tables(ascii: ascii, letters: letters, basicPlane: clsfile_basic_plane_classes(), wide: clsfile_has_wide_blocks())
    }()
}
