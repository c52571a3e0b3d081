import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import PlainCalls
import SessionRecorder
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A process that records the hook calls of one store, keeping the store open between them.
///
/// A `clsfile hook EVENT FILE` process spends most of its time making the store ready (reading
/// its schema and log, the first use of each type) and little recording. So the first call of a
/// store records its event itself, then starts an agent in the background (`clsfile-main hook
/// --agent`, in a session of its own, its standard streams on /dev/null), and the calls after it
/// hand their arguments to the agent over a Unix socket (see `HookAgentCall` and
/// `HookAgentAddress`, in PlainCalls, which the `clsfile` front asks through) and wait for its
/// answer. The agent reads a call as the call would (``HookCall``) and records the event
/// (``HookLine/record(_:recorder:spool:)``), then hands over the sessions it started, as a hook
/// process does when it exits: the event is in the store, its session owned by the editor run
/// alone, before the call exits.
///
/// Each event is recorded once: the agent takes a call only within `HookAgentCall.takeLimit`
/// seconds of its making, well before the call stops waiting and records it itself. A call that
/// finds no agent starts one. Before each call, at most once a second, and every second between
/// calls, the agent ends the sessions whose process or editor is gone, as each hook process did
/// when it opened the store. It ends after ten minutes without a call, when its store, its socket
/// or its executable is removed or replaced (an update, an uninstall), and after a call that took
/// it over a minute (its socket is removed at the minute, so the calls after it do not wait).
/// `CLSFILE_HOOK_AGENT=off` turns it off.
enum HookAgent {
    /// How long an agent waits for a call before it ends, in seconds.
    static let idleLimit = 600.0
    /// How long one call may take the agent before its socket is removed, in seconds.
    static let callLimit = 60.0

    /// Starts the agent of `address` in the background, not waited for: it serves the calls after
    /// this one. Several calls may start one at once; all but one find the lock taken and end.
    static func start(at address: HookAgentAddress) {
        var arguments = ["hook", "--agent"]
        if let store = address.store { arguments += ["--store", store] }
        if let idleTimeout = address.idleTimeout { arguments += ["--idle-timeout", idleTimeout] }
        _ = HelperProgram.spawnInBackground(MainProgram.path, arguments)
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
                        || FileIdentity(path: address.socket) != socketFile || MainProgram.ownPath.hasSuffix(" (deleted)")
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
                guard let request = connection.receiveAll(limit: HookAgentCall.requestLimit) else { continue }
                // A store removed or replaced since (a reset, a restore) is the calls' to open anew.
                guard FileIdentity(path: storePath) == storeFile else {
                    _ = connection.sendAll(HookAgentCall.refusal)
                    unlink(address.socket)
                    exit(0)
                }
                guard let event = event(of: request) else {
                    _ = connection.sendAll(HookAgentCall.refusal)
                    continue
                }
                guard connection.sendAll([HookAgentCall.taken], ending: false) else { continue }
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
    /// wait (see `HookAgentCall.takeLimit`). (Only a call with this agent's settings finds its socket: the
    /// socket's name is their hash.)
    private static func event(of request: [UInt8]) -> SessionEvent? {
        let fields = request.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
        guard fields.count > 4, fields[0] == HookAgentCall.requestVersion,
            let bits = UInt64(String(decoding: fields[2], as: UTF8.self), radix: 16)
        else { return nil }
        let made = Date(timeIntervalSince1970: Double(bitPattern: bits))
        guard Date().timeIntervalSince(made) < HookAgentCall.takeLimit else { return nil }
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
    private static func record(_ event: SessionEvent, recorder: SessionRecorder, spool: EventSpool) async -> HookAgentCall.Answer {
        let errorOutput = Diagnostics.Collector()
        let status = await Diagnostics.$collector.withValue(errorOutput) {
            await exitStatus(recording: event, recorder: recorder, spool: spool, errorOutput: errorOutput)
        }
        return HookAgentCall.Answer(status: status, errorOutput: Array(errorOutput.text.utf8))
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
