import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import SessionRecorder
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A process that records the hook calls of one store, keeping the store open between them.
///
/// A `clsfile hook EVENT FILE` process spends most of its time making the store ready (reading
/// its schema and log, the first use of each type) and little recording. So the first call of a
/// store records its event itself, then starts an agent in the background (`clsfile hook --agent`,
/// in a session of its own, its standard streams on /dev/null), and the calls after it hand their
/// arguments to the agent over a Unix socket (see ``HookAgentAddress``) and wait for its answer:
/// the exit status, and what the call would have written on standard error. A call sends its
/// arguments as bytes (a file's name need not be UTF-8), its folder, the time it was made and the
/// editor run that made it; the agent reads them as the call would (``HookCall``) and records the
/// event (``HookLine/record(_:recorder:spool:)``), then hands over the sessions it started, as a
/// hook process does when it exits: the event is in the store, its session owned by the editor run
/// alone, before the call exits.
///
/// Each event is recorded once. The agent takes a call (it answers `+`) only within three seconds
/// of the call's making, and a call that has no `+` five seconds after it was made records its
/// event itself; a call taken is the agent's to record, and a call whose agent ends before it
/// answers says so and exits 74, as a hook process killed while recording would have recorded
/// nothing. A call that finds no agent starts one. Before each call, at most once a second, and
/// every second between calls, the agent ends the sessions whose process or editor is gone, as each
/// hook process did when it opened the store. It ends after ten minutes without a call, when its
/// store, its socket or its executable is removed or replaced (an update, an uninstall), and after
/// a call that took it over a minute (its socket is removed at the minute, so the calls after it do
/// not wait). `CLSFILE_HOOK_AGENT=off` turns it off.
enum HookAgent {
    /// What became of a call that asked the agent.
    enum Outcome {
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
    struct Answer {
        /// The call's exit status.
        var status: Int32
        /// What the call writes on standard error.
        var errorOutput: [UInt8]

        /// Ends the call as the agent said: writes the error output and exits with the status.
        func end() -> Never {
            var written = 0
            while written < errorOutput.count {
                let count = errorOutput[written...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                written += count
            }
            exit(status)
        }
    }

    /// How long after its making a call waits for the agent to take it, in seconds.
    static let takeTimeout = 5.0
    /// How long after its making the agent still takes a call, in seconds: well within
    /// ``takeTimeout``, so that a call the agent takes is never also recorded by the call.
    static let takeLimit = 3.0
    /// How long a call taken waits for its answer, in seconds.
    static let answerTimeout = 150.0
    /// How long an agent waits for a call before it ends, in seconds.
    static let idleLimit = 600.0
    /// How long one call may take the agent before its socket is removed, in seconds.
    static let callLimit = 60.0
    /// The most a call may send.
    private static let requestLimit = 1 << 20
    /// The first field of a request; what the agent answers when it takes a call, and when not.
    private static let requestVersion: [UInt8] = Array("clsfile-hook-1".utf8)
    private static let taken = UInt8(ascii: "+")
    private static let refusal: [UInt8] = [UInt8(ascii: "-")]

    // MARK: Asking

    /// Asks the agent to record the event of `clsfile hook EVENT FILE [options]` (the arguments
    /// after the program name).
    static func ask(_ arguments: [String]) -> Outcome {
        guard let call = HookCall.plainArguments(arguments),
            let address = HookAgentAddress(store: call.value(of: "--store"), idleTimeout: call.value(of: "--idle-timeout")),
            let directory = getcwd(nil, 0)
        else { return .notServed }
        defer { free(directory) }
        let made = Date().timeIntervalSince1970
        guard let connection = LocalSocket.connect(to: address.socket, timeout: takeTimeout) else { return .noAgent(address) }
        var request = requestVersion
        for field in [
            Array(String(cString: directory).utf8), Array(String(made.bitPattern, radix: 16).utf8),
            Array((CLSDataStore.parentEditorRun ?? "").utf8)
        ] + FileArgument.processArguments {
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
            return .answered(Answer(status: 74, errorOutput: Array((Diagnostics.prefix + TerminalText.escaped(message) + "\n").utf8)))
        }
        return .answered(answer)
    }

