import Foundation

/// One span of time an activity ran, from `start()` to `stop()`.
public struct TimeSpan: Sendable, Equatable {
    /// When the span began.
    public var start: Date
    /// When the span ended; nil while it runs.
    public var end: Date?
    /// The last sign of work during the span. A span whose process dies ends here.
    public var lastPulse: Date

    /// Whether the span is still running.
    public var isRunning: Bool { end == nil }
}
