import OpenClassKit
import SessionRecorder

/// A file's progress with what it measures, as `show`, `list` and `report` print it.
struct ProgressSummary: Sendable {
    /// The progress from 0 to 1; nil when there is nothing to measure it against.
    var value: Double?
    /// The basis (`target_words`, `checklist`, `executed_cells`, `viewed_share`, `none`); nil
    /// when a program set the progress through the library without naming one.
    var basis: ProgressBasis?
    /// The basis as people read it, such as "toward 500 words".
    var basisName: String?

    init(value: Double?, basis: ProgressBasis?, basisName: String?) {
        self.value = value
        self.basis = basis
        self.basisName = basisName
    }

    init(_ activity: CLSActivity) {
        basis = activity.progressBasis
        value = basis?.measuresProgress == false ? nil : activity.progress
        basisName = basis?.name(targetWords: activity.targetWordCount)
    }

    /// `62%`, or `-` without a basis to measure against.
    var percent: String {
        value.map(Formatting.percent) ?? "-"
    }

    /// `62% toward 50 words`, `- none (no target word count)`, or `40%` with no named basis.
    var text: String {
        basisName.map { "\(percent) \($0)" } ?? percent
    }
}
