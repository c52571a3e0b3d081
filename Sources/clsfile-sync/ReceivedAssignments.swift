import ClassSync
import CommandSupport
import Foundation
import OpenClassKit
import ProgramBasics

extension SyncClient.Received {
    /// Tells what was received: a line per assignment accepted, a warning per one not taken.
    func report() {
        for (assignment, contexts) in accepted {
            let due = assignment.dueDate.map { ", due \($0.formatted(.iso8601.year().month().day()))" } ?? ""
            let path = (assignment.contextPath ?? []).joined(separator: "/")
            let work =
                contexts == 0
                ? "no work recorded under it yet"
                : "the work of \(contexts) context\(contexts == 1 ? "" : "s") recorded under it goes along"
            print(
                "received '\(TerminalText.escaped(assignment.title))' (class \(TerminalText.escaped(assignment.className ?? "")), context \(TerminalText.escaped(path))\(due)): \(work)"
            )
        }
        for problem in problems { Diagnostics.warn(TerminalText.escaped(problem)) }
    }
}
