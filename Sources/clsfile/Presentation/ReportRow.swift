import Foundation
import OpenClassKit
import PlainCalls
import SessionRecorder

/// One file's line in `clsfile report`.
struct ReportRow: Sendable {
    var path: String
    /// The context's identifier path, for a course's document.
    var contextPath: [String]?
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

    /// Times are kept as recorded: the text rounds them as every duration is shown, and JSON and
    /// CSV to the nearest whole second, so that text, JSON and CSV agree.
    init(_ activity: CLSActivity, since: Date?) {
        (path, contextPath) = ActivitySummary.place(of: activity)
        // A running session counts to its last pulse, as `show` counts it.
        activeSeconds = activity.recordedDuration(since: since ?? .distantPast)
        let items = activity.additionalActivityItems
        openSeconds =
            (items.first { $0.identifier == ItemIdentifier.openTime } as? CLSQuantityItem)?
            .quantity
        words = (activity.primaryActivityItem as? CLSQuantityItem)?.quantity
        let summary = ProgressSummary(activity)
        (progress, progressBasis) = (summary.value, summary.basis)
        let cutoff = since ?? .distantPast
        let sessions = activity.workSessions
        self.sessions = sessions.filter { ($0.end ?? $0.lastPulse) > cutoff }.count
        lastOpened = sessions.last?.start ?? activity.dateCreated
        isRunning = activity.isStarted
    }

    /// Prints the rows as a table, then what the columns mean.
    /// The row's cells in the text table: made while the store is read, so the rows themselves
    /// need not be kept.
    var cells: [String] {
        [
            Formatting.text(activeSeconds) + (isRunning ? "*" : ""), openSeconds.map(Formatting.text) ?? "-",
            words.map(Formatting.number) ?? "-", progress.map(Formatting.percent) ?? "-", progressBasis?.rawValue ?? "-",
            "\(sessions)", Formatting.timestamp(lastOpened), path + (contextPath.map { " (" + $0.joined(separator: " › ") + ")" } ?? "")
        ]
    }

    /// Prints the rows' cells as a table, then what the columns mean.
    static func writeTable(_ rows: [[String]], idleRule: String) {
        guard !rows.isEmpty else {
            print("No activity recorded yet.")
            return
        }
        var table = Table()
        table.append(["ACTIVE", "OPEN", "WORDS", "PROGRESS", "BASIS", "SESSIONS", "LAST OPENED", "FILE"])
        rows.forEach { table.append($0) }
        table.write()
        print("")
        print("Active time counts work only: \(idleRule). Open time runs from open to close.")
        print(
            "Progress is measured toward a target word count (target_words), by a checklist or by notebook cells run; for reading, as the share of lines viewed (viewed_share); none: no target."
        )
        if rows.contains(where: { $0[0].hasSuffix("*") }) { print("* a session is running now.") }
    }

    /// The row as a line of CSV, without its line break.
    var csvLine: String {
        let fields = [
            Self.quoted(path), Formatting.number(activeSeconds.rounded()), openSeconds.map { Formatting.number($0.rounded()) } ?? "",
            words.map(Formatting.number) ?? "", progress.map { Formatting.decimal($0, places: 4) } ?? "",
            progressBasis?.rawValue ?? "", "\(sessions)", Formatting.iso8601(lastOpened),
            Self.quoted(contextPath?.joined(separator: "/") ?? "")
        ]
        var line = ""
        for (index, field) in fields.enumerated() {
            line += index == 0 ? field : "," + field
        }
        return line
    }

    /// Prints CSV lines under the header line.
    static func writeCSV(_ lines: [String]) {
        var text = "file,active_seconds,open_seconds,words,progress,progress_basis,sessions,last_opened,context\n"
        for line in lines {
            text += line
            text += "\n"
            if text.utf8.count >= 1 << 16 {
                print(text, terminator: "")
                text = ""
            }
        }
        print(text, terminator: "")
    }

    private static func quoted(_ field: String) -> String {
        let needsQuotes = field.utf8.contains { byte in
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        }
        return needsQuotes ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    /// The row as an element of the report's `files`, written apart (see ``JSONWriter/insert(_:)``).
    var jsonElement: String {
        var json = JSONWriter()
        json.beginObject()
        json.member("activeSeconds", activeSeconds.rounded())
        json.member("contextPath", contextPath)
        json.member("isRunning", isRunning)
        json.member("lastOpened", Formatting.iso8601(lastOpened))
        json.member("openSeconds", openSeconds?.rounded())
        json.member("path", path)
        json.member("progress", progress)
        json.member("progressBasis", progressBasis?.rawValue)
        json.member("sessions", sessions)
        json.member("words", words)
        json.endObject()
        return json.text
    }

    /// Prints `{"files": [...], "idleRule": ...}` from the files' elements.
    static func writeJSON(_ elements: [String], idleRule: String) {
        var json = JSONWriter()
        json.beginObject()
        json.key("files")
        json.beginArray()
        for element in elements {
            json.insert(element)
            json.flush(atLeast: 1 << 16)
        }
        json.endArray()
        json.member("idleRule", idleRule)
        json.endObject()
        print(json.text)
    }
}
