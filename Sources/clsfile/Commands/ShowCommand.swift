import ArgumentParser
import CommandSupport
import Foundation
import HistoryPictures
import OpenClassKit

/// `clsfile show FILE`: everything recorded for one file.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the time, progress, items, sessions and writing history recorded for a file.",
        discussion: """
            Active time comes from input only: a session's time runs from its first input (a key, \
            a paste, a save, a view of a file being read) to its last, a pause between two inputs \
            counting when it is no longer than the idle timeout; the editor's start before the \
            first input and the time after the last are open time, and a session without input has \
            none. The history has a line for each session (an editor run, its pauses not counted; \
            rows at its saves, at most one a minute, and every 5 minutes keep its text too): its \
            active and open time, the words it added, the characters typed, pasted (text from \
            outside the document) and moved (the document's own text cut or copied and pasted in \
            it), as the editor's plugin counted them, and the progress after it. `clsfile replay \
            FILE` shows how the text itself grew; --html prints a page with pictures of it \
            (`clsfile show --html essay.txt > essay.html`).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Flag(name: .long, help: "Print a self-contained HTML page of the file's writing history, with pictures.")
    var html = false

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func validate() throws {
        if json && html { throw ValidationError("Choose one of --json and --html.") }
    }

    func run() async throws {
        try await reportingFailures {
            let url = FileArgument.url(for: file)
            let store = storeOptions.dataStore()
            let activity = try await Self.activity(of: url, named: FileArgument.displayName(of: file), in: store)
            var summary = activity.map { ActivitySummary($0) } ?? ActivitySummary(unrecordedFile: url)
            if let activity {
                summary.history = try await store.writingHistory(for: activity)
                summary.dictatedSessions = try await store.dictatedSessions(of: activity)
            }
            if html {
                // A page of nothing would look like a history that is empty: say so instead, as the text does.
                guard activity != nil else {
                    let name = FileArgument.displayName(of: file)
                    throw CLSError(
                        .invalidArgument,
                        "no activity recorded for \(name): there is no history to draw; open it with `clsfile open \(name)` first")
                }
                print(
                    HistoryPage(
                        title: url.displayFileName,
                        figures: summary.historyFigures,
                        history: summary.history ?? WritingHistory(entries: []),
                        showsProgress: summary.progressBasis?.measuresProgress != false
                    ).render())
            } else {
                print(json ? summary.json() : summary.text())
                if activity == nil, !json, let note = try Self.roleNote(storeOptions) { print(note) }
            }
        }
    }

    /// Where else an unrecorded file's activity may be: with a development-mode role in force and
    /// no store named, the store read is that role's, and the file may have been recorded in another.
    static func roleNote(_ options: StoreOptions) throws -> String? {
        guard options.store == nil, (ProcessInfo.processInfo.environment["CLSFILE_STORE"] ?? "").isEmpty else { return nil }
        let role = try DeveloperMode.current().role
        guard role != .off else { return nil }
        return
            "This is the \(role.rawValue) role's store: each development-mode role keeps its own. `clsfile role` says which is in force; `clsfile role off` reads your own."
    }

    /// The activity of a file, or, when no file is at the path any more, the one last recorded
    /// there (a file deleted or renamed after its sessions).
    /// - Throws: `CLSError` `.invalidArgument` when neither a file nor a record is at the path.
    static func activity(of url: URL, named file: String, in store: CLSDataStore) async throws -> CLSActivity? {
        var info = stat()
        guard FileSystemPath.withCString(url, { lstat($0, &info) }) != 0, errno == ENOENT else {
            return try await store.existingActivity(for: url)
        }
        guard let recorded = try await store.activityRecorded(at: url) else {
            throw CLSError(
                .invalidArgument,
                "\(file) does not exist and nothing was recorded at that path: check its name (`clsfile list` shows every file recorded)")
        }
        return recorded
    }
}
