/// What an activity's progress measures. Not part of ClassKit.
///
/// An activity has one basis at a time (``CLSActivity/progressBasis``), and a new basis starts
/// its progress again, so estimates of different kinds are never united. The bases clsfile's
/// recorder uses are below; a program may name its own.
///
/// ```swift
/// activity.progressBasis = .targetWords
/// activity.progress = 0.62
/// ```
public struct ProgressBasis: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The name kept in the store, such as `target_words`.
    public let rawValue: String

    /// Creates a basis from its stored name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The words written toward a target word count.
    public static let targetWords = ProgressBasis(rawValue: "target_words")
    /// The checklist items ticked in the document.
    public static let checklist = ProgressBasis(rawValue: "checklist")
    /// The notebook's code cells that have run.
    public static let executedCells = ProgressBasis(rawValue: "executed_cells")
    /// The share of the document's lines that have been on screen; for reading.
    public static let viewedShare = ProgressBasis(rawValue: "viewed_share")
    /// Nothing to measure against: a document being written with no target shows no progress.
    /// (Not named `none`, which an optional basis would read as `Optional.none`.)
    public static let noTarget = ProgressBasis(rawValue: "none")

    /// Whether there is a progress to show at all.
    public var measuresProgress: Bool { self != .noTarget }

    /// How reports name the basis, such as "toward 500 words".
    /// - Parameter targetWords: The target, for ``targetWords``.
    public func name(targetWords: Int?) -> String {
        switch self {
        case .targetWords: targetWords.map { "toward \($0) words" } ?? "toward a word count"
        case .checklist: "checklist items ticked"
        case .executedCells: "notebook code cells run"
        case .viewedShare: "share of the lines viewed (reading)"
        case .noTarget: "none (no target word count)"
        default: rawValue
        }
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