    /// Starts the agent of `address` in the background, not waited for: it serves the calls after
    /// this one. Several calls may start one at once; all but one find the lock taken and end.
    static func start(at address: HookAgentAddress) {
        var arguments = ["hook", "--agent"]
        if let store = address.store { arguments += ["--store", store] }
        if let idleTimeout = address.idleTimeout { arguments += ["--idle-timeout", idleTimeout] }
        _ = HelperProgram.spawnInBackground(HelperProgram.ownExecutable(), arguments)
    }

    /// Reads `STATUS NUL ERROR-OUTPUT`; nil for `unserved` or anything else.
    private static func answer(from reply: [UInt8]) -> Answer? {
        guard let separator = reply.firstIndex(of: 0), let status = Int32(String(decoding: reply[..<separator], as: UTF8.self)) else {
            return nil
        }
        return Answer(status: status, errorOutput: Array(reply[(separator + 1)...]))
    }

    // MARK: Serving

    /// The address of `hook --agent [--store PATH] [--idle-timeout SECONDS]` (the arguments after
    /// the program name), as ``start(at:)`` gives them; nil for any other call, or when this
    /// environment has no agent.
    static func agentCall(_ arguments: [String]) -> HookAgentAddress? {
        guard let call = PlainArguments(arguments, command: "hook", valued: ["--store", "--idle-timeout"], flags: ["--agent"]),
            call.has("--agent"), call.positionals.isEmpty
        else { return nil }
        return HookAgentAddress(store: call.value(of: "--store"), idleTimeout: call.value(of: "--idle-timeout"))
    }

    /// When the call being served began; nil between calls.
    private static let callStarted = Mutex<ContinuousClock.Instant?>(nil)

    /// Serves the calls of its address until there are none for ``idleLimit`` seconds, or the
    /// store, the socket or the executable is removed or replaced; ends at once when another
    /// agent serves them, or when the store cannot be opened (the calls then record themselves,
    /// and say why).
    ///
    /// The calls are taken on the main thread, in ``MainThreadExecutor``'s task, one at a time:
    /// it waits for the next call only between calls, when nothing else runs there.
    static func serve(at address: HookAgentAddress) -> Never {
        // Nothing inherited from the editor through the hook stays open here (an editor waits
        // for the end of its other jobs' pipes), and no folder is kept busy.
        closefrom(3)
        _ = chdir("/")
        guard address.takeLock() else { exit(0) }
        AllocatorArenas.useOne()
        MainThreadExecutor.run {
            // The call that started this agent made the store; one that is gone is not served.
            guard let idleTimeout = try? SessionOptions.resolvedIdleTimeout(address.idleTimeout.flatMap(Double.init)),
                let storePath = try? StoreOptions.storeURL(address.store).path, let storeFile = FileIdentity(path: storePath),
                let (recorder, spool) = try? HookLine.recorder(store: address.store, idleTimeout: idleTimeout),
                let listener = LocalSocket.listen(at: address.socket), let socketFile = FileIdentity(path: address.socket)
            else { exit(1) }
            watch(address.socket)
            var lastCall = ContinuousClock.now, lastSweep = ContinuousClock.now - .seconds(1)
            // What a hook process does as it opens the store: a session whose editor was killed
            // ends at its last sign of work.
            func sweep() async {
                try? await recorder.store.endSessionsOfEndedProcesses()
                lastSweep = .now
            }
            while true {
                guard let connection = listener.accept(waiting: 1) else {
                    if lastCall.duration(to: .now) > .seconds(idleLimit) || FileIdentity(path: storePath) != storeFile
                        || FileIdentity(path: address.socket) != socketFile || HelperProgram.ownExecutable().hasSuffix(" (deleted)")
                    {
                        if FileIdentity(path: address.socket) == socketFile { unlink(address.socket) }
                        exit(0)
                    }
                    await sweep()
                    continue
                }
                lastCall = .now
                callStarted.withLock { $0 = .now }
                defer { callStarted.withLock { $0 = nil } }
                guard let request = connection.receiveAll(limit: requestLimit) else { continue }
                // A store removed or replaced since (a reset, a restore) is the calls' to open anew.
                guard FileIdentity(path: storePath) == storeFile else {
                    _ = connection.sendAll(refusal)
                    unlink(address.socket)
                    exit(0)
                }
                guard let event = event(of: request) else {
                    _ = connection.sendAll(refusal)
                    continue
                }
                guard connection.sendAll([taken], ending: false) else { continue }
                if lastSweep.duration(to: .now) >= .seconds(1) { await sweep() }
                let answer = await record(event, recorder: recorder, spool: spool)
                _ = connection.sendAll(Array(String(answer.status).utf8) + [0] + answer.errorOutput)
                // A call that took over the limit removed the socket: the calls after it record
                // themselves, and start an agent anew.
                if FileIdentity(path: address.socket) != socketFile { exit(0) }
            }
        }
    }

