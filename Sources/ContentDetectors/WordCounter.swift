/// Lookup tables as raw pointers so the hot loop pays no bounds or lazy-initialisation checks.
nonisolated(unsafe) private let asciiTable: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    CharacterClass.ascii.withUnsafeBufferPointer { p.initialize(from: $0.baseAddress!, count: 256) }
    return UnsafePointer(p)
}()

nonisolated(unsafe) private let basicPlaneTable: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 0x10000)
    CharacterClass.basicPlane.withUnsafeBufferPointer { p.initialize(from: $0.baseAddress!, count: 0x10000) }
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
        var i = 0
        if carryCount > 0 { i = completeCarry(base, count) }
        if pendingCR {
            pendingCR = false
            if i < count && base[i] == 0x0A { i += 1 }
        }
        while i < count {
            if !inToken && count &- i >= 64 {
                let used = consumeBlock(base + i)
                if used > 0 { i &+= used; continue }
            }
            i = consumeScalarRange(base, i, min(count, i &+ 64), count)
        }
    }

    /// Byte-at-a-time path from `start` until at least `end`; returns where it stopped.
    private mutating func consumeScalarRange(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ count: Int) -> Int {
        let table = asciiTable
        let letters = letterTable
        var i = start
        while i < end {
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
                i = consumeScalar(base, i, count)
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
    private mutating func consumeBlock(_ p: UnsafePointer<UInt8>) -> Int {
        let raw = UnsafeRawPointer(p)
        var high: UInt64 = 0
        for w in 0..<8 { high |= raw.loadUnaligned(fromByteOffset: w &* 8, as: UInt64.self) }
        if high & 0x8080_8080_8080_8080 != 0 { return 0 }
        let flags = blockFlagTable
        var sep: UInt64 = 0, nl: UInt64 = 0, sp: UInt64 = 0, letter: UInt64 = 0
        var alnum: UInt64 = 0, vowel: UInt64 = 0, term: UInt64 = 0, close: UInt64 = 0
        let lanes: UInt64 = 0x0101_0101_0101_0101
        let gather: UInt64 = 0x0102_0408_1020_4080
        for w in 0..<8 {
            let q = p + w &* 8
            var x: UInt64 = 0
            for k in 0..<8 { x |= UInt64(flags[Int(q[k])]) << UInt64(k &* 8) }
            let shift = UInt64(w &* 8)
            sep |= (((x & lanes) &* gather) >> 56) << shift
            nl |= ((((x >> 1) & lanes) &* gather) >> 56) << shift
            sp |= ((((x >> 2) & lanes) &* gather) >> 56) << shift
            letter |= ((((x >> 3) & lanes) &* gather) >> 56) << shift
            alnum |= ((((x >> 4) & lanes) &* gather) >> 56) << shift
            vowel |= ((((x >> 5) & lanes) &* gather) >> 56) << shift
            term |= ((((x >> 6) & lanes) &* gather) >> 56) << shift
            close |= ((((x >> 7) & lanes) &* gather) >> 56) << shift
        }
        if sep == 0 { return 0 }
        let length = 64 &- sep.leadingZeroBitCount
        let inBlock: UInt64 = length == 64 ? ~0 : (UInt64(1) << UInt64(length)) &- 1
        let visible = ~sep & inBlock
        let cr = nl & term
        // A block never ends in CR, so a CR LF pair never straddles two blocks.
        if (cr >> UInt64(length &- 1)) & 1 == 1 { return 0 }
        var breaks = nl & inBlock & ~(cr << 1 & ~cr)
        totals.characters &+= (visible | (sp & inBlock)).nonzeroBitCount
        totals.charactersExcludingSpaces &+= visible.nonzeroBitCount
        var starts = visible & ~(visible << 1)
        var ends = visible & ~(visible >> 1)
        let groupStarts = vowel & ~(vowel << 1)
        let notClosing = ~close
        while starts != 0 || breaks != 0 {
            let s = starts.trailingZeroBitCount
            let b = breaks.trailingZeroBitCount
            if b < s {
                breaks &= breaks &- 1
                newlineRun &+= 1
                if newlineRun == 2 { endParagraph() }
                continue
            }
            let e = ends.trailingZeroBitCount
            starts &= starts &- 1
            ends &= ends &- 1
            newlineRun = 0
            let upToEnd: UInt64 = e == 63 ? ~0 : (UInt64(1) << UInt64(e &+ 1)) &- 1
            let range = upToEnd & ~((UInt64(1) << UInt64(s)) &- 1)
            if alnum & range != 0 {
                totals.words &+= 1
                segmentWords &+= 1
                paragraphWords &+= 1
                let groups = (groupStarts & range).nonzeroBitCount
                if groups <= 1 {
                    totals.syllables &+= 1
                } else {
                    let letters = letter & range
                    var last: UInt32 = 0
                    var k = 63 &- letters.leadingZeroBitCount
                    var taken = 0
                    while taken < 3 && k >= s && (letters >> UInt64(k)) & 1 == 1 {
                        last |= UInt32(p[k] | 0x20) << UInt32(taken &* 8)
                        taken &+= 1
                        k &-= 1
                    }
                    totals.syllables &+= WordCounter.syllables(groups: groups, lastLetters: last, extra: 0)
                }
            }
            let lastNonClosing = range & notClosing
            if lastNonClosing != 0 && (term >> UInt64(63 &- lastNonClosing.leadingZeroBitCount)) & 1 == 1 && segmentWords > 0 {
                totals.sentences &+= 1
                segmentWords = 0
            }
        }
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
            totals.syllables += tokenSyllables()
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

    private func tokenSyllables() -> Int {
        WordCounter.syllables(groups: vowelGroups, lastLetters: lastLetters, extra: extraSyllables)
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

    private mutating func handle(_ cls: UInt8) {
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

    private mutating func handleScalar(_ v: UInt32) {
        let cls: UInt8
        if v < 0x10000 {
            cls = basicPlaneTable[Int(v)]
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
        if cls == CharacterClass.hangulVowelOrTrail {
            handle(cls)
            lastWasHangul = true
            return
        }
        lastWasHangul = cls == CharacterClass.hangul
        handle(cls)
    }

    /// Decodes the scalar starting at `i`; returns the index after it.
    private mutating func consumeScalar(_ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int) -> Int {
        let b0 = base[i]
        var need: Int
        var v: UInt32
        switch b0 {
        case 0xC2...0xDF: need = 1; v = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: need = 2; v = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: need = 3; v = UInt32(b0 & 0x07)
        default:
            handleScalar(0xFFFD)
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
                handleScalar(0xFFFD)
                return i + k
            }
            v = v << 6 | UInt32(c & 0x3F)
            k += 1
        }
        if (need == 2 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) || (need == 3 && (v < 0x10000 || v > 0x10FFFF)) {
            v = 0xFFFD
        }
        handleScalar(v)
        return i + need + 1
    }

    /// Completes a sequence split across chunks; returns how many bytes of the new chunk it used.
    private mutating func completeCarry(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
        var joined = [UInt8]()
        for shift in stride(from: (carryCount - 1) * 8, through: 0, by: -8) {
            joined.append(UInt8((carry >> UInt32(shift)) & 0xFF))
        }
        let old = carryCount
        carryCount = 0
        carry = 0
        let take = min(4 - old, count)
        for j in 0..<take { joined.append(base[j]) }
        let used = joined.withUnsafeBufferPointer { consumeScalar($0.baseAddress!, 0, $0.count) }
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
            handleScalar(0xFFFD)
        }
    }
}
