import Foundation
import SessionRecorder

/// One `clsfile hook EVENT FILE` call: what ``HookCommand`` records, and what the entry point
/// reads by itself (see ``PlainArguments``) from the plainest form of the call.
struct HookCall: Sendable {
    var event: SessionEvent.Kind
    var file: String
    var line: Int?
    var visibleLines: ClosedRange<Int>?
    var totalLines: Int?
    var editor: String?
    var store: String?
    var idleTimeout: TimeInterval

    init(event: SessionEvent.Kind, file: String, line: Int?, visibleLines: ClosedRange<Int>?, totalLines: Int?,
         editor: String?, store: String?, idleTimeout: TimeInterval) {
        self.event = event
        self.file = file
        self.line = line
        self.visibleLines = visibleLines
        self.totalLines = totalLines
        self.editor = editor
        self.store = store
        self.idleTimeout = idleTimeout
    }

    /// Reads `hook EVENT FILE [options]` (the arguments after the program name); nil for anything
    /// that ArgumentParser should parse and report.
    init?(arguments: [String]) {
        guard let call = PlainArguments(arguments, command: "hook", valued: [
            "--store", "--idle-timeout", "--line", "--view", "--total-lines", "--editor",
        ]), call.positionals.count == 2, let event = SessionEvent.Kind(rawValue: call.positionals[0]) else { return nil }
        var lineNumber: Int?, lineCount: Int?, seconds: Double?
        if let line = call.value(of: "--line") {
            guard let number = Int(line) else { return nil }
            lineNumber = number
        }
        if let totalLines = call.value(of: "--total-lines") {
            guard let count = Int(totalLines) else { return nil }
            lineCount = count
        }
        if let idleTimeout = call.value(of: "--idle-timeout") {
            guard let value = Double(idleTimeout) else { return nil }
            seconds = value
        }
        do {
            self.init(event: event, file: call.positionals[1], line: lineNumber,
                      visibleLines: try HookLine.visibleLines(call.value(of: "--view"), totalLines: lineCount),
                      totalLines: lineCount, editor: call.value(of: "--editor"), store: call.value(of: "--store"),
                      idleTimeout: try SessionOptions.resolvedIdleTimeout(seconds))
        } catch {
            return nil
        }
    }
}
