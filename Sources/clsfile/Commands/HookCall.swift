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

    /// The options ``init(arguments:)`` reads; each takes a value.
    private static let options: Set<String> = ["--store", "--idle-timeout", "--line", "--view", "--total-lines", "--editor"]

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
        guard arguments.first == "hook" else { return nil }
        var positionals: [String] = []
        var values: [String: String] = [:]
        var index = arguments.startIndex + 1
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                positionals.append(argument)
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard Self.options.contains(name), values[name] == nil else { return nil }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard index < arguments.endIndex, !arguments[index].hasPrefix("-") else { return nil }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty else { return nil }
            values[name] = value
        }
        guard positionals.count == 2, let event = SessionEvent.Kind(rawValue: positionals[0]) else { return nil }
        guard let line = Self.convert(values["--line"], Int.init),
              let totalLines = Self.convert(values["--total-lines"], Int.init),
              let idleTimeout = Self.convert(values["--idle-timeout"], Double.init) else { return nil }
        do {
            self.init(event: event, file: positionals[1], line: line,
                      visibleLines: try HookLine.visibleLines(values["--view"], totalLines: totalLines),
                      totalLines: totalLines, editor: values["--editor"], store: values["--store"],
                      idleTimeout: try SessionOptions.resolvedIdleTimeout(idleTimeout))
        } catch {
            return nil
        }
    }

    /// An absent value as `.some(nil)`, a value as `.some(converted)`, and nil when it does not convert.
    private static func convert<Value>(_ text: String?, _ conversion: (String) -> Value?) -> Value?? {
        guard let text else { return .some(nil) }
        return conversion(text).map { .some($0) }
    }
}
