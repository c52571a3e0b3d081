import Foundation
import OpenClassKit

/// A second process for the store's tests: each command does one thing to one file's activity.
///
///     store-worker start STORE FILE
///     store-worker start-in-editor STORE FILE   (as a plugin's hook: started in its parent's editor
///                                           run, then a normal exit, which hands the span over)
///     store-worker edit-through-shell STORE FILE   (an editor that runs `start-in-editor` through
///                                           `sh -c`, prints "started" once the shell is gone, and waits)
///     store-worker stop STORE FILE
///     store-worker hammer STORE FILE WORKER SAVES TOTAL_WORKERS
///     store-worker pulse-forever STORE FILE
///     store-worker save-forever STORE FILE   (as the talks' code does: start, then saves, no pulses)
///     store-worker complete STORE FILE   (ClassKit's call, then an immediate exit)
///     store-worker activate STORE A/B/C   (makes the stored context at that path active, then exits)
///     store-worker attempt-and-die STORE A/B/C   (a new attempt at that stored context, started,
///                                           scored 9/10, saved and made active; then SIGKILL)
@main
struct StoreWorker {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 3 else {
            FileHandle.standardError.write(Data("usage: store-worker COMMAND STORE FILE [...]\n".utf8))
            exit(64)
        }
        let store = CLSDataStore(
            storeURL: URL(fileURLWithPath: arguments[1]),
            configuration: .init(busyTimeout: 60))
        let file = URL(fileURLWithPath: arguments[2])
        do {
            switch arguments[0] {
            case "activate":
                let path = arguments[2].split(separator: "/").map(String.init)
                guard let context = try await store.contexts(matchingIdentifierPath: path).last,
                    context.identifierPath.count == path.count + 1
                else {
                    FileHandle.standardError.write(Data("no context at \(arguments[2])\n".utf8))
                    exit(1)
                }
                context.becomeActive()
                guard store.activeContext?.identifierPath == context.identifierPath else { exit(1) }
            case "attempt-and-die":
                let path = arguments[2].split(separator: "/").map(String.init)
                guard let context = try await store.contexts(matchingIdentifierPath: path).last,
                    context.identifierPath.count == path.count + 1
                else {
                    FileHandle.standardError.write(Data("no context at \(arguments[2])\n".utf8))
                    exit(1)
                }
                let activity = context.createNewActivity()
                activity.start()
                activity.primaryActivityItem = CLSScoreItem(identifier: "score", title: "Score", score: 9, maxScore: 10)
                try await store.save()
                context.becomeActive()
                kill(getpid(), SIGKILL)
            case "complete":
                // Apple's call form, in an async function, and an exit right after it.
                store.completeAllAssignedActivities(matching: [file.resolvingSymlinksInPath().path])
                exit(0)
            case "start":
                try await store.fetchActivity(for: file).start()
                try await store.save()
            case "start-in-editor":
                try await store.fetchActivity(for: file).start(at: Date(), inEditorRun: CLSDataStore.parentEditorRun)
                try await store.save()
            case "edit-through-shell":
                let hook = Process()
                hook.executableURL = URL(fileURLWithPath: "/bin/sh")
                hook.arguments = [
                    "-c", "\"$0\" start-in-editor \"$1\" \"$2\"",
                    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, arguments[1], arguments[2]
                ]
                try hook.run()
                hook.waitUntilExit()
                guard hook.terminationStatus == 0 else { exit(1) }
                FileHandle.standardOutput.write(Data("started\n".utf8))
                try await Task.sleep(for: .seconds(600))
            case "stop":
                try await store.fetchActivity(for: file).stop()
                try await store.save()
            case "hammer":
                let worker = Int(arguments[3]) ?? 0, saves = Int(arguments[4]) ?? 0, workers = Int(arguments[5]) ?? 1
                try await hammer(store, file, worker: worker, saves: saves, workers: workers)
            case "pulse-forever":
                try await pulseForever(store, file, pulsing: true)
            case "save-forever":
                try await pulseForever(store, file, pulsing: false)
            default:
                FileHandle.standardError.write(Data("store-worker: unknown command \(arguments[0])\n".utf8))
                exit(64)
            }
        } catch {
            FileHandle.standardError.write(Data("store-worker: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Each save adds one span, one progress range and one item of this worker's own.
    static func hammer(_ store: CLSDataStore, _ file: URL, worker: Int, saves: Int, workers: Int) async throws {
        let slice = 1.0 / Double(saves * workers)
        for index in 0..<saves {
            let activity = try await store.fetchActivity(for: file)
            activity.start()
            activity.stop()
            let position = Double(worker * saves + index)
            activity.addProgressRange(fromStart: position * slice, toEnd: (position + 1) * slice)
            let item = CLSQuantityItem(identifier: "worker-\(worker)-save-\(index)", title: "Save \(index)")
            item.quantity = Double(index)
            activity.addAdditionalActivityItem(item)
            try await store.save()
        }
    }

    /// Starts the activity, then records and saves a pulse every 50 ms, printing each pulse's time.
    /// Starts the file's activity, then saves every 50 ms, printing when: with a pulse before each
    /// save, or, as code written like the talks does, changing only the progress.
    static func pulseForever(_ store: CLSDataStore, _ file: URL, pulsing: Bool) async throws {
        let activity = try await store.fetchActivity(for: file)
        activity.start()
        try await store.save()
        var step = 0.0
        while true {
            let now = Date()
            if pulsing {
                activity.recordPulse(at: now)
            } else {
                step = min(step + 0.01, 1)
                activity.progress = step
            }
            try await store.save()
            FileHandle.standardOutput.write(Data("pulse \(now.timeIntervalSince1970)\n".utf8))
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
