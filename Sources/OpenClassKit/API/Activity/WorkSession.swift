import Foundation

/// One session of work on a file as a person sees it: one run of an editor, from its open to its
/// close, with the pauses longer than the idle timeout left out of its time. Not part of ClassKit.
///
/// ```swift
/// for session in activity.workSessions {
///     print(session.start, session.activeTime)
/// }
/// ```
public struct WorkSession: Sendable, Equatable {
    /// When the session began.
    public var start: Date
    /// When it ended; nil while it runs.
    public var end: Date?
    /// Its last sign of work.
    public var lastPulse: Date
    /// The time it counts as work: its spans, without the pauses between them; a running span
    /// up to its last pulse.
    public var activeTime: TimeInterval
    /// How many time spans it has: one more than the pauses past the idle timeout.
    public var spanCount: Int

    /// Whether it still runs.
    public var isRunning: Bool { end == nil }
}
