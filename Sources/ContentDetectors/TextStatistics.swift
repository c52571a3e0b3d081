/// Counts for one stream of prose under the module's counting rule.
///
/// See <doc:ContentDetectors#The-counting-rule> for what each number means.
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

    /// Flesch–Kincaid grade level: 0.39 × words/sentences + 11.8 × syllables/words − 15.59; 0 without words.
    public var fleschKincaidGrade: Double {
        guard words > 0, sentences > 0 else { return 0 }
        return 0.39 * Double(words) / Double(sentences) + 11.8 * Double(syllables) / Double(words) - 15.59
    }

    /// Flesch reading ease: 206.835 − 1.015 × words/sentences − 84.6 × syllables/words; 0 without words.
    public var fleschReadingEase: Double {
        guard words > 0, sentences > 0 else { return 0 }
        return 206.835 - 1.015 * Double(words) / Double(sentences) - 84.6 * Double(syllables) / Double(words)
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
