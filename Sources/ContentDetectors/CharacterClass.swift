/// Classes of characters under the counting rule. Stored as bytes in lookup tables.
enum CharacterClass {
    static let space: UInt8 = 0 // separator, counted as a character with spaces
    static let newline: UInt8 = 1 // line break, not counted as a character
    static let carriageReturn: UInt8 = 2
    static let vowel: UInt8 = 3 // letter that starts a syllable group
    static let consonant: UInt8 = 4 // other letter
    static let digit: UInt8 = 5
    static let terminator: UInt8 = 6 // . ! ?
    static let closing: UInt8 = 7 // ) ] } " ' and closing quotes: keep a sentence end pending
    static let punctuation: UInt8 = 8 // other punctuation or symbol: part of a token, not a letter
    static let control: UInt8 = 9 // separator, not counted
    static let nonASCII: UInt8 = 10 // decode as UTF-8
    static let dash: UInt8 = 11 // em/en dash: splits words, counted as a character
    static let ideograph: UInt8 = 12 // Han ideograph or kana: one word each
    static let hangul: UInt8 = 13 // Hangul syllable or jamo: a letter, also CJK character
    static let extend: UInt8 = 14 // continues the previous grapheme cluster
    static let cjkTerminator: UInt8 = 15 // 。！？ end a sentence without a following space
    static let paragraphSeparator: UInt8 = 16
    static let zeroWidthJoiner: UInt8 = 17
    static let regionalIndicator: UInt8 = 18
    static let hangulVowelOrTrail: UInt8 = 19 // conjoining jamo V/T: joins a preceding Hangul cluster
    static let format: UInt8 = 20 // invisible format character: not counted, not a separator

    /// Class of each byte below 0x80; 0x80 and above map to ``nonASCII``.
    static let ascii: [UInt8] = {
        var table = [UInt8](repeating: nonASCII, count: 256)
        for b in 0..<0x80 {
            let c = UInt8(b)
            switch c {
            case 0x20, 0x09: table[b] = space
            case 0x0A, 0x0B, 0x0C: table[b] = newline
            case 0x0D: table[b] = carriageReturn
            case 0x00...0x1F, 0x7F: table[b] = control
            case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"), UInt8(ascii: "y"),
                UInt8(ascii: "A"), UInt8(ascii: "E"), UInt8(ascii: "I"), UInt8(ascii: "O"), UInt8(ascii: "U"), UInt8(ascii: "Y"):
                table[b] = vowel
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): table[b] = consonant
            case UInt8(ascii: "0")...UInt8(ascii: "9"): table[b] = digit
            case UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "?"): table[b] = terminator
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "\""), UInt8(ascii: "'"): table[b] = closing
            default: table[b] = punctuation
            }
        }
        return table
    }()

    static func isIdeographOrKana(_ v: UInt32) -> Bool {
        switch v {
        case 0x3005, 0x3007, 0x3041...0x3096, 0x309D...0x309F, 0x30A1...0x30FA, 0x30FC...0x30FF, 0x31F0...0x31FF,
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9D,
            0x1B000...0x1B16F, 0x20000...0x3134F:
            return true
        default:
            return false
        }
    }

    static func classify(_ scalar: Unicode.Scalar) -> UInt8 {
        let v = scalar.value
        if v < 0x80 { return ascii[Int(v)] }
        if isIdeographOrKana(v) { return ideograph }
        switch v {
        case 0x0085, 0x2028: return newline
        case 0x2029: return paragraphSeparator
        case 0x2013, 0x2014: return dash
        case 0x3002, 0xFF01, 0xFF1F, 0xFF0E: return cjkTerminator
        case 0x200D: return zeroWidthJoiner
        case 0x1F1E6...0x1F1FF: return regionalIndicator
        case 0x1F3FB...0x1F3FF: return extend
        case 0xAC00...0xD7A3, 0x1100...0x115F, 0x3131...0x318E, 0xA960...0xA97F: return hangul
        case 0x1160...0x11FF, 0xD7B0...0xD7FF: return hangulVowelOrTrail
        case 0x00BB, 0x2019, 0x201D, 0x203A, 0x300D, 0x300F, 0xFF09: return closing
        case 0x00E0...0x00E6, 0x00E8...0x00EB, 0x00EC...0x00EF, 0x00F2...0x00F6, 0x00F9...0x00FD, 0x00FF,
            0x00C0...0x00C6, 0x00C8...0x00CF, 0x00D2...0x00D6, 0x00D9...0x00DD:
            return vowel
        default: break
        }
        let properties = scalar.properties
        if properties.isWhitespace { return space }
        if properties.isGraphemeExtend { return extend }
        switch properties.generalCategory {
        case .spacingMark, .nonspacingMark, .enclosingMark: return extend
        case .format: return format
        case .control: return control
        case .decimalNumber, .letterNumber, .otherNumber: return digit
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return consonant
        default: return properties.isAlphabetic ? consonant : punctuation
        }
    }
}
