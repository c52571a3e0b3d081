/// Counts for one stream of prose under the module's counting rule.
///
/// See <doc:TheCountingRule> for what each number means.
public struct TextStatistics: Sendable, Equatable, Hashable, Codable {
    /// Words: whitespace-separated tokens holding a letter or digit, plus one per Han ideograph or kana.
    public var words: Int = 0
    /// Grapheme clusters, spaces included, line and paragraph breaks excluded.
    public var characters: Int = 0
    /// Grapheme clusters that are not whitespace.
    public var charactersExcludingSpaces: Int = 0
    /// Sentences: segments holding a word that end in `.`, `!`, `?`, `。`, `！`, `？`, or a paragraph end.
    public var sentences: Int = 0
    /// Paragraphs: blocks holding at least one word.
    public var paragraphs: Int = 0
    /// Estimated syllables (English vowel-group heuristic; one per CJK character).
    public var syllables: Int = 0
    /// Han ideographs, kana and Hangul characters, counted on their own as well.
    public var cjkCharacters: Int = 0
    /// The part of ``words`` that are single Han ideographs or kana.
    public var cjkWords: Int = 0

    /// Creates empty statistics.
    public init() {}

    /// The highest grade reported: 18, the end of the Flesch–Kincaid scale's use (a graduate text).
    public static let highestGrade = 18.0
    /// The range of reading ease reported: 0 (hardest) to 121.22, the most the formula gives (one
    /// syllable a word, one word a sentence).
    public static let readingEaseRange = 0.0...121.22

    /// Flesch–Kincaid grade level: 0.39 × words/sentences + 11.8 × syllables/words − 15.59, held to
    /// 0…18 (``highestGrade``); 0 without words. A text too short or unusual for the formula (one
    /// line of code, a long URL, a script the syllable rule does not fit) lands at an end of the
    /// range instead of at a number no grade has.
    public var fleschKincaidGrade: Double {
        guard words > 0, sentences > 0 else { return 0 }
        let grade = 0.39 * Double(words) / Double(sentences) + 11.8 * Double(syllables) / Double(words) - 15.59
        return min(max(grade, 0), Self.highestGrade)
    }

    /// Flesch reading ease: 206.835 − 1.015 × words/sentences − 84.6 × syllables/words, held to
    /// ``readingEaseRange``; 0 without words.
    public var fleschReadingEase: Double {
        guard words > 0, sentences > 0 else { return 0 }
        let ease = 206.835 - 1.015 * Double(words) / Double(sentences) - 84.6 * Double(syllables) / Double(words)
        return min(max(ease, Self.readingEaseRange.lowerBound), Self.readingEaseRange.upperBound)
    }

    /// Reading time in minutes: 238 words a minute, and 400 a minute for CJK characters counted as words.
    public var readingTimeMinutes: Double {
        Double(words - cjkWords) / 238 + Double(cjkWords) / 400
    }

    /// Adds the counts of `other` to these.
    public mutating func add(_ other: TextStatistics) {
        words += other.words
        characters += other.characters
        charactersExcludingSpaces += other.charactersExcludingSpaces
        sentences += other.sentences
        paragraphs += other.paragraphs
        syllables += other.syllables
        cjkCharacters += other.cjkCharacters
        cjkWords += other.cjkWords
    }
}
