import Foundation
import GRDB
@testable import OpenClassKit
import StoreTestSupport
import TestSupport
import Testing

/// The time a history row holds, measured from the spans since the last measure, must be the
/// time measured from every span of the activity, whatever was written in between.
struct SettledTimeTests {
    /// The activity's time up to `moment` from all its spans, as ``CLSActivity`` measures them.
    private static func measuredFromEverySpan(of activityID: Int64, until moment: Double, in db: Database) throws -> Double {
        let spans = try Row.fetchAll(
            db, sql: "SELECT started_at, ended_at, last_pulse_at FROM time_span WHERE activity_id = ?", arguments: [activityID]
        ).map { row in SpanRecord(id: "", start: row[0], end: row[1], lastPulse: row[2], owner: nil) }
        return SpanRecord.measure(
            of: spans.filter { $0.start < moment }.map { span in
                var cut = span
                cut.end = min(span.end ?? span.lastPulse, moment)
                return cut
            })
    }

    /// A store with one activity, and its id.
    private static func storeWithAnActivity(_ scratch: Scratch) async throws -> (DatabaseQueue, Int64) {
        let file = try scratch.file("essay.txt", "words\n")
        let store = scratch.store()
        _ = try await store.fetchActivity(for: file)
        try await store.save()
        let database = try DatabaseQueue(path: scratch.storeURL.path)
        let activityID = try await database.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM activity") }
        return (database, try #require(activityID))
    }

    @Test func aMeasureFromTheSettledSpansEqualsOneFromEverySpanWhateverIsWrittenBetween() async throws {
        let scratch = try Scratch()
        let (database, activityID) = try await Self.storeWithAnActivity(scratch)
        let seed = SplitMix.testSeed()
        let (measuresFromARow, invalidations) = try await database.write { db in
            var random = SplitMix(seed: seed)
            var clock = 1_800_000_000.0
            var (measuresFromARow, invalidations) = (0, 0)
            func frontier() throws -> Double? {
                try Double.fetchOne(db, sql: "SELECT frontier FROM settled_time WHERE activity_id = ?", arguments: [activityID])
            }
            for round in 0..<400 {
                let replay: Comment = "round \(round); replay with CLSFILE_TEST_SEED=\(seed)"
                let settledBefore = try frontier()
                var changesASettledSpan = false
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:
                    // A span of work, now and then overlapping the one before.
                    clock += Double.random(in: -200...400, using: &random)
                    let end = clock + Double.random(in: 0...600, using: &random)
                    try db.execute(
                        sql: "INSERT INTO time_span (id, activity_id, started_at, ended_at, last_pulse_at) VALUES (?, ?, ?, ?, ?)",
                        arguments: ["w\(round)", activityID, clock, end, end])
                    changesASettledSpan = clock < settledBefore ?? -.infinity
                case 4:
                    // A span running, pulsed, later ended.
                    clock += Double.random(in: 0...100, using: &random)
                    try db.execute(
                        sql: "INSERT INTO time_span (id, activity_id, started_at, last_pulse_at) VALUES (?, ?, ?, ?)",
                        arguments: ["r\(round)", activityID, clock, clock + 30])
                    changesASettledSpan = clock < settledBefore ?? -.infinity
                case 5:
                    try db.execute(
                        sql: "UPDATE time_span SET last_pulse_at = last_pulse_at + 45 WHERE activity_id = ? AND ended_at IS NULL",
                        arguments: [activityID])
                case 6:
                    try db.execute(
                        sql: "UPDATE time_span SET ended_at = last_pulse_at WHERE activity_id = ? AND ended_at IS NULL",
                        arguments: [activityID])
                case 7:
                    // Another device's span from long before, or one a clock set back wrote.
                    let start = clock - Double.random(in: 0...40_000, using: &random)
                    try db.execute(
                        sql: "INSERT INTO time_span (id, activity_id, started_at, ended_at, last_pulse_at) VALUES (?, ?, ?, ?, ?)",
                        arguments: ["o\(round)", activityID, start, start + 900, start + 900])
                    changesASettledSpan = start < settledBefore ?? -.infinity
                case 8:
                    // An ended span ended later (a merge), or the same values written again.
                    let span = try Row.fetchOne(
                        db,
                        sql:
                            "SELECT id, started_at FROM time_span WHERE activity_id = ? AND ended_at IS NOT NULL ORDER BY random() LIMIT 1",
                        arguments: [activityID])
                    if let span {
                        let later = Bool.random(using: &random)
                        try db.execute(
                            sql: "UPDATE time_span SET ended_at = ended_at + ?, last_pulse_at = last_pulse_at WHERE id = ?",
                            arguments: [later ? 120 : 0, span[0] as String])
                        changesASettledSpan = later && (span[1] as Double) < settledBefore ?? -.infinity
                    }
                default:
                    let span = try Row.fetchOne(
                        db, sql: "SELECT id, started_at FROM time_span WHERE activity_id = ? ORDER BY random() LIMIT 1",
                        arguments: [activityID])
                    if let span {
                        try db.execute(sql: "DELETE FROM time_span WHERE id = ?", arguments: [span[0] as String])
                        changesASettledSpan = (span[1] as Double) < settledBefore ?? -.infinity
                    }
                }
                let settledAfter = try frontier()
                if changesASettledSpan {
                    invalidations += 1
                    #expect(settledAfter == nil, "a change before the frontier keeps the settled time; \(replay)")
                } else {
                    #expect(settledAfter == settledBefore, "a change after the frontier dropped the settled time; \(replay)")
                }
                if settledAfter != nil { measuresFromARow += 1 }

                // Measures at moments after the frontier, and now and then before it.
                var measure = try SettledTime(ofActivity: activityID, in: db)
                let moments = (0..<3).map { _ in clock + Double.random(in: -3_000...900, using: &random) }
                for moment in moments.sorted() {
                    let expected = try Self.measuredFromEverySpan(of: activityID, until: moment, in: db)
                    let measured = try measure.time(until: moment, in: db)
                    #expect(abs(measured - expected) < 1e-6, "until \(moment): \(measured) s, from every span \(expected) s; \(replay)")
                }
                try measure.settle(at: clock + Double.random(in: 0...300, using: &random), in: db)
            }
            return (measuresFromARow, invalidations)
        }
        #expect(measuresFromARow > 100, "the measures began from settled spans \(measuresFromARow) times of 400")
        #expect(invalidations > 10, "\(invalidations) changes before the frontier")
    }