    /// Removes the socket when one call takes over ``callLimit`` seconds, so that the calls after
    /// it do not wait for an agent that may never answer; the agent ends when the call does.
    private static func watch(_ socket: String) {
        Thread.detachNewThread {
            while true {
                sleep(5)
                if let started = callStarted.withLock({ $0 }), started.duration(to: .now) > .seconds(callLimit) { unlink(socket) }
            }
        }
    }

    /// The event a request asks to record, read as its call would read its arguments in its
    /// folder; nil when the request is not one, or was made too long ago for the call to still
    /// wait (see ``takeLimit``). (Only a call with this agent's settings finds its socket: the
    /// socket's name is their hash.)
    private static func event(of request: [UInt8]) -> SessionEvent? {
        let fields = request.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        guard fields.count > 4, fields[0] == requestVersion,
            let bits = UInt64(String(decoding: fields[2], as: UTF8.self), radix: 16)
        else { return nil }
        let made = Date(timeIntervalSince1970: Double(bitPattern: bits))
        guard Date().timeIntervalSince(made) < takeLimit else { return nil }
        let rawArguments = Array(fields[4...])
        let arguments = rawArguments.map { String(decoding: $0, as: UTF8.self) }
        // A relative file name is the call's: read in the call's folder.
        guard chdir(String(decoding: fields[1], as: UTF8.self)) == 0 else { return nil }
        defer { _ = chdir("/") }
        guard let call = HookCall(arguments: arguments, rawArguments: rawArguments) else { return nil }
        var event = call.event
        event.date = made
        event.editorRun = fields[3].isEmpty ? nil : String(decoding: fields[3], as: UTF8.self)
        return event
    }

    /// Records one call's event as the hook would, and gives what the hook would exit with and
    /// write on standard error.
    private static func record(_ event: SessionEvent, recorder: SessionRecorder, spool: EventSpool) async -> Answer {
        let errorOutput = Diagnostics.Collector()
        let status = await Diagnostics.$collector.withValue(errorOutput) {
            await exitStatus(recording: event, recorder: recorder, spool: spool, errorOutput: errorOutput)
        }
        return Answer(status: status, errorOutput: Array(errorOutput.text.utf8))
    }

    /// Records one call's event, hands over the sessions it started, and gives the exit status.
    private static func exitStatus(
        recording event: SessionEvent, recorder: SessionRecorder, spool: EventSpool, errorOutput: Diagnostics.Collector
    ) async -> Int32 {
        var status: Int32 = 0
        do {
            try await reportingFailures { try await HookLine.record(event, recorder: recorder, spool: spool) }
        } catch {
            let message = Clsfile.fullMessage(for: error)
            if !message.isEmpty { errorOutput.append(message + "\n") }
            status = Clsfile.exitCode(for: error).rawValue
        }
        CLSDataStore.handOverRunningSessions()
        return status
    }

    /// A file (or socket) as its device and inode, to notice it removed or replaced.
    private struct FileIdentity: Equatable {
        var device: UInt
        var inode: UInt

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt(info.st_dev)
            inode = UInt(info.st_ino)
        }
    }
}
