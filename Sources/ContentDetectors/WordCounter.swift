/// Lookup tables as raw pointers so the hot loop pays no bounds or lazy-initialisation checks.
nonisolated(unsafe) private let asciiTable: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    CharacterClass.ascii.withUnsafeBufferPointer { p.initialize(from: $0.baseAddress!, count: 256) }
    return UnsafePointer(p)
}()

/// 0 for a non-letter, 1 for an ASCII consonant, 2 for an ASCII vowel (including y).
nonisolated(unsafe) private let letterTable: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 {
        let c = CharacterClass.ascii[b]
        p[b] = c == CharacterClass.vowel ? 2 : (c == CharacterClass.consonant ? 1 : 0)
    }
    return UnsafePointer(p)
}()

/// Per-byte flags for the 64-byte block path: bit 0 separator, 1 line break (CR is line break + terminator),
/// 2 space or tab, 3 letter, 4 letter or digit, 5 vowel, 6 sentence terminator, 7 closing punctuation.
nonisolated(unsafe) private let blockFlagTable: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for b in 0..<256 {
        var f: UInt8 = 0
        switch CharacterClass.ascii[b] {
        case CharacterClass.space: f = 0b0000_0101
        case CharacterClass.newline: f = 0b0000_0011
        case CharacterClass.carriageReturn: f = 0b0100_0011
        case CharacterClass.control: f = 0b0000_0001
        case CharacterClass.vowel: f = 0b0011_1000
        case CharacterClass.consonant: f = 0b0001_1000
        case CharacterClass.digit: f = 0b0001_0000
        case CharacterClass.terminator: f = 0b0100_0000
        case CharacterClass.closing: f = 0b1000_0000
        default: f = 0
        }
        p[b] = f
    }
    return UnsafePointer(p)
}()

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
        if segmentWords > 0 { totals.sentences += 1; segmentWords = 0 }
        if paragraphWords > 0 { totals.paragraphs += 1; paragraphWords = 0 }
        newlineRun = 2
    }

    /// Feeds UTF-8 bytes.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        let count = bytes.count
        let tables = Tables(ascii: asciiTable, letters: letterTable, basicPlane: BasicPlaneTable.shared, blockFlags: blockFlagTable)
        var i = 0
        if carryCount > 0 { i = completeCarry(base, count, tables) }
        if pendingCR {
            pendingCR = false
            if i < count && base[i] == 0x0A { i += 1 }
        }
        while i < count {
            if !inToken && count &- i >= 64 {
                let used = consumeBlock(base + i, tables.blockFlags)
                if used > 0 { i &+= used; continue }
            }
            i = consumeScalarRange(base, i, min(count, i &+ 64), count, tables)
        }
    }

    /// Byte-at-a-time path from `start` until at least `end`; returns where it stopped.
    /// Stops at the first token boundary after `end`, so the block path can take over.
    private mutating func consumeScalarRange(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ count: Int, _ tables: Tables) -> Int {
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
                var last: UInt32 = (letterRunOpen && i == 0) ? lastLetters : 0
                var k = max(i, j &- 3)
                while k < j { last = last << 8 | UInt32(base[k] | 0x20); k &+= 1 }
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

    /// Processes a 64-byte pure-ASCII block with bit masks, up to and including its last separator.
    /// Returns the number of bytes consumed, or 0 if the block needs the byte-at-a-time path.
    @inline(__always)
    private mutating func consumeBlock(_ p: UnsafePointer<UInt8>, _ flags: UnsafePointer<UInt8>) -> Int {
        let raw = UnsafeRawPointer(p)
        // Bytes from the first non-ASCII one on are left to the byte-at-a-time path.
        var asciiLimit = 64
        for w in 0..<8 {
            let h = raw.loadUnaligned(fromByteOffset: w &* 8, as: UInt64.self) & 0x8080_8080_8080_8080
            if h != 0 { asciiLimit = w &* 8 &+ h.trailingZeroBitCount >> 3; break }
        }
        if asciiLimit == 0 { return 0 }
        // Five masks are gathered per block; letters, closing punctuation and terminators are
        // looked up per token instead, and CR only when the block holds one.
        var sep: UInt64 = 0, nl: UInt64 = 0, sp: UInt64 = 0, alnum: UInt64 = 0, vowel: UInt64 = 0
        var crBytes: UInt64 = 0
        let lanes: UInt64 = 0x0101_0101_0101_0101
        let gather: UInt64 = 0x0102_0408_1020_4080
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        for w in 0..<8 {
            let q = p + w &* 8
            var x: UInt64 = 0
            for k in 0..<8 { x |= UInt64(flags[Int(q[k])]) << UInt64(k &* 8) }
            let shift = UInt64(w &* 8)
            sep |= (((x & lanes) &* gather) >> 56) << shift
            nl |= ((((x >> 1) & lanes) &* gather) >> 56) << shift
            sp |= ((((x >> 2) & lanes) &* gather) >> 56) << shift
            alnum |= ((((x >> 4) & lanes) &* gather) >> 56) << shift
            vowel |= ((((x >> 5) & lanes) &* gather) >> 56) << shift
            // High bit of each lane that holds 0x0D; CR bits are then found by a scan, rarely needed.
            let z = raw.loadUnaligned(fromByteOffset: w &* 8, as: UInt64.self) ^ 0x0D0D_0D0D_0D0D_0D0D
            crBytes |= ~(((z & low7) &+ low7) | z) & 0x8080_8080_8080_8080
        }
        if asciiLimit < 64 { sep &= (UInt64(1) << UInt64(asciiLimit)) &- 1 }
        if sep == 0 { return 0 }
        let length = 64 &- sep.leadingZeroBitCount
        let inBlock: UInt64 = length == 64 ? ~0 : (UInt64(1) << UInt64(length)) &- 1
        let visible = ~sep & inBlock
        var cr: UInt64 = 0
        if crBytes != 0 {
            var k = 0
            while k < length { if p[k] == 0x0D { cr |= UInt64(1) << UInt64(k) }; k &+= 1 }
        }
        // A block never ends in CR, so a CR LF pair never straddles two blocks.
        if (cr >> UInt64(length &- 1)) & 1 == 1 { return 0 }
        // Only an LF right after a CR is part of its line break (CR VT and CR FF are two breaks).
        var crLF = cr << 1 & ~cr
        var pairs = crLF
        while pairs != 0 {
            let k = pairs.trailingZeroBitCount
            pairs &= pairs &- 1
            if p[k] != 0x0A { crLF &= ~(UInt64(1) << UInt64(k)) }
        }
        var breaks = nl & inBlock & ~crLF
        totals.characters &+= (visible | (sp & inBlock)).nonzeroBitCount
        totals.charactersExcludingSpaces &+= visible.nonzeroBitCount
        var starts = visible & ~(visible << 1)
        var ends = visible & ~(visible >> 1)
        let groupStarts = vowel & ~(vowel << 1)
        // Counters live in locals for the walk (no token is open here, so a paragraph end needs no endToken).
        var words = 0, syllables = 0, sentences = 0, paragraphs = 0
        var segment = segmentWords, paragraph = paragraphWords, run = newlineRun
        while starts != 0 || breaks != 0 {
            let s = starts.trailingZeroBitCount
            let b = breaks.trailingZeroBitCount
            if b < s {
                breaks &= breaks &- 1
                run &+= 1
                if run == 2 {
                    if segment > 0 { sentences &+= 1; segment = 0 }
                    if paragraph > 0 { paragraphs &+= 1; paragraph = 0 }
                }
                continue
            }
            let e = ends.trailingZeroBitCount
            starts &= starts &- 1
            ends &= ends &- 1
            run = 0
            let upToEnd: UInt64 = e == 63 ? ~0 : (UInt64(1) << UInt64(e &+ 1)) &- 1
            let range = upToEnd & ~((UInt64(1) << UInt64(s)) &- 1)
            if alnum & range != 0 {
                words &+= 1
                segment &+= 1
                paragraph &+= 1
                let groupBits = groupStarts & range
                if groupBits & (groupBits &- 1) == 0 {  // at most one vowel group
                    syllables &+= 1
                } else {
                    let groups = groupBits.nonzeroBitCount
                    // The last letter of the token (there is one: it has vowels), then up to two before it.
                    var k = e
                    while flags[Int(p[k])] & 0b1000 == 0 { k &-= 1 }
                    var last: UInt32 = 0
                    var taken = 0
                    while taken < 3 && k >= s && flags[Int(p[k])] & 0b1000 != 0 {
                        last |= UInt32(p[k] | 0x20) << UInt32(taken &* 8)
                        taken &+= 1
                        k &-= 1
                    }
                    let final = last & 0xFF
                    if final == 0x65 || final == 0x64 || final == 0x73 {
                        syllables &+= WordCounter.syllables(groups: groups, lastLetters: last, extra: 0)
                    } else {
                        syllables &+= groups  // no suffix rule applies; groups > 1
                    }
                }
            }
            // The token's last character other than closing punctuation must be a terminator.
            var t = e
            while t > s && flags[Int(p[t])] & 0x80 != 0 { t &-= 1 }
            if flags[Int(p[t])] & 0b1100_0000 == 0b0100_0000 && segment > 0 {
                sentences &+= 1
                segment = 0
            }
        }
        totals.words &+= words
        totals.syllables &+= syllables
        totals.sentences &+= sentences
        totals.paragraphs &+= paragraphs
        segmentWords = segment
        paragraphWords = paragraph
        newlineRun = run
        return length
    }

    // MARK: - Token and block boundaries

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
        if n > 1 {
            let l1 = UInt8(lastLetters & 0xFF), l2 = UInt8((lastLetters >> 8) & 0xFF), l3 = UInt8((lastLetters >> 16) & 0xFF)
            func vowel(_ c: UInt8) -> Bool {
                c == 0x61 || c == 0x65 || c == 0x69 || c == 0x6F || c == 0x75 || c == 0x79
            }
            if l1 == 0x65 {  // final e: silent unless "-le" after a consonant
                if !vowel(l2) && !(l2 == 0x6C && l3 != 0 && !vowel(l3)) { n -= 1 }
            } else if l1 == 0x64 && l2 == 0x65 {  // "-ed" after a consonant other than t/d
                if l3 != 0 && !vowel(l3) && l3 != 0x74 && l3 != 0x64 { n -= 1 }
            } else if l1 == 0x73 && l2 == 0x65 {  // "-es" not after a sibilant
                if l3 != 0 && !vowel(l3) && l3 != 0x73 && l3 != 0x78 && l3 != 0x7A && l3 != 0x63 && l3 != 0x67 && l3 != 0x68 { n -= 1 }
            }
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
            if segmentWords > 0 { totals.sentences += 1; segmentWords = 0 }
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
            break  // extend, zero-width joiner, format: no new character
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
    private mutating func handleScalar(_ v: UInt32, _ basicPlane: BasicPlaneTable) {
        let cls: UInt8
        if v < 0x10000 {
            cls = basicPlane.classOf(v)
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
                return  // joined into the previous cluster (emoji ZWJ sequences)
            }
        }
        let wasHangul = lastWasHangul
        lastWasHangul = cls == CharacterClass.hangul || cls == CharacterClass.hangulVowelOrTrail
        handle(cls, lastWasHangul: wasHangul)
    }

    /// Consumes a run of well-formed two- and three-byte letters, ideographs and Hangul syllables
    /// with `handleScalar`'s effects written out; anything else ends the run. Needs `joinNext` false.
    @inline(__always)
    private mutating func consumeNonASCIIRun(_ base: UnsafePointer<UInt8>, _ start: Int, _ count: Int, _ basicPlane: BasicPlaneTable) -> Int {
        var i = start
        while i &+ 2 < count {
            let b0 = base[i]
            let v: UInt32
            let length: Int
            if b0 >= 0xC2 && b0 <= 0xDF {
                let c1 = base[i &+ 1]
                if c1 & 0xC0 != 0x80 { break }
                v = UInt32(b0 & 0x1F) << 6 | UInt32(c1 & 0x3F)
                length = 2
            } else if b0 & 0xF0 == 0xE0 {
                let c1 = base[i &+ 1], c2 = base[i &+ 2]
                if c1 & 0xC0 != 0x80 || c2 & 0xC0 != 0x80 { break }
                v = UInt32(b0 & 0x0F) << 12 | UInt32(c1 & 0x3F) << 6 | UInt32(c2 & 0x3F)
                if v < 0x800 || (v >= 0xD800 && v <= 0xDFFF) { break }
                length = 3
            } else {
                break
            }
            let cls = basicPlane.classOf(v)
            if cls == CharacterClass.vowel || cls == CharacterClass.consonant {
                regionalOdd = false
                lastWasHangul = false
                countVisible()
                if !inToken { startToken() }
                tokenIsWord = true
                tokenTerminated = false
                let isVowel = cls == CharacterClass.vowel
                if isVowel && !previousVowel { vowelGroups &+= 1 }
                previousVowel = isVowel
                lastLetters = (lastLetters << 8 | (isVowel ? 0x61 : 0x6E)) & 0xFF_FFFF
            } else if cls == CharacterClass.ideograph {
                regionalOdd = false
                lastWasHangul = false
                if inToken { endToken() }
                countVisible()
                totals.cjkCharacters &+= 1
                totals.cjkWords &+= 1
                totals.words &+= 1
                totals.syllables &+= 1
                segmentWords &+= 1
                paragraphWords &+= 1
            } else if cls == CharacterClass.hangul {
                regionalOdd = false
                lastWasHangul = true
                countVisible()
                totals.cjkCharacters &+= 1
                if !inToken { startToken() }
                tokenIsWord = true
                tokenTerminated = false
                extraSyllables &+= 1
                previousVowel = false
            } else {
                break
            }
            i &+= length
        }
        return i == start ? consumeScalar(base, i, count, basicPlane) : i
    }

    /// Decodes the scalar starting at `i`; returns the index after it.
    @inline(__always)
    private mutating func consumeScalar(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int, _ basicPlane: BasicPlaneTable) -> Int {
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
    private mutating func consumeScalarSlow(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int, _ basicPlane: BasicPlaneTable) -> Int {
        let b0 = base[i]
        var need: Int
        var v: UInt32
        switch b0 {
        case 0xC2...0xDF: need = 1; v = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: need = 2; v = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: need = 3; v = UInt32(b0 & 0x07)
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
            handleScalar(0xFFFD, BasicPlaneTable.shared)
        }
    }
}

/// The lookup tables, read from their globals once per call to `consume`.
private struct Tables {
    let ascii: UnsafePointer<UInt8>
    let letters: UnsafePointer<UInt8>
    let basicPlane: BasicPlaneTable
    let blockFlags: UnsafePointer<UInt8>
}
