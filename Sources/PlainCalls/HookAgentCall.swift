import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// A `clsfile hook EVENT FILE` call handed to the hook agent of its store, which records it (see
/// `HookAgent` in `clsfile-main`, which serves the calls).
///
/// The call sends its arguments as bytes (a file's name need not be UTF-8), its folder, the time
/// it was made and the editor run that made it, and waits for the agent's answer: the exit status,
/// and what the call would have written on standard error. The agent takes a call (it answers `+`)
/// only within ``takeLimit`` seconds of its making, and a call that has no `+` ``takeTimeout``
/// seconds after it was made records its event itself; a call taken is the agent's to record, and
/// a call whose agent ends before it answers says so and exits 74, as a hook process killed while
/// recording would have recorded nothing. The `clsfile` front asks; `clsfile-main` asks too when it
/// is run itself, and starts the agent when there is none.
public enum HookAgentCall {
    /// What became of a call that asked the agent.
    public enum Outcome {
        /// The agent recorded the event, or refused it as the call would have.
        case answered(Answer)
        /// No agent listens: the call records its event, then starts one at this address.
        case noAgent(HookAgentAddress)
        /// The agent did not take the call (busy, or the call is not one it serves): the call
        /// records its event itself.
        case notTaken
        /// The call is not a plain hook call, or the agent is turned off or has no private folder.
        case notServed
    }

    /// The agent's answer to one call.
    public struct Answer {
        /// The call's exit status.
        public var status: Int32
        /// What the call writes on standard error.
        public var errorOutput: [UInt8]

        public init(status: Int32, errorOutput: [UInt8]) {
            self.status = status
            self.errorOutput = errorOutput
        }

        /// Ends the call as the agent said: writes the error output and exits with the status.
        public func end() -> Never {
            StandardError.write(errorOutput)
            exit(status)
        }
    }

    /// How long after its making a call waits for the agent to take it, in seconds.
    public static let takeTimeout = 5.0
    /// How long after its making the agent still takes a call, in seconds: well within
    /// ``takeTimeout``, so that a call the agent takes is never also recorded by the call.
    public static let takeLimit = 3.0
    /// How long a call taken waits for its answer, in seconds.
    public static let answerTimeout = 150.0
    /// The most a call may send, and an answer hold.
    public static let requestLimit = 1 << 20
    /// The first field of a request.
    public static let requestVersion: [UInt8] = Array("clsfile-hook-1".utf8)
    /// What the agent answers when it takes a call.
    public static let taken = UInt8(ascii: "+")
    /// What the agent answers when it does not.
    public static let refusal: [UInt8] = [UInt8(ascii: "-")]

    /// Asks the agent to record the event of `clsfile hook EVENT FILE [options]` (the arguments
    /// after the program name).
    public static func ask(_ arguments: [String]) -> Outcome {
        guard let call = PlainArguments.hook(arguments),
            let address = HookAgentAddress(store: call.value(of: "--store"), idleTimeout: call.value(of: "--idle-timeout")),
            let directory = getcwd(nil, 0)
        else { return .notServed }
        defer { free(directory) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let made = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        guard let connection = LocalSocket.connect(to: address.socket, timeout: takeTimeout) else { return .noAgent(address) }
        var request = requestVersion
        for field in [
            Array(String(cString: directory).utf8), Array(String(made.bitPattern, radix: 16).utf8),
            Array((ProcessIdentity.parentRun ?? "").utf8)
        ] + ProcessArguments.all {
            request += [0] + field
        }
        guard connection.sendAll(request), connection.receiveByte() == taken else { return .notTaken }
        guard connection.limitWaits(to: answerTimeout), let reply = connection.receiveAll(limit: requestLimit),
            let answer = answer(from: reply)
        else {
            let event = call.positionals[0], file = call.positionals[1]
            let message =
                "the hook agent (\(address.socket)) took the \(event) event of \(file) and ended before it answered: the event may "
                + "not be recorded; `clsfile show \(file)` tells, and the next hook call starts a new agent"
            return .answered(Answer(status: 74, errorOutput: Array(StandardError.line(message).utf8)))
        }
        return .answered(answer)
    }

    /// Reads `STATUS NUL ERROR-OUTPUT`; nil for `unserved` or anything else.
    private static func answer(from reply: [UInt8]) -> Answer? {
        guard let separator = reply.firstIndex(of: 0), let status = Int32(String(decoding: reply[..<separator], as: UTF8.self)) else {
            return nil
        }
        return Answer(status: status, errorOutput: Array(reply[(separator + 1)...]))
    }
}

extension PlainArguments {
    /// The events a hook call names: `SessionEvent.Kind`'s, in SessionRecorder, which the front
    /// does not link (a test checks that they agree).
    public static let hookEvents = ["open", "edit", "save", "view", "close"]

    /// The plain form of `hook EVENT FILE [options]` (the arguments after the program name), its
    /// values not yet read; nil for any other form, or an EVENT that is not one.
    public static func hook(_ arguments: [String]) -> PlainArguments? {
        guard
            let call = PlainArguments(
                arguments, command: "hook",
                valued: [
                    "--store", "--idle-timeout", "--line", "--view", "--total-lines", "--editor", "--input-at", "--opened-at",
                    "--target-words", "--typed", "--pasted", "--moved", "--largest-paste"
                ], flags: ["--reading"]), call.positionals.count == 2, hookEvents.contains(call.positionals[0])
        else { return nil }
        return call
    }
}
