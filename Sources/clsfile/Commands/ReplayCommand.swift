import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile replay FILE`: how a document grew, snapshot by snapshot; `--at DATE` prints it as it was.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Show how a file's text grew, session by session, or print it as it was at a date.",
        discussion: """
            clsfile keeps a snapshot of a text file (up to 2 MiB) at the end of each session and \
            every 5 minutes of a long one, in your own store; only an assignment that asks for \
            replay sends that document's snapshots with its submission. Each step shows what the \
            snapshot added (in reverse video, or between {+ and +} when not on a terminal) with a \
            line around it, and the session's figures; a session in which text was pasted in \
            `clsfile open`'s terminal is marked "pasted". On a terminal, Enter shows the next \
            step and q then Enter stops; --speed plays the steps on their own.

            --at prints the file's bytes exactly as the last snapshot taken at or before that \
            date holds them, and nothing else, so that `clsfile replay essay.txt --at \
            '2026-11-20 18:00' > then.txt` restores that version.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Print the text as it was then: YYYY-MM-DD (the end of that day), 'YYYY-MM-DD HH:MM' (local time, the end of that minute), or ISO 8601.",
            valueName: "date"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Play the steps on their own, this many seconds apart (0 to 60).", valueName: "seconds"))
    var speed: Double?

    @Argument(help: ArgumentHelp("The file.", valueName: "file"))
    var file: String

    func validate() throws {
        if let speed, !(0...60).contains(speed) {
            throw ValidationError("--speed takes 0 to 60 seconds between steps, not \(speed).")
        }
        if at != nil, speed != nil { throw ValidationError("--at prints one version; --speed plays them all: give one of them.") }
        _ = try at.map { try DateArgument.lastMoment($0, option: "--at") }
    }

    func run() async throws {
        try await reportingFailures {
            let url = FileArgument.url(for: file)
            let store = storeOptions.dataStore()
            guard let activity = try await store.existingActivity(for: url) else {
                throw CLSError(
                    .invalidArgument,
                    "nothing was recorded for \(TerminalText.escaped(url.displayPath)): there is no history to replay (open it with `clsfile open`, or an editor plugin, first)"
                )
            }
            if let at {
                try await printVersion(of: url, at: try DateArgument.lastMoment(at, option: "--at"), store: store)
            } else {
                try await play(url, store: store, showsProgress: activity.progressBasis?.measuresProgress != false)
            }
        }
    }

    /// Writes the bytes of the last snapshot taken by `date` to standard output.
    private func printVersion(of url: URL, at date: Date, store: CLSDataStore) async throws {
        guard let snapshot = try await store.snapshot(of: url, at: date) else {
            let first = try await store.writingHistory(for: url).entries.first { $0.snapshotSize != nil }
            throw CLSError(
                .invalidArgument,
                "no snapshot of \(TerminalText.escaped(url.displayPath)) was taken by \(Formatting.timestamp(date))"
                    + (first.map { ": the first is from \(Formatting.timestamp($0.date))" }
                        ?? ": none was ever taken (snapshots are of text files up to 2 MiB)"))
        }
        FileHandle.standardOutput.write(Data(snapshot.content))
    }

    /// Shows every snapshot, oldest first, waiting for Enter between them on a terminal.
    private func play(_ url: URL, store: CLSDataStore, showsProgress: Bool) async throws {
        let history = try await store.writingHistory(for: url)
        let total = history.entries.filter { $0.snapshotSize != nil }.count
        guard total > 0 else {
            throw CLSError(
                .invalidArgument,
                "\(TerminalText.escaped(url.displayPath)) has no snapshots to replay: they are taken of text files up to 2 MiB, at the end of each session recorded since clsfile kept them"
            )
        }
        let styled = isatty(STDOUT_FILENO) == 1
        let waitsForKeys = speed == nil && styled && isatty(STDIN_FILENO) == 1
        var previous: WritingHistoryEntry?
        var last: [UInt8] = []
        var step = 0
        for try await snapshot in try await store.snapshots(of: url) {
            step += 1
            let frame = ReplayFrame(
                snapshot: snapshot, previous: previous, step: step, of: total, styled: styled,
                showsProgress: showsProgress)
            print(frame.text())
            previous = snapshot.entry
            last = snapshot.content
            if step < total {
                if waitsForKeys {
                    print("Enter: next step · q then Enter: stop", terminator: " ")
                    fflush(nil)
                    guard let answer = readLine(), answer.trimmingCharacters(in: .whitespaces).lowercased() != "q" else { return }
                } else if let speed, speed > 0 {
                    fflush(nil)
                    try await Task.sleep(for: .milliseconds(Int(speed * 1000)))
                }
            }
        }
        let now = try? Data(contentsOf: url)
        if let now, [UInt8](now) == last {
            print("The file is now as the last snapshot holds it (\(last.count) bytes).")
        } else {
            print("The file changed after the last snapshot: it is recorded at the end of the next session.")
        }
    }
}
