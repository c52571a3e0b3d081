/// What a file's progress measures. An activity has one basis at a time, and a new basis starts its
/// progress again (`CLSActivity.progressBasis`), so estimates of different kinds are never united.
public enum ProgressBasis: String, Sendable, CaseIterable {
    /// The words written toward a target word count (from a handout, `--target-words` or a plugin).
    case targetWords = "target_words"
    /// The checklist items ticked in the document.
    case checklist
    /// The notebook's code cells that have run.
    case executedCells = "executed_cells"
    /// The share of the document's lines that have been on screen; only for reading.
    case viewedShare = "viewed_share"
    /// Nothing to measure against: a document being written with no target shows no progress.
    case none

    /// How reports name the basis, such as "toward 500 words".
    /// - Parameter targetWords: The target, for ``targetWords``.
    public func name(targetWords: Int?) -> String {
        switch self {
        case .targetWords: targetWords.map { "toward \($0) words" } ?? "toward a word count"
        case .checklist: "checklist items ticked"
        case .executedCells: "notebook code cells run"
        case .viewedShare: "share of the lines viewed (reading)"
        case .none: "none (no target word count)"
        }
    }
}
