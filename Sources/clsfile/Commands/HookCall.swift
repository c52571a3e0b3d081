import Foundation
import SessionRecorder

/// One `clsfile hook EVENT FILE` call: what ``HookCommand`` records, and what the entry point
/// reads by itself from the plainest form of the call.
///
/// Editors start `clsfile hook` on every event, and ArgumentParser's reflection over the command
/// tree costs more than recording the event. So ``init(arguments:)`` reads the form plugins use —
/// the event, the file, and ``HookCommand``'s options, each at most once, as `--name value` or
/// `--name=value`, in any order — with the same conversions and checks. Anything else (`--help`,
/// `--stdio`, another or a repeated option, a value that does not convert or validate) gives nil,
/// and ArgumentParser parses the call and reports what is wrong, as for every other command.
struct HookCall {
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
        // Plain code over strings: in a static binary each generic type met for the first time
        // (a Set, a Dictionary) costs a scan of every protocol conformance.
        guard arguments.first == "hook" else { return nil }
        var positionals: [String] = []
        var store: String?, idleTimeout: String?, line: String?, view: String?, totalLines: String?, editor: String?
        var index = arguments.startIndex + 1
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                positionals.append(argument)
                continue
            }
            var name = argument, value: String
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return nil }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty else { return nil }
            switch name {
            case "--store" where store == nil: store = value
            case "--idle-timeout" where idleTimeout == nil: idleTimeout = value
            case "--line" where line == nil: line = value
            case "--view" where view == nil: view = value
            case "--total-lines" where totalLines == nil: totalLines = value
            case "--editor" where editor == nil: editor = value
            default: return nil
            }
        }
        guard positionals.count == 2, let event = SessionEvent.Kind(rawValue: positionals[0]) else { return nil }
        var lineNumber: Int?, lineCount: Int?, seconds: Double?
        if let line {
            guard let number = Int(line) else { return nil }
            lineNumber = number
        }
        if let totalLines {
            guard let count = Int(totalLines) else { return nil }
            lineCount = count
        }
        if let idleTimeout {
            guard let value = Double(idleTimeout) else { return nil }
            seconds = value
        }
        do {
            self.init(event: event, file: positionals[1], line: lineNumber,
                      visibleLines: try HookLine.visibleLines(view, totalLines: lineCount),
                      totalLines: lineCount, editor: editor, store: store,
                      idleTimeout: try SessionOptions.resolvedIdleTimeout(seconds))
        } catch {
            return nil
        }
    }
}
