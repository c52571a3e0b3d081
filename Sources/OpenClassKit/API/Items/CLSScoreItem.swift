import Foundation

/// An item that reports a score out of a maximum, such as 7 of 10.
///
/// The maximum must be above zero and the score between zero and the maximum; a save with anything
/// else fails with `.invalidArgument`.
public final class CLSScoreItem: CLSActivityItem, @unchecked Sendable {
    /// Creates a score item.
    /// - Parameters:
    ///   - identifier: Unique within the activity.
    ///   - title: What people see.
    ///   - score: The score, 0 ≤ score ≤ maxScore.
    ///   - maxScore: The highest possible score, above zero.
    public init(identifier: String, title: String, score: Double, maxScore: Double) {
        super.init(identifier: identifier, title: title, value: .score(score, maxScore: maxScore))
    }

    override init(identifier: String, title: String, value: ItemValue, created: Date, modified: Date?) {
        super.init(identifier: identifier, title: title, value: value, created: created, modified: modified)
    }

    /// The score.
    public var score: Double {
        get { if case .score(let score, _) = itemValue { score } else { 0 } }
        set { update { if case .score(_, let maximum) = $0.value { $0.value = .score(newValue, maxScore: maximum) } } }
    }

    /// The highest possible score.
    public var maxScore: Double {
        get { if case .score(_, let maximum) = itemValue { maximum } else { 0 } }
        set { update { if case .score(let score, _) = $0.value { $0.value = .score(score, maxScore: newValue) } } }
    }

    override var validationError: CLSError? {
        let (score, maximum) = (score, maxScore)
        guard maximum.isFinite, maximum > 0 else {
            return CLSError(.invalidArgument, "maxScore of item '\(identifier)' is \(maximum): it must be above zero")
        }
        guard score.isFinite, score >= 0, score <= maximum else {
            return CLSError(
                .invalidArgument,
                "score of item '\(identifier)' is \(score): it must lie between 0 and maxScore \(maximum)")
        }
        return nil
    }
}
