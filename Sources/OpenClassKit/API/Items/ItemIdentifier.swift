/// The identifiers of the items clsfile records, defined once for every module that reads or
/// writes them. Each item has one writer: the session recorder (`SessionRecorder`), which measures
/// files and times sessions; the class report, the dashboard, submissions and xAPI only read them.
/// Not part of ClassKit, whose apps choose their own identifiers.
///
/// ```swift
/// let words = activity.primaryActivityItem as? CLSQuantityItem
/// if words?.identifier == ItemIdentifier.wordCount { print(words?.quantity ?? 0) }
/// ```
public enum ItemIdentifier {
    /// The primary item: the document's word count (a quantity).
    public static let wordCount = "total_word_count"
    /// The word count progress is measured toward (a quantity), remembered per file.
    public static let targetWords = "target_word_count"
    /// The Flesch–Kincaid grade of the text, never below 0 (a quantity).
    public static let readabilityGrade = "readability_grade"
    /// Characters of text (a quantity).
    public static let characters = "characters"
    /// Sentences of text (a quantity).
    public static let sentences = "sentences"
    /// Checklist items done of all (a score).
    public static let checklist = "checklist"
    /// Notebook code cells run of all (a score).
    public static let codeCells = "executed_code_cells"
    /// Lines of code in code blocks or cells (a quantity).
    public static let codeLines = "code_lines"
    /// Seconds the file was open in editors, idle time included (a quantity).
    public static let openTime = "open_time"
    /// Whether the file is being read, so that its progress is the share viewed (a binary item).
    public static let reading = "reading"
    /// Characters that reached the text by typing, input methods and dictation included, as an
    /// editor plugin counts them (a quantity).
    public static let typedCharacters = "typed_characters"
    /// Characters that reached the text as pastes of text from outside the document (paste
    /// commands, yanks, bracketed pastes, drag and drop of text from another document or program),
    /// as an editor plugin or `clsfile open`'s terminal counts them (a quantity).
    public static let pastedCharacters = "pasted_characters"
    /// Characters pasted that came from the same document: the person's own text moved or copied
    /// (a cut, copy, yank, delete or kill in it, then a paste; or a paste of text it already held)
    /// (a quantity). Never counted as pasted.
    public static let movedCharacters = "moved_characters"
    /// The most characters pasted from outside the document at once (a quantity).
    public static let largestPaste = "largest_paste"
    /// Keys pressed in `clsfile open`'s terminal when no plugin counted what reached the text:
    /// editing commands (`i`, Esc, `:wq`) included, so not characters typed (a quantity).
    public static let keysPressed = "keys_pressed"
    /// The most the file grew between two pulses, in bytes (a quantity).
    public static let largestGrowth = "largest_growth_between_pulses"
    /// What timed the last `clsfile open` session (a quantity, a code of SessionRecorder's
    /// `TimingSource`: 1 keystrokes in the terminal, 2 desktop input to the editor's windows,
    /// 3 file changes only).
    public static let timingSource = "timing_source"

    /// The items whose quantity is a number of seconds, shown as durations.
    public static let durations: Set<String> = [openTime]
}
