import ArgumentParser
import CommandSupport
import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder

/// The parts of `clsfile hook` shared by single calls and `--stdio`.
enum HookLine {
    /// Checks a time given in seconds since 1970 (see ``HookRequest/date(_:option:)``).
    static func date(_ seconds: Double?, option: String) throws -> Date? {
        try validated { () throws(RecorderError) in try HookRequest.date(seconds, option: option) }
    }

    /// Checks `--typed`, `--pasted`, `--moved` and `--largest-paste` (see
    /// ``HookRequest/input(typed:pasted:moved:largestPaste:event:)``).
    static func input(typed: Int?, pasted: Int?, moved: Int?, largestPaste: Int?, event: SessionEvent.Kind) throws
        -> SessionEvent.InputFigures?
    {
        try validated { () throws(RecorderError) in
            try HookRequest.input(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste, event: event)
        }
    }

    /// Parses `--view FIRST-LAST`.
    static func visibleLines(_ text: String?, totalLines: Int?) throws -> ClosedRange<Int>? {
        guard let text else {
            guard totalLines == nil else { throw ValidationError("--total-lines goes with --view.") }
            return nil
        }
        return try visibleLines(text.split(separator: "-").compactMap { Int($0) }, as: "'\(text)'", totalLines: totalLines)
    }

    /// Checks the visible lines `[FIRST, LAST]` (see ``HookRequest/visibleLines(_:as:totalLines:)``).
    static func visibleLines(_ parts: [Int], as text: String, totalLines: Int?) throws -> ClosedRange<Int> {
        try validated { () throws(RecorderError) in try HookRequest.visibleLines(parts, as: text, totalLines: totalLines) }
    }

    /// Runs a check of the library, whose refusal is a usage error of the command line.
    static func validated<Value>(_ check: () throws(RecorderError) -> Value) throws -> Value {
        do {
            return try check()
        } catch  where error.code == .invalidRequest {
            throw ValidationError(error.message)
        }
    }

    /// The recorder and spool of hook calls: the store waits at most 200 ms for another process.
    static func recorder(store: String?, idleTimeout: TimeInterval) throws -> (SessionRecorder, EventSpool) {
        // Worked out once: without --store it reads the development-mode settings.
        let storeURL = try StoreOptions.storeURL(store)
        return (
            SessionRecorder(
                store: CLSDataStore(storeURL: storeURL, configuration: .init(busyTimeout: 0.2)),
                configuration: .init(idleTimeout: idleTimeout)),
            EventSpool(storeURL: storeURL)
        )
    }

    /// Records the event of one `clsfile hook EVENT FILE` call in this process.
    /// - Returns: The recorder, whose store is still open.
    /// - Throws: `ExitCode` 66 when the file cannot be recorded (it is missing, say), 74 when the
    ///   store or the spool fails.
    @discardableResult
    static func record(_ call: HookCall) async throws -> SessionRecorder {
        try await reportingFailures {
            let (recorder, spool) = try recorder(store: call.store, idleTimeout: call.idleTimeout)
            try await record(call.sessionEvent, recorder: recorder, spool: spool)
            return recorder
        }
    }

    /// Records one hook call's event with an open recorder, then starts a sync of the outbox if
    /// the event queued work for the class server.
    /// - Throws: `ExitCode` when the event was not recorded, after saying why.
    static func record(_ event: SessionEvent, recorder: SessionRecorder, spool: EventSpool) async throws {
        let failures: [(event: SessionEvent, error: CLSError)]
        do {
            failures = try await deliver([event], recorder: recorder, spool: spool)
        } catch let error as RecorderError {
            throw stop(after: error)
        }
        if let failure = failures.first(where: { $0.event == event }) {
            throw ExitCode(failure.error.exitCode)
        }
        BackgroundSync.startIfWaiting(store: recorder.store)
    }

