import PlainCalls

#if canImport(Glibc)
import Glibc
#endif

/// Where `clsfile` starts: a small front, without Foundation, the store or ArgumentParser, for
/// the calls that editors and tools make process by process.
///
/// A plain `clsfile stats FILE…` is counted here (``StatsCall``), and a plain
/// `clsfile hook EVENT FILE` call is handed to its store's hook agent when one runs
/// (``HookAgentCall``). Every other call, and a hook call no agent takes, runs `clsfile-main` in
/// this process's place with the same arguments (``MainProgram``): it starts an agent when there
/// is none. A hook call the agent did not take (busy) is recorded by `clsfile-main` itself,
/// without asking again: the call has waited for the agent already.
@main
enum Front {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let call = StatsCall(arguments: arguments) { exit(call.run()) }
        if arguments.first == "hook" {
            switch HookAgentCall.ask(arguments) {
            case .answered(let answer): answer.end()
            case .notTaken: MainProgram.replaceProcess(adding: [HookAgentAddress.switchVariable + "=off"])
            case .noAgent, .notServed: break
            }
        }
        MainProgram.replaceProcess()
    }
}
