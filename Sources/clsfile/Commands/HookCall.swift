import Foundation
import OpenClassKit
import SessionRecorder

/// One hook request, read in three ways that must agree: by the entry point itself from the
/// plainest form of `clsfile hook EVENT FILE` (see ``PlainArguments``), by ArgumentParser
/// (``HookCommand``), and from a JSON line of `hook --stdio` (``HookRequest``).
struct HookCall: Sendable, Equatable {
    var event: SessionEvent.Kind
    var file: String
    var line: Int?
    var visibleLines: ClosedRange<Int>?
    var totalLines: Int?
    var editor: String?
    var inputAt: Date?
    var openedAt: Date?
    var targetWords: Int?
    var isReading: Bool
    /// With close: what the plugin counted in the session.
    var input: SessionEvent.InputFigures?
    var store: String?
    var idleTimeout: TimeInterval

    init(event: SessionEvent.Kind, file: String, line: Int?, visibleLines: ClosedRange<Int>?, totalLines: Int?,
         editor: String?, inputAt: Date?, openedAt: Date?, targetWords: Int?, isReading: Bool,
         input: SessionEvent.InputFigures?, store: String?, idleTimeout: TimeInterval) {
        self.event = event
        self.file = file
        self.line = line
        self.visibleLines = visibleLines
        self.totalLines = totalLines
        self.editor = editor
        self.inputAt = inputAt
        self.openedAt = openedAt
        self.targetWords = targetWords
        self.isReading = isReading
        self.input = input
        self.store = store
        self.idleTimeout = idleTimeout
    }

    /// Reads a JSON line's request; the store and idle timeout are those of `hook --stdio`.
    /// - Throws: `ValidationError` for a value the command line would refuse too.
    init(request: HookRequest, store: String? = nil, idleTimeout: TimeInterval = 0) throws {
        let event = try HookLine.validated { () throws(RecorderError) in try request.sessionEvent() }
        self.init(event: request.event, file: request.file, line: event.line, visibleLines: event.visibleLines,
                  totalLines: event.totalLines, editor: event.editor, inputAt: event.inputAt, openedAt: event.openedAt,
                  targetWords: event.targetWords, isReading: event.isReading == true,
                  input: event.input, store: store, idleTimeout: idleTimeout)
    }

    /// The event this call records, from the editor run that started this process.
    var sessionEvent: SessionEvent {
        var sessionEvent = SessionEvent(kind: event, file: FileArgument.url(for: file), line: line, visibleLines: visibleLines,
                                        totalLines: totalLines, editor: editor, inputAt: inputAt, openedAt: openedAt,
                                        targetWords: targetWords, isReading: isReading ? true : nil, input: input)
        sessionEvent.editorRun = Self.editorRun
        return sessionEvent
    }

    /// The editor that started this process: a hook's parent, or the plugin that keeps `--stdio` running.
    private static let editorRun = CLSDataStore.parentEditorRun

    /// Reads `hook EVENT FILE [options]` (the arguments after the program name); nil for anything
    /// that ArgumentParser should parse and report.
    init?(arguments: [String]) {
        guard let call = PlainArguments(arguments, command: "hook", valued: [
            "--store", "--idle-timeout", "--line", "--view", "--total-lines", "--editor", "--input-at", "--opened-at",
            "--target-words", "--typed", "--pasted", "--largest-paste",
        ], flags: ["--reading"]), call.positionals.count == 2,
            let event = SessionEvent.Kind(rawValue: call.positionals[0]) else { return nil }
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
              let largestPaste = number("--largest-paste", as: Int.self) else { return nil }
        do {
            self.init(event: event, file: call.positionals[1], line: lineNumber,
                      visibleLines: try HookLine.visibleLines(call.value(of: "--view"), totalLines: lineCount),
                      totalLines: lineCount, editor: call.value(of: "--editor"),
                      inputAt: try HookLine.date(inputAt, option: "--input-at"),
                      openedAt: try HookLine.date(openedAt, option: "--opened-at"),
                      targetWords: try ProgressOptions.targetWords(targetWords, reading: call.has("--reading")), isReading: call.has("--reading"),
                      input: try HookLine.input(typed: typed, pasted: pasted, largestPaste: largestPaste, event: event),
                      store: call.value(of: "--store"), idleTimeout: try SessionOptions.resolvedIdleTimeout(seconds))
        } catch {
            return nil
        }
    }
}
