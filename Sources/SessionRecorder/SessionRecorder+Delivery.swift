import Foundation
import OpenClassKit

#if canImport(Glibc)
internal import Glibc
#endif

extension SessionRecorder {
    /// How a delivered event fared.
    public struct Delivery: Sendable {
        /// True when the store was busy and the events wait in the spool.
        public var isSpooled = false
        /// What was measured, when the events reached the store.
        public var measurement = Measurement()
        /// Events that could not be recorded at all (their file is gone, say), with the reason.
        public var failures: [(event: SessionEvent, error: CLSError)] = []
        /// Spool lines that were not events; they are reported, not replayed.
        public var rejectedLines: [String] = []
        /// Events of files that do not exist yet, kept in the spool until the file first appears.
        public var waitingForFile: [SessionEvent] = []
        /// Files closed before they were ever written, with the events that waited for them: the
        /// session had no file to belong to, so nothing is recorded.
        public var neverWritten: [(file: URL, events: [SessionEvent])] = []
    }

    /// Records an event, first replaying the events that wait in the spool; when the store is busy,
    /// everything goes (back) to the spool instead, so no event is lost and no editor waits.
    /// - Throws: ``RecorderError`` when the spool cannot be used; `CLSError` for store failures
    ///   other than busy.
    public func deliver(_ event: SessionEvent, spool: EventSpool) async throws -> Delivery {
        try await deliver([event], spool: spool)
    }

    /// Records events in one transaction (those that came together on `clsfile hook --stdio`),
    /// first replaying the events that wait in the spool, as the delivery of one event does.
    /// An event that cannot be recorded is among the delivery's failures; the others are recorded.
    public func deliver(_ events: [SessionEvent], spool: EventSpool) async throws -> Delivery {
        let waiting = try spool.drain()
        var delivery = Delivery(rejectedLines: waiting.rejected)
        let events = try holdEventsOfUnwrittenFiles(waiting.events + events, spool: spool, delivery: &delivery)
        guard !events.isEmpty else { return delivery }
        do {
            var refused: [(event: SessionEvent, error: CLSError)] = []
            delivery.measurement = try await record(events, refused: &refused, recordingTheOthers: true)
            delivery.failures = refused
            return delivery
        } catch {
            // The events were applied in memory before the save failed. Whether they wait in the
            // spool or are refused, nothing of them may stay pending: the replay from the spool,
            // or the next save of a long-lived process (`hook --stdio`), would write them again
            // (a close's typed characters counted twice).
            store.discardUnsavedChanges()
            switch error {
            case let error as CLSError where error.isBusy:
                try spool.append(events)
                delivery.isSpooled = true
                return delivery
            case let error as CLSError where error.code != .databaseInaccessible:
                // The save refused a value (events whose file cannot be recorded were refused
                // before any was applied): no event is recorded.
                delivery.failures = events.map { ($0, error) }
                return delivery
            default:
                try keep(events, in: spool, after: error)
            }
        }
    }

    /// Puts events back in the spool when the store itself failed (it cannot be opened or written),
    /// so they are recorded once it works again, and throws the failure.
    private func keep(_ events: [SessionEvent], in spool: EventSpool, after error: any Error) throws -> Never {
        try spool.append(events)
        throw error
    }

    /// Puts the events of files that do not exist yet, in folders that do, back in the spool: an
    /// editor opens a new file before its first save, and the time before that save belongs to the
    /// file once it appears. A close of such a file ends the wait: it was never written; so does a
    /// day without it (an editor that died before its close). A close with no events waiting is of a
    /// file that went away while open, and is recorded.
    /// - Returns: The events to record now.
    private func holdEventsOfUnwrittenFiles(
        _ events: [SessionEvent], spool: EventSpool,
        delivery: inout Delivery
    ) throws -> [SessionEvent] {
        var ready: [SessionEvent] = [], held: [SessionEvent] = []
        for event in events {
            guard Self.isUnwritten(event.file) else {
                ready.append(event)
                continue
            }
            // By bytes: Foundation gives no path for a name that is not UTF-8.
            let path = event.file.fileSystemPathBytes
            if event.kind == .close, !held.contains(where: { $0.file.fileSystemPathBytes == path }) {
                // A file deleted or renamed while open: the close ends the session that runs on it.
                ready.append(event)
            } else if event.kind == .close || event.date < Date(timeIntervalSinceNow: -Self.longestWaitForFile) {
                delivery.neverWritten.append((event.file, held.filter { $0.file.fileSystemPathBytes == path } + [event]))
                held.removeAll { $0.file.fileSystemPathBytes == path }
            } else {
                var waiting = event
                waiting.fileWasMissing = true
                held.append(waiting)
            }
        }
        try spool.append(held)
        delivery.waitingForFile = held
        return ready
    }

    /// How long events wait in the spool for their file to appear.
    static let longestWaitForFile: TimeInterval = 24 * 3600

    /// Whether nothing is at the file's path yet, though its folder exists.
    private static func isUnwritten(_ file: URL) -> Bool {
        var info = stat()
        guard FileSystemPath.withCString(file, { lstat($0, &info) }) != 0, errno == ENOENT else { return false }
        return FileSystemPath.withCString(file.deletingLastPathComponent(), { stat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
