import Foundation
@testable import OpenClassKit
import TestSupport
import Testing

/// `WritingHistory.sessions` in one pass: the same sessions as searching back from each one,
/// and a history as large as a submission may carry read in time.
struct WritingHistorySessionsTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// Histories with interleaved sessions, start rows, rows without an identifier, and figures
    /// missing at random: every session as the search-back reference finds it.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func sessionsAreThoseOfSearchingBackFromEachSession(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var entries: [WritingHistoryEntry] = []
        var time: TimeInterval = 0
        var open: TimeInterval = 0
        for index in 0..<1_500 {
            // Sessions of a few rows each, some rows of an earlier session coming back later.
            let session = Int.random(in: max(0, index / 4 - 3)...(index / 4), using: &random)
            let sessionStart = Self.start.addingTimeInterval(Double(session) * 900)
            time += Double.random(in: 0...120, using: &random)
            open += Double.random(in: 0...200, using: &random)
            func maybe<Value>(_ value: Value) -> Value? { Int.random(in: 0..<3, using: &random) == 0 ? value : nil }
            entries.append(
                WritingHistoryEntry(
                    date: sessionStart.addingTimeInterval(Double(index % 4) * 60),
                    sessionStart: sessionStart,
                    sessionEnd: Bool.random(using: &random) ? sessionStart.addingTimeInterval(300) : nil,
                    activeTime: Int.random(in: 0..<20, using: &random) == 0 ? 0 : time,
                    openTime: maybe(open), words: maybe(index * 3 + Int.random(in: -20...20, using: &random)),
                    characters: maybe(index * 20), typedCharacters: maybe(index * 10), pastedCharacters: maybe(index),
                    progress: maybe(Double(index) / 1_500),
                    sessionIdentifier: Int.random(in: 0..<5, using: &random) == 0 ? nil : "session-\(session)",
                    isSessionStart: Int.random(in: 0..<6, using: &random) == 0))
        }
        let history = WritingHistory(entries: entries)
        let sessions = history.sessions
        let reference = Self.searchingBack(entries)
        #expect(sessions.count == reference.count)
        #expect(sessions == reference)
        #expect(sessions.contains { $0.addedWords != nil } && sessions.contains { $0.typedCharacters != nil })
    }

    /// A running session (an editor still open, or killed before its close) has no open time of
    /// its own yet: its row holds the open time of the sessions before, which is added to only when
    /// a session ends. Shown as its gain, that was "7s of 0s open": active above open.
    @Test func aRunningSessionHasNoOpenTimeYet() {
        let first = Self.start, second = Self.start.addingTimeInterval(3_600)
        let history = WritingHistory(entries: [
            WritingHistoryEntry(
                date: first.addingTimeInterval(350), sessionStart: first, sessionEnd: first.addingTimeInterval(350),
                activeTime: 20, openTime: 350, words: 37, sessionIdentifier: "one"),
            WritingHistoryEntry(
                date: second.addingTimeInterval(8), sessionStart: second, activeTime: 27, openTime: 350, words: 54,
                sessionIdentifier: "two")
        ])
        let sessions = history.sessions
        #expect(sessions.count == 2)
        #expect(sessions[0].activeTime == 20 && sessions[0].openTime == 350)
        #expect(sessions[1].activeTime == 7 && sessions[1].openTime == nil && sessions[1].addedWords == 17)
        for session in sessions { #expect(session.activeTime <= (session.openTime ?? .infinity)) }
    }

    /// 60,000 rows in 20,000 sessions, whose typed characters only the first and the last row
    /// hold: searching back from every session for them read the whole history each time.
    @Test(.timeLimit(.minutes(1)))
    func aHistoryOfSixtyThousandRowsIsReadInOnePass() {
        let count = 20_000
        var entries: [WritingHistoryEntry] = []
        entries.reserveCapacity(count * 3)
        for session in 0..<count {
            let sessionStart = Self.start.addingTimeInterval(Double(session) * 600)
            for row in 0..<3 {
                let isLast = row == 2
                entries.append(
                    WritingHistoryEntry(
                        date: sessionStart.addingTimeInterval(Double(row + 1) * 40), sessionStart: sessionStart,
                        sessionEnd: isLast ? sessionStart.addingTimeInterval(120) : nil,
                        activeTime: Double(session * 120 + (row + 1) * 40),
                        words: isLast ? (session + 1) * 10 : nil,
                        typedCharacters: session == 0 && row == 0 ? 5 : session == count - 1 && isLast ? 1_005 : nil,
                        sessionIdentifier: "session-\(session)"))
            }
        }
        let sessions = WritingHistory(entries: entries).sessions
        #expect(sessions.count == count)
        #expect(sessions.allSatisfy { $0.activeTime == 120 })
        #expect(sessions.first?.addedWords == nil, "what the first session began from is not known")
        #expect(sessions.dropFirst().allSatisfy { $0.addedWords == 10 })
        #expect(sessions.last?.typedCharacters == 1_000, "counted from the first row, 60,000 rows before")
        #expect(sessions.dropLast().allSatisfy { $0.typedCharacters == nil })
        #expect(sessions.map(\.start) == (0..<count).map { Self.start.addingTimeInterval(Double($0) * 600) })
    }

    /// The sessions as the history counted them before it did so in one pass: each session
    /// searches the rows before its first for every figure.
    static func searchingBack(_ entries: [WritingHistoryEntry]) -> [WritingHistory.Session] {
        var groups: [(key: String, rows: [Int])] = []
        for (index, entry) in entries.enumerated() {
            let key = entry.sessionIdentifier ?? "start \(entry.sessionStart.timeIntervalSince1970)"
            if let at = groups.firstIndex(where: { $0.key == key }) { groups[at].rows.append(index) } else { groups.append((key, [index])) }
        }
        return groups.map { group in
            let first = group.rows[0], entry = entries[group.rows[group.rows.count - 1]]
            let start = entries[first].isSessionStart && group.rows.count > 1 ? entries[first] : nil
            let earlier = entries[..<first]
            func before<Value>(_ figure: (WritingHistoryEntry) -> Value?) -> Value? {
                start.flatMap(figure) ?? earlier.last(where: { figure($0) != nil }).flatMap(figure)
            }
            let ownTime = max(0, (entry.sessionEnd ?? entry.date).timeIntervalSince(entry.sessionStart))
            let timeBefore = start?.activeTime ?? earlier.last?.activeTime
            let knowsBefore = timeBefore != nil || entry.activeTime <= ownTime + 1
            func gain(_ value: Int?, over earlier: Int?) -> Int? {
                guard let value, knowsBefore else { return nil }
                return value - min(value, earlier ?? 0)
            }
            return WritingHistory.Session(
                start: entry.sessionStart, end: entry.sessionEnd,
                activeTime: timeBefore.map { max(0, entry.activeTime - $0) } ?? min(entry.activeTime, ownTime),
                openTime: entry.sessionEnd == nil
                    ? nil
                    : entry.openTime.flatMap { open in knowsBefore ? open - min(open, before(\.openTime) ?? 0) : nil },
                words: entry.words,
                addedWords: entry.words.flatMap { now in before(\.words).map { now - $0 } },
                typedCharacters: gain(entry.typedCharacters, over: before(\.typedCharacters)),
                pastedCharacters: gain(entry.pastedCharacters, over: before(\.pastedCharacters)),
                progress: entry.progress, entry: entry)
        }
    }
}
