import Foundation
import OpenClassKit
@testable import SessionRecorder
import Testing
import StoreTestSupport
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The parts of desktop timing that need no X display: the editor's process tree, the rule that
/// turns the desktop's idle time and focus into pulses, and what is recorded and said when there is
/// no desktop.
struct DesktopActivityTests {
    /// A desktop that answers what a test tells it to.
    final class ScriptedDesktop: DesktopActivity.Probe {
        var idle: TimeInterval? = 0
        var focused: pid_t?
        var questions = 0
        var closed = false

        func idleTime() -> TimeInterval? {
            questions += 1
            return idle
        }

        func focusedProcess() -> pid_t? { focused }
        func close() { closed = true }
    }

    /// A shell with a child and a grandchild, all sleeping; the grandchild's command name holds
    /// spaces and parentheses, as `/proc/PID/stat` shows it.
    private func processFamily(in scratch: Scratch) throws -> (shell: SpawnedProcess, all: Set<pid_t>) {
        let oddName = scratch.url.appendingPathComponent("a) b (c")
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: oddName.path)
        let shell = try SpawnedProcess("/bin/sh", ["-c", "(\"$0\" 30; true) & sleep 30; wait", oddName.path], in: nil)
        // The shell, its subshell, and the two sleeps, once they have all started.
        let deadline = Date().addingTimeInterval(10)
        var found: Set<pid_t> = []
        while found.count < 4, Date() < deadline {
            usleep(20_000)
            found = ProcessTree().descendants(of: shell.pid)
        }
        return (shell, found)
    }

    @Test func theTreeHoldsTheEditorsChildrenAndGrandchildren() throws {
        let scratch = try Scratch()
        let (shell, family) = try processFamily(in: scratch)
        defer { shell.signal(SIGKILL) }
        #expect(family.count == 4, "sh, its subshell and two sleeps: \(family)")
        #expect(family.contains(shell.pid))
        #expect(!family.contains(getpid()), "the tree goes down from the editor, never up")
        #expect(ProcessTree().parent(of: shell.pid) == getpid())
        for pid in family where pid != shell.pid {
            let parent = try #require(ProcessTree().parent(of: pid), "the parent of \(pid), whose name has ') ('")
            #expect(family.contains(parent))
        }
    }

    @Test func inputToAnEditorWindowIsAPulseAtTheInput() throws {
        let scratch = try Scratch()
        let (shell, family) = try processFamily(in: scratch)
        defer { shell.signal(SIGKILL) }
        let grandchild = try #require(family.first { ProcessTree().parent(of: $0) != shell.pid && $0 != shell.pid })
        let desktop = ScriptedDesktop()
        let start = Date()
        let activity = DesktopActivity(probe: desktop, editor: shell.pid, started: start)

        // A keystroke 0.3 s ago, in a window of the editor's grandchild (as soffice.bin's, below soffice).
        desktop.focused = grandchild
        desktop.idle = 0.3
        let first = try #require(activity.poll(now: start.addingTimeInterval(1)))
        #expect(abs(first.timeIntervalSince(start) - 0.7) < 0.001)
        #expect(activity.sawEditorWindow)

        // Asked again within the second: the desktop is not asked.
        let questions = desktop.questions
        #expect(activity.poll(now: start.addingTimeInterval(1.5)) == nil)
        #expect(desktop.questions == questions)

        // No input since: the idle time grew by the interval.
        desktop.idle = 1.3
        #expect(activity.poll(now: start.addingTimeInterval(2)) == nil)

        // Input again, a moment ago.
        desktop.idle = 0.05
        let second = try #require(activity.poll(now: start.addingTimeInterval(3)))
        #expect(abs(second.timeIntervalSince(start) - 2.95) < 0.001)
        activity.stop()
        #expect(desktop.closed)
    }

    @Test func inputToOtherProgramsCountsNothing() throws {
        let scratch = try Scratch()
        let (shell, _) = try processFamily(in: scratch)
        defer { shell.signal(SIGKILL) }
        let desktop = ScriptedDesktop()
        let start = Date()
        let activity = DesktopActivity(probe: desktop, editor: shell.pid, started: start)
        // This test process is the editor's parent, as a terminal would be: not the editor's.
        desktop.focused = getpid()
        desktop.idle = 0.1
        #expect(activity.poll(now: start.addingTimeInterval(1)) == nil)
        // No window has the focus, or its owner is unknown (no _NET_WM_PID).
        desktop.focused = nil
        #expect(activity.poll(now: start.addingTimeInterval(2)) == nil)
        // The desktop's connection is gone.
        desktop.focused = shell.pid
        desktop.idle = nil
        #expect(activity.poll(now: start.addingTimeInterval(3)) == nil)
        #expect(!activity.sawEditorWindow, "the time then comes from file changes only")
    }

    @Test func withoutADisplayThereIsNoDesktop() {
        #expect(DesktopActivity.start(editor: getpid(), environment: [:]) == nil)
        #expect(DesktopActivity.start(editor: getpid(), environment: ["DISPLAY": ""]) == nil)
        // A display that does not exist: libX11 cannot open it (or is not installed).
        #expect(DesktopActivity.start(editor: getpid(), environment: ["DISPLAY": ":65000"]) == nil)
    }

    @Test(arguments: TimingSource.allCases)
    func aTimingSourceRoundTripsThroughItsCode(_ source: TimingSource) {
        #expect(TimingSource(code: source.code) == source)
        #expect((source.statement != nil) == (source == .fileChanges), "only file changes alone need a remark")
    }

    @Test func aSessionTimedByFileChangesOnlyIsRecordedAndSaysSo() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "one two three")
        let recorder = SessionRecorder(store: scratch.store())
        let opened = Date()
        try await recorder.record(SessionEvent(kind: .open, file: file, date: opened))
        try await recorder.record(
            SessionEvent(
                kind: .close, file: file, date: opened.addingTimeInterval(2),
                openedAt: opened, timing: .fileChanges))
        let activity = try await scratch.store().fetchActivity(for: file)
        let item = try #require(activity.additionalActivityItems.first { $0.identifier == ItemIdentifier.timingSource } as? CLSQuantityItem)
        #expect(TimingSource(code: item.quantity) == .fileChanges)
        let statement = try #require(TimingSource.fileChanges.statement)
        #expect(statement.hasPrefix("time from file changes only"))
        #expect(TimingSource(code: 0) == nil)
    }
}
