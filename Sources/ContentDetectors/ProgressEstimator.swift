/// A progress figure between 0 and 1, with the basis it was computed on.
public struct ProgressEstimate: Sendable, Hashable, Codable {
    /// Progress from 0 to 1.
    public var value: Double
    /// What the value is based on, in words, e.g. "1200 of 2000 words".
    public var basis: String

    /// Creates an estimate; `value` is clamped to 0…1.
    public init(value: Double, basis: String) {
        self.value = min(1, max(0, value.isFinite ? value : 0))
        self.basis = basis
    }
}

/// Ways to estimate how far along a piece of work is.
public enum ProgressEstimator: Sendable, Hashable {
    /// Body words toward a target word count.
    case targetWordCount(Int)
    /// Checked items among all checklist items (`- [x]` / `- [ ]`).
    case checklist
    /// Executed code cells among all code cells of a notebook.
    case executedCells

    /// Estimates progress from a report. With nothing to measure (no target, no checklist items,
    /// no code cells) the value is 0 and the basis says why.
    public func estimate(_ report: DocumentReport) -> ProgressEstimate {
        switch self {
        case .targetWordCount(let target):
            guard target > 0 else { return ProgressEstimate(value: 0, basis: "no target word count given") }
            let words = report.statistics.words
            return ProgressEstimate(value: Double(words) / Double(target), basis: "\(words) of \(target) words")
        case .checklist:
            let c = report.checklist
            guard c.total > 0 else { return ProgressEstimate(value: 0, basis: "no checklist items found") }
            return ProgressEstimate(value: Double(c.done) / Double(c.total), basis: "\(c.done) of \(c.total) checklist items done")
        case .executedCells:
            guard let cells = report.notebookCells, cells.code > 0 else {
                return ProgressEstimate(value: 0, basis: "no code cells found")
            }
            return ProgressEstimate(
                value: Double(cells.executed) / Double(cells.code), basis: "\(cells.executed) of \(cells.code) code cells executed")
        }
    }
}
