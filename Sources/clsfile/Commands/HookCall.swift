import Foundation
import OpenClassKit
import PlainCalls
import SessionRecorder

/// One hook request, read in three ways that must agree: by the entry point itself from the
/// plainest form of `clsfile hook EVENT FILE` (see ``PlainArguments``), by ArgumentParser
/// (``HookCommand``), and from a JSON line of `hook --stdio` (``HookRequest``).
///
/// The request is the ``SessionEvent`` it records, with the store and idle timeout to record it
/// with; the event's fields read through the call (`call.targetWords`).
@dynamicMemberLookup
struct HookCall: Sendable, Equatable {
    /// The event as read; ``sessionEvent`` dates it when it is recorded.
    var event: SessionEvent
    var store: String?
    var idleTimeout: TimeInterval

    init(event: SessionEvent, store: String?, idleTimeout: TimeInterval) {
        self.event = event
        self.store = store
        self.idleTimeout = idleTimeout
    }

    /// Reads a JSON line's request; the store and idle timeout are those of `hook --stdio`.
    /// - Throws: `ValidationError` for a value the command line would refuse too.
    init(request: HookRequest, store: String? = nil, idleTimeout: TimeInterval = 0) throws {
        let event = try HookLine.validated { () throws(RecorderError) in
            try request.sessionEvent(file: FileArgument.url(for: request.file))
        }
        self.init(event: event, store: store, idleTimeout: idleTimeout)
    }

    subscript<Value>(dynamicMember field: KeyPath<SessionEvent, Value>) -> Value {
        event[keyPath: field]
    }

    /// The event this call records, dated now, from the editor run that started this process.
    var sessionEvent: SessionEvent {
        var sessionEvent = event
        sessionEvent.date = Date()
        sessionEvent.editorRun = Self.editorRun
        return sessionEvent
    }

    /// Two readings of one request are equal whenever each was read.
    static func == (left: HookCall, right: HookCall) -> Bool {
        var event = right.event
        event.date = left.event.date
        return left.event == event && left.store == right.store && left.idleTimeout == right.idleTimeout
    }

    /// The editor that started this process: a hook's parent, or the plugin that keeps `--stdio` running.
    private static let editorRun = CLSDataStore.parentEditorRun

    /// Reads `hook EVENT FILE [options]` (the arguments after the program name); nil for anything
    /// that ArgumentParser should parse and report.
    /// - Parameter rawArguments: The arguments as bytes, where the file's name is looked up (names
    ///   need not be UTF-8); the default is this process's.
    init?(arguments: [String], rawArguments: [[UInt8]]? = nil) {
        guard let call = PlainArguments.hook(arguments), let event = SessionEvent.Kind(rawValue: call.positionals[0]) else {
            return nil
        }
        // A value that does not convert is left to ArgumentParser, which reports it.
        func number<T: LosslessStringConvertible>(_ option: String, as type: T.Type) -> T?? {
            guard let text = call.value(of: option) else { return .some(nil) }
            return T(text).map { .some($0) }
        }
        guard let lineNumber = number("--line", as: Int.self), let lineCount = number("--total-lines", as: Int.self),
            let seconds = number("--idle-timeout", as: Double.self), let inputAt = number("--input-at", as: Double.self),
            let openedAt = number("--opened-at", as: Double.self),
            let targetWords = number("--target-words", as: Int.self),
            let typed = number("--typed", as: Int.self), let pasted = number("--pasted", as: Int.self),
            let moved = number("--moved", as: Int.self), let largestPaste = number("--largest-paste", as: Int.self)
        else { return nil }
        do {
            let isReading = call.has("--reading")
            let sessionEvent = SessionEvent(
                kind: event,
                file: rawArguments.map { FileArgument.url(for: call.positionals[1], among: $0) }
                    ?? FileArgument.url(for: call.positionals[1]),
                line: lineNumber,
                visibleLines: try HookLine.visibleLines(call.value(of: "--view"), totalLines: lineCount),
                totalLines: lineCount, editor: call.value(of: "--editor"),
                inputAt: try HookLine.date(inputAt, option: "--input-at"),
                openedAt: try HookLine.date(openedAt, option: "--opened-at"),
                targetWords: try ProgressOptions.targetWords(targetWords, reading: isReading), isReading: isReading ? true : nil,
                input: try HookLine.input(typed: typed, pasted: pasted, moved: moved, largestPaste: largestPaste, event: event))
            self.init(event: sessionEvent, store: call.value(of: "--store"), idleTimeout: try SessionOptions.resolvedIdleTimeout(seconds))
        } catch {
            return nil
        }
    }
}
