import Classroom
import Foundation
import OpenClassKit

/// Small pieces several pages share: progress bars, done badges, averages and warnings.
///
/// Raw values ride along in `data-` attributes (seconds, shares, averages), so a test or a script
/// reads exactly what the store holds while people read the formatted text.
enum Fragments {
    /// A progress bar with the share written beside it.
    static func progress(_ share: Double) -> HTML {
        let clamped = min(max(share, 0), 1)
        let width = String(format: "%.1f", clamped * 100)
        return """
            <span class="bar" aria-hidden="true"><span style="width: \(width)%"></span></span>\
            <span class="share">\(DisplayFormat.percent(share))</span>
            """
    }

    /// What a student's progress measures ("toward 500 words"), with its stored name; nothing
    /// when the work does not name a basis.
    static func progressBasis(_ work: StudentWork) -> HTML {
        guard let basis = work.progressBasis, let name = work.progressBasisName else { return "" }
        // Set apart by a space, so that its text never runs into the figure before it ("100%toward").
        return " <span class=\"basis\" data-basis=\"\(basis.rawValue)\">\(name)</span>"
    }

    /// `Done` with the day, or `Not done`.
    static func done(_ completedAt: Date?) -> HTML {
        guard let completedAt else { return "<span class=\"badge open\">Not done</span>" }
        return """
            <span class="badge done">Done</span> <time datetime="\(DisplayFormat.machine(completedAt))">\(DisplayFormat.timestamp(completedAt))</time>
            """
    }

    /// A time, with its seconds for machines.
    /// - Parameter shown: The time as people read it, when it is written as the sum of its parts
    ///   (``DurationParts``); as ``DisplayFormat/duration(_:)`` writes it by default.
    static func duration(_ seconds: Double?, shown: String? = nil) -> HTML {
        guard let seconds else { return "<span data-seconds=\"\">–</span>" }
        return "<span data-seconds=\"\(String(seconds))\">\(shown ?? DisplayFormat.duration(seconds))</span>"
    }

    /// An average progress, or a dash with no students.
    static func averageProgress(_ share: Double?) -> HTML {
        guard let share else { return "<span data-progress=\"\">–</span>" }
        return "<span data-progress=\"\(String(share))\">\(progress(share))</span>"
    }

    /// Each kind of primary item's average on its own line: never one number for different kinds.
    static func primaryAverages(_ averages: [ClassReport.PrimaryAverage]) -> HTML {
        guard !averages.isEmpty else { return "<span class=\"none\">–</span>" }
        let items = averages.map { average -> HTML in
            """
            <li class="primary-average" data-key="\(average.key)" data-average="\(String(average.average))" data-count="\(average.count)">\
            \(average.title): <strong>\(DisplayFormat.number(average.average))</strong> \
            <span class="count">(\(average.count) \(average.count == 1 ? "student" : "students"))</span></li>
            """
        }
        return "<ul class=\"averages\">\(items)</ul>"
    }

    /// The warning that primary items of different kinds are shown apart, if there is one.
    static func warning(_ warning: String?, for assignmentIdentifier: String) -> HTML {
        guard let warning else { return "" }
        return """
            <div class="warning" role="note" data-warning-for="\(assignmentIdentifier)"><strong>Different kinds of primary item.</strong>\(warning.prefix(1).uppercased() + warning.dropFirst()).</div>
            """
    }

    /// The kind of a student's statement of AI use, its note as a tooltip, or "Not given".
    static func aiUse(_ statement: AIStatement?) -> HTML {
        guard let statement else { return "<span class=\"none\" data-ai-use=\"\">Not given</span>" }
        let note: HTML = statement.note.map { " title=\"\($0)\"" } ?? ""
        return "<span class=\"ai-use\" data-ai-use=\"\(statement.use.rawValue)\"\(note)>\(statement.use.description)</span>"
    }

    /// A student's primary item, `Word Count: 412`, or a dash.
    static func primaryItem(_ item: StudentWork.Item?) -> HTML {
        guard let item else { return "<span class=\"none\">–</span>" }
        return """
            <span class="primary-item" data-key="\(item.comparisonKey)" data-value="\(String(item.value))">\(item.title): \(ItemValue.text(of: item))</span>
            """
    }
}
