import Foundation

/// One span of time an activity ran, from `start()` to `stop()`.
public struct TimeSpan: Sendable, Equatable {
    /// When the span began.
    public var start: Date
    /// When the span ended; nil while it runs.
    public var end: Date?
    /// The last sign of work during the span. A span whose process dies ends here.
    public var lastPulse: Date
    /// True when the span goes on with the session of the span before it, after a pause longer
    /// than the idle timeout (which is not counted). Not part of ClassKit.
    public var continuesSession: Bool

    /// Creates a span.
    public init(start: Date, end: Date? = nil, lastPulse: Date, continuesSession: Bool = false) {
        self.start = start
        self.end = end
        self.lastPulse = lastPulse
        self.continuesSession = continuesSession
    }

    /// Whether the span is still running.
    public var isRunning: Bool { end == nil }
}