    @Test func rowsOfALongHistoryHoldTheTimeOfEverySpanAndTheSettledPartIsKept() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "a file worked on for a year\n")
        let store = scratch.store()
        let first = try await store.fetchActivity(for: file)
        first.start()
        first.stop()
        try await store.save()
        let database = try DatabaseQueue(path: scratch.storeURL.path)
        let id = try await database.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM activity") }
        let activityID = try #require(id)
        // A year of sessions, an hour apart, written as another program would.
        let now = Date().timeIntervalSince1970
        try await database.write { db in
            for index in 1...2_000 {
                let start = now - Double(index) * 3_600
                try db.execute(
                    sql: "INSERT INTO time_span (id, activity_id, started_at, ended_at, last_pulse_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: ["old-\(index)", activityID, start, start + 900, start + 900])
            }
        }
        // The rows of the first session were written before those spans.
        var lastRow = try await database.read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM writing_history") ?? 0 }
        for round in 0..<4 {
            let activity = try await store.fetchActivity(for: file)
            activity.start()
            try await Task.sleep(for: .milliseconds(20))
            activity.stop()
            try await store.save()
            lastRow = try await database.read { [lastRow] db in
                var lastRow = lastRow
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, CASE WHEN is_start THEN session_start ELSE coalesce(session_end, recorded_at) END, active_seconds
                        FROM writing_history WHERE activity_id = ? AND id > ? ORDER BY id
                        """, arguments: [activityID, lastRow])
                #expect(!rows.isEmpty, "round \(round): the session's end wrote no row")
                for row in rows {
                    let expected = try Self.measuredFromEverySpan(of: activityID, until: row[1], in: db)
                    #expect(abs(row[2] as Double - expected) < 1e-6, "round \(round): \(row[2] as Double) s, from every span \(expected) s")
                    lastRow = row[0]
                }
                // After the first save, the 2,000 spans before are kept as their union.
                let settled = try Row.fetchOne(
                    db, sql: "SELECT frontier, measured FROM settled_time WHERE activity_id = ?", arguments: [activityID])
                let frontier = try #require(settled?[0] as Double?, "round \(round): nothing settled")
                #expect(frontier >= now, "round \(round): the frontier \(frontier) is before the sessions of this run")
                #expect((settled?[1] as Double? ?? 0) >= 2_000 * 900)
                return lastRow
            }
        }
    }
}
