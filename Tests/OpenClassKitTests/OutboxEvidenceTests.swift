import Foundation
@testable import OpenClassKit
import Testing

/// The history rows a store queues for a class server stay within the server's caps: past the
/// most rows none go, past the most snapshots or their bytes the rows go without snapshots.
struct OutboxEvidenceTests {
    private func rows(_ ids: ClosedRange<Int64>, deltaBytes: Int?) -> [SyncOperation.HistoryRow] {
        ids.map { id in
            let entry = WritingHistoryEntry(date: Date(), sessionStart: Date(), activeTime: Double(id))
            return SyncOperation.HistoryRow(
                id: id, entry: entry,
                snapshot: deltaBytes.map {
                    WritingSnapshotRecord(entry: entry, delta: Data(repeating: 1, count: $0), digest: Data(count: 16), isKeyframe: false)
                })
        }
    }

    @Test func rowsPastTheCapDoNotGo() {
        var tally = EvidenceTally(rows: SyncOperation.maximumHistoryRows - 2)
        let kept = tally.capped(rows(1...5, deltaBytes: nil))
        #expect(kept.map(\.id) == [1, 2])
        #expect(tally.capped(rows(6...6, deltaBytes: nil)).isEmpty)
    }

    @Test func snapshotsPastTheirCapsGoWithoutThem() {
        var bytes = EvidenceTally(bytes: SyncOperation.maximumSnapshotBytes - 10)
        let kept = bytes.capped(rows(1...3, deltaBytes: 8))
        #expect(kept.map(\.id) == [1, 2, 3])
        #expect(kept.map { $0.snapshot != nil } == [true, false, false])
        var count = EvidenceTally(snapshots: SyncOperation.maximumSnapshots - 1)
        #expect(count.capped(rows(1...2, deltaBytes: 8)).map { $0.delta != nil } == [true, false])
    }
}
