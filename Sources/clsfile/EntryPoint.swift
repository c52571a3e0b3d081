import ArgumentParser
import CommandSupport
import Dispatch
import OpenClassKit
import PlainCalls
import SessionRecorder

#if canImport(Glibc)
import Glibc
#endif

/// Where `clsfile-main` starts: the program that runs every command of `clsfile`, which runs it
/// for all but the calls it answers itself (see `MainProgram`, in PlainCalls).
///
/// Run itself, it answers those calls the same way: a plain `clsfile stats FILE…` (see
/// `StatsCall`) is counted at once, before anything else is set up: it reads no store. A plain
/// `clsfile hook EVENT FILE` call (see ``HookCall``) is handed to the store's hook agent when one
/// runs (see `HookAgentCall`, and ``HookAgent``, which is also started from here),
/// else recorded on the main thread (see ``MainThreadExecutor``), a command another program runs (see
/// ``HelperProgram``) handed to it, and every other call goes through ArgumentParser on the main
/// actor, as an asynchronous `main` would run it.
@main
enum EntryPoint {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let call = StatsCall(arguments: arguments) { exit(call.run()) }
        // A `hook --stdio` serves an editor for hours: its threads share one heap, which must be
        // said before any of them starts (see AllocatorArenas).
        if arguments.first == "hook", arguments.contains("--stdio") { AllocatorArenas.useOne() }
        var agentToStart: HookAgentAddress?
        if arguments.first == "hook" {
            switch HookAgentCall.ask(arguments) {
            case .answered(let answer): answer.end()
            case .noAgent(let address): agentToStart = address
            case .notTaken, .notServed: break
            }
        }
        // The library reports; the program tells people.
        CLSDataStore.reportExitFailures { Diagnostics.warn($0.message) }
        // A session a killed `clsfile open` left keeps the figures of the text last saved.
        SessionRecorder.measureFilesOfAbandonedSessions()
        if let call = HookCall(arguments: arguments) {
            MainThreadExecutor.run { [agentToStart] in
                do {
                    let recorder = try await HookLine.record(call)
                    if let agentToStart { HookAgent.start(at: agentToStart) }
                    // The event is committed. Closing the store would release only what the end
                    // of the process releases, after starting a thread to dispose of GRDB's queue;
                    // the recorder is kept alive so that nothing closes it before the exit.
                    withExtendedLifetime(recorder) { Clsfile.exit() }
                } catch {
                    Clsfile.exit(withError: error)
                }
            }
        }
        if let agent = HookAgent.agentCall(arguments) {
            HookAgent.serve(at: agent)
        }
        if let forwarding = HelperProgram.forwarding(arguments) {
            do {
                try forwarding.program.replaceProcess(with: forwarding.arguments, for: forwarding.command)
            } catch {
                Clsfile.exit(withError: error)
            }
        }
        parseOnTheMainActor(arguments)
    }

    /// Runs ArgumentParser's command on the main actor. Kept out of `main`: inlined there, the
    /// metadata of this task was made first thing on every path, `stats` too, which starts no
    /// task (about 40 µs of a `clsfile stats` of a 10,000-word ODT).
    @inline(never)
    private static func parseOnTheMainActor(_ arguments: [String]) -> Never {
        Task { @MainActor in
            await Clsfile.main(arguments)
            Clsfile.exit()
        }
        dispatchMain()
    }
}
