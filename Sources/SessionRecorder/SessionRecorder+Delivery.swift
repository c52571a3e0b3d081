import Foundation
import OpenClassKit

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
    }

    /// Records an event, first replaying the events that wait in the spool; when the store is busy,
    /// everything goes (back) to the spool instead, so no event is lost and no editor waits.
    /// - Throws: ``RecorderError`` when the spool cannot be used; `CLSError` for store failures
    ///   other than busy.
    public func deliver(_ event: SessionEvent, spool: EventSpool) async throws -> Delivery {
        let waiting = try spool.drain()
        var delivery = Delivery(rejectedLines: waiting.rejected)
        let events = waiting.events + [event]
        do {
            delivery.measurement = try await record(events)
            return delivery
        } catch let error as CLSError where error.isBusy {
            try spool.append(events)
            delivery.isSpooled = true
            return delivery
        } catch let error as CLSError where error.code == .invalidArgument {
            // One event names a file that is gone: record the others one by one.
            for (index, single) in events.enumerated() {
                do {
                    let measurement = try await record(single)
                    if measurement.report != nil { delivery.measurement.report = measurement.report }
                    delivery.measurement.problems += measurement.problems
                } catch let error as CLSError where error.isBusy {
                    try spool.append(Array(events[index...]))
                    delivery.isSpooled = true
                    return delivery
                } catch let error as CLSError {
                    delivery.failures.append((single, error))
                }
            }
            return delivery
        }
    }
}
