internal import GRDB

/// An activity's active time up to a moment, as the history's rows hold it: the length of the
/// union of its spans that start before the moment, each cut there (a running span reaching its
/// last pulse).
///
/// A file worked on for a year has thousands of spans; a save that ends a session measures only
/// those since the last measure. The store keeps, for each activity measured, its *settled*
/// spans (those starting before a moment, `frontier`, by which every one of them had ended)
/// as all a later measure needs of them: the length of their union and the latest end among
/// them. Spans are taken in order of start, so the union of the later ones adds only what
/// reaches past that end. A span written, changed or removed before the frontier (another
/// device's, or under a clock set back) deletes that row through the triggers of the store's
/// `settled_time` table, and the next measure reads every span again.
struct SettledTime {
    /// The union of spans taken in order of their start.
    struct Union {
        /// The length of the union.
        var measured: Double = 0
        /// The latest end among the spans; nothing reaches past it.
        var reach: Double = -.infinity

        /// Adds a span that starts no earlier than any span added before it.
        mutating func add(start: Double, end: Double) {
            let end = max(start, end)
            let from = max(start, reach)
            if end > from { measured += end - from }
            reach = max(reach, end)
        }

        /// The union with everything after `moment` left out; its spans all start before it.
        func cut(at moment: Double) -> Union {
            Union(measured: measured - max(0, reach - moment), reach: min(reach, moment))
        }
    }

    private let activityID: Int64
    /// Every span starting before it had ended when it was set; `-infinity` when nothing is settled.
    private var frontier: Double
    /// The union of the spans starting before ``frontier``.
    private var settled: Union
    /// The spans starting at or after ``frontier``, in order of start.
    private var spans: [SpanRecord]

    /// Reads what the store keeps of the activity's settled spans, and the spans after them.
    init(ofActivity activityID: Int64, in db: Database) throws {
        self.activityID = activityID
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT frontier, measured, reach FROM settled_time WHERE activity_id = ?"),
            arguments: [activityID])
        frontier = row?[0] ?? -.infinity
        settled = Union(measured: row?[1] ?? 0, reach: row?[2] ?? -.infinity)
        spans = try Self.spans(ofActivity: activityID, from: frontier, in: db)
    }

    /// The activity's time up to `moment`: spans that start later, and the parts of spans after
    /// it, left out.
    mutating func time(until moment: Double, in db: Database) throws -> Double {
        if moment < frontier {
            // A moment among the settled spans needs them one by one: every span is read again.
            (frontier, settled) = (-.infinity, Union())
            spans = try Self.spans(ofActivity: activityID, from: frontier, in: db)
        }
        var union = settled.cut(at: moment)
        for span in spans {
            guard span.start < moment else { break }
            union.add(start: span.start, end: min(span.end ?? span.lastPulse, moment))
        }
        return union.measured
    }

    /// Keeps the union of the spans that start before both `now` and the first running span
    /// (all of them ended), for the next measure to begin from.
    func settle(at now: Double, in db: Database) throws {
        let newFrontier = min(now, spans.first { $0.end == nil }?.start ?? now)
        guard newFrontier > frontier else { return }
        var union = settled
        for span in spans {
            guard span.start < newFrontier else { break }
            union.add(start: span.start, end: span.end ?? span.lastPulse)
        }
        // Nothing settled yet: no row, and the next measure reads the few spans there are.
        guard union.reach > -.infinity else { return }
        try db.cachedStatement(
            sql: """
                INSERT INTO settled_time (activity_id, frontier, measured, reach) VALUES (?, ?, ?, ?)
                ON CONFLICT(activity_id) DO UPDATE SET
                    frontier = excluded.frontier, measured = excluded.measured, reach = excluded.reach
                """
        ).execute(arguments: [activityID, newFrontier, union.measured, union.reach])
    }

    /// The activity's spans starting at or after `frontier`, in order of start.
    private static func spans(ofActivity activityID: Int64, from frontier: Double, in db: Database) throws -> [SpanRecord] {
        try Array(
            Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT started_at, ended_at, last_pulse_at FROM time_span
                        WHERE activity_id = ? AND started_at >= ? ORDER BY started_at
                        """), arguments: [activityID, frontier]
            ).map { row in
                SpanRecord(id: "", start: row[0], end: row[1], lastPulse: row[2], owner: nil)
            })
    }
}
