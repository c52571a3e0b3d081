import Foundation
import OpenClassKit
import SessionRecorder

/// One file's line in `clsfile report`.
struct ReportRow: Encodable {
    var path: String
    var activeSeconds: Double
    var openSeconds: Double?
    var words: Double?
    var progress: Double
    var sessions: Int
    var lastOpened: Date
    var isRunning: Bool

    init(_ activity: CLSActivity, since: Date?) {
        path = activity.context.fileURL?.path(percentEncoded: false) ?? activity.context.identifier
        activeSeconds = since.map(activity.duration(since:)) ?? activity.duration
        let items = activity.additionalActivityItems
        openSeconds = (items.first { $0.identifier == SessionRecorder.ItemIdentifier.openTime } as? CLSQuantityItem)?.quantity
        words = (activity.primaryActivityItem as? CLSQuantityItem)?.quantity
        progress = activity.progress
        let cutoff = since ?? .distantPast
        sessions = activity.timeSpans.filter { ($0.end ?? Date()) > cutoff }.count
        lastOpened = activity.timeSpans.last?.start ?? activity.dateCreated
        isRunning = activity.isStarted
    }

    static func table(_ rows: [ReportRow], idleRule: String) -> String {
        guard !rows.isEmpty else { return "No activity recorded yet." }
        var lines = [["ACTIVE", "OPEN", "WORDS", "PROGRESS", "SESSIONS", "LAST OPENED", "FILE"]]
        for row in rows {
            lines.append([Formatting.text(row.activeSeconds) + (row.isRunning ? "*" : ""),
                          row.openSeconds.map(Formatting.text) ?? "-",
                          row.words.map(Formatting.number) ?? "-",
                          Formatting.percent(row.progress), "\(row.sessions)",
                          Formatting.timestamp(row.lastOpened), row.path])
        }
        var text = Formatting.columns(lines)
        text.append("")
        text.append("Active time counts work only: \(idleRule). Open time runs from open to close.")
        if rows.contains(where: \.isRunning) { text.append("* a session is running now.") }
        return text.joined(separator: "\n")
    }

    static func csv(_ rows: [ReportRow]) -> String {
        var text = "file,active_seconds,open_seconds,words,progress,sessions,last_opened\n"
        for row in rows {
            let fields = [quoted(row.path), String(format: "%.0f", row.activeSeconds),
                          row.openSeconds.map { String(format: "%.0f", $0) } ?? "",
                          row.words.map(Formatting.number) ?? "", String(format: "%.4f", row.progress),
                          "\(row.sessions)", row.lastOpened.formatted(.iso8601)]
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