    /// Delivers events and reports on standard error what went wrong.
    /// - Returns: The events that could not be recorded.
    /// - Throws: ``RecorderError`` when the spool cannot keep events the store did not take: they
    ///   are lost, and the hook stops (``stop(after:)``).
    static func deliver(
        _ events: [SessionEvent], recorder: SessionRecorder,
        spool: EventSpool
    ) async throws -> [(event: SessionEvent, error: CLSError)] {
        do {
            let delivery = try await recorder.deliver(events, spool: spool)
            for line in delivery.rejectedLines {
                Diagnostics.warn("skipped a line of \(spool.url.path) that is not an event: \(line.prefix(80))")
            }
            for problem in delivery.measurement.problems {
                Diagnostics.warn("time recorded, but the content was not measured: \(problem.message)")
            }
            for failure in delivery.failures {
                Diagnostics.warn("\(failure.event.kind.rawValue) event not recorded: \(failure.error.message)")
            }
            for unwritten in delivery.neverWritten {
                Diagnostics.warn(
                    "\(unwritten.file.displayPath) was closed without ever being written: its session (\(unwritten.events.count) events) is not recorded"
                )
            }
            return delivery.failures
        } catch let error as CLSError {
            // The store failed as a whole: the recorder put the events back in the spool.
            let count = events.count == 1 ? "the event waits" : "the \(events.count) events wait"
            Diagnostics.warn("\(error.message) (\(count) in \(spool.url.path) until the store can be written)")
            return events.map { ($0, error) }
        }
    }

    /// Reports a spool that could not keep the events the store did not take, and gives the
    /// hook's exit code.
    static func stop(after error: RecorderError) -> ExitCode {
        Diagnostics.warn(error.message)
        return ExitCode(error.exitCode)
    }

    /// Answers JSON lines on standard input until it ends, a line for each in their order. The
    /// lines that arrived together (a plugin that wrote faster than they were recorded) are
    /// recorded in one transaction: each answer is still its own event's.
    static func serve(recorder: SessionRecorder, spool: EventSpool) async throws {
        let decoder = JSONDecoder()
        var input = ArrivingLines(descriptor: 0)
        while let lines = input.next() {
            var parsed: [ReadLine] = []
            for text in lines {
                // A blank line is skipped (checked on bytes: Foundation's trimming costs a twentieth of an event).
                guard text.utf8.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }) else {
                    continue
                }
                do {
                    let request = try HookRequest(line: Data(text.utf8), decoder: decoder)
                    parsed.append(.event(try HookCall(request: request).sessionEvent))
                } catch let error as RecorderError where error.code == .invalidRequest {
                    parsed.append(.refused(error.message))
                } catch let error as ValidationError {
                    parsed.append(.refused(error.message))
                }
            }
            let events = parsed.compactMap { line -> SessionEvent? in
                if case .event(let event) = line { return event }
                return nil
            }
            let failures: [(event: SessionEvent, error: CLSError)]
            do {
                failures = events.isEmpty ? [] : try await deliver(events, recorder: recorder, spool: spool)
            } catch let error as RecorderError {
                // Neither recorded nor kept: every line read is answered so, then the hook stops.
                for line in parsed {
                    switch line {
                    case .event: print(Self.answer(error: "not recorded: \(error.message)"))
                    case .refused(let reason): print(Self.answer(error: reason))
                    }
                }
                fflush(nil)
                throw stop(after: error)
            }
            for line in parsed {
                switch line {
                case .event(let event):
                    print(failures.first { $0.event == event }.map { Self.answer(error: $0.error.message) } ?? #"{"ok":true}"#)
                case .refused(let reason):
                    print(Self.answer(error: reason))
                }
            }
            fflush(nil)
            // After the answers: the plugin never waits for them.
            BackgroundSync.startIfWaiting(store: recorder.store)
        }
    }

    /// A line of `--stdio` as read: its event, or why it was refused before anything was recorded.
    private enum ReadLine {
        case event(SessionEvent)
        case refused(String)
    }

    private static func answer(error: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: ["ok": false, "error": error])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
