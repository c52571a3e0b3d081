import Foundation
import HistoryPictures
import OpenClassKit
import Testing

/// The class page's progress line is drawn from the history's numbers.
struct HistoryChartsTests {
    @Test func theProgressLineIsDrawnThroughTheProgressOfEachRow() throws {
        let start = Date(timeIntervalSince1970: 1_764_000_000)
        let progress = [0.0, 0.25, 0.5, 1.0]
        let entries = progress.enumerated().map { index, value in
            WritingHistoryEntry(
                date: start.addingTimeInterval(Double(index) * 600), sessionStart: start.addingTimeInterval(Double(index) * 600 - 60),
                sessionEnd: start.addingTimeInterval(Double(index) * 600), activeTime: Double(index + 1) * 60,
                progress: value, sessionIdentifier: "session \(index)")
        }
        let svg = try #require(HistoryCharts(history: WritingHistory(entries: entries)).progressLine(name: "Ada"))
        let attribute = try #require(svg.firstRange(of: "points=\"").map { svg[$0.upperBound...] })
        let points = attribute.prefix { $0 != "\"" }.split(separator: " ").map { pair -> (x: Double, y: Double)? in
            let numbers = pair.split(separator: ",").compactMap { Double($0) }
            return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
        }
        let drawn = points.compactMap { $0 }
        #expect(
            points.count == progress.count && drawn.count == progress.count,
            "a point per row, each x,y numbers: \(attribute.prefix(120))")
        #expect(drawn.map(\.x) == drawn.map(\.x).sorted(), "left to right in time")
        // 18 px high, 2 px margins: 0% at y = 16, 100% at y = 2.
        for (point, value) in zip(drawn, progress) {
            #expect(abs(point.y - (16 - value * 14)) < 0.01, "\(value) drawn at \(point.y)")
        }
        #expect(svg.contains("progress from 0% to 100%"))
    }

    @Test func theSessionsPictureNamesTheLongestAsTheTableWritesIt() throws {
        let start = Date(timeIntervalSince1970: 1_764_000_000)
        // 40 s, then 59m 50s: an hour and more in all, so the table writes minutes.
        let entries = [(40.0, 0.0), (3630.0, 7200.0)].enumerated().map { index, row in
            WritingHistoryEntry(
                date: start.addingTimeInterval(row.1 + 3600), sessionStart: start.addingTimeInterval(row.1),
                sessionEnd: start.addingTimeInterval(row.1 + 3600), activeTime: row.0, sessionIdentifier: "session \(index)")
        }
        let charts = HistoryCharts(history: WritingHistory(entries: entries))
        let svg = try #require(charts.sessionBars())
        let table = charts.table()
        #expect(table.contains(">1m<") && table.contains(">1h 00m<"), "\(table)")
        #expect(svg.contains("2 sessions, 1h 01m of active time in all; the longest 1h 00m."), "\(svg.prefix(600))")
    }
}
