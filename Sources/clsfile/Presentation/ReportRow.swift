import Foundation
import OpenClassKit
import SessionRecorder

/// One file's line in `clsfile report`.
struct ReportRow: Encodable {
    var path: String
    var activeSeconds: Double
    var openSeconds: Double?
    var words: Double?
    /// The progress, nil when there is no basis to measure it against.
    var progress: Double?
    /// What the progress measures (see ``ProgressSummary``).
    var progressBasis: ProgressBasis?
    var sessions: Int
    var lastOpened: Date
    var isRunning: Bool

    /// Times are whole seconds, cut as the text shows them, so that text, JSON and CSV agree.
    init(_ activity: CLSActivity, since: Date?) {
        path = activity.context.fileURL?.path(percentEncoded: false) ?? activity.context.identifier
        // A running session counts to its last pulse, as `show` counts it.
        activeSeconds = activity.recordedDuration(since: since ?? .distantPast).rounded(.down)
        let items = activity.additionalActivityItems
        openSeconds = (items.first { $0.identifier == ItemIdentifier.openTime } as? CLSQuantityItem)?
            .quantity.rounded(.down)
        words = (activity.primaryActivityItem as? CLSQuantityItem)?.quantity
        let summary = ProgressSummary(activity)
        (progress, progressBasis) = (summary.value, summary.basis)
        let cutoff = since ?? .distantPast
        let sessions = activity.workSessions
        self.sessions = sessions.filter { ($0.end ?? $0.lastPulse) > cutoff }.count
        lastOpened = sessions.last?.start ?? activity.dateCreated
        isRunning = activity.isStarted
    }

    static func table(_ rows: [ReportRow], idleRule: String) -> String {
        guard !rows.isEmpty else { return "No activity recorded yet." }
        var lines = [["ACTIVE", "OPEN", "WORDS", "PROGRESS", "BASIS", "SESSIONS", "LAST OPENED", "FILE"]]
        for row in rows {
            lines.append([Formatting.text(row.activeSeconds) + (row.isRunning ? "*" : ""),
                          row.openSeconds.map(Formatting.text) ?? "-",
                          row.words.map(Formatting.number) ?? "-",
                          row.progress.map(Formatting.percent) ?? "-", row.progressBasis?.rawValue ?? "-", "\(row.sessions)",
                          Formatting.timestamp(row.lastOpened), row.path])
        }
        var text = Formatting.columns(lines)
        text.append("")
        text.append("Active time counts work only: \(idleRule). Open time runs from open to close.")
        text.append("Progress is measured toward a target word count (target_words), by a checklist or by notebook cells run; for reading, as the share of lines viewed (viewed_share); none: no target.")
        if rows.contains(where: \.isRunning) { text.append("* a session is running now.") }
        return text.joined(separator: "\n")
    }

    static func csv(_ rows: [ReportRow]) -> String {
        var text = "file,active_seconds,open_seconds,words,progress,progress_basis,sessions,last_opened\n"
        for row in rows {
            let fields = [quoted(row.path), Formatting.number(row.activeSeconds),
                          row.openSeconds.map(Formatting.number) ?? "",
                          row.words.map(Formatting.number) ?? "", row.progress.map { String(format: "%.4f", $0) } ?? "",
                          row.progressBasis?.rawValue ?? "", "\(row.sessions)", Formatting.iso8601(row.lastOpened)]
            text += fields.joined(separator: ",") + "\n"
        }
        return text
    }

    private static func quoted(_ field: String) -> String {
        field.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    static func json(_ rows: [ReportRow], idleRule: String) throws -> String {
        struct Report: Encodable {
            var idleRule: String
            var files: [ReportRow]
        }
        return try Formatting.json(Report(idleRule: idleRule, files: rows))
    }
}
