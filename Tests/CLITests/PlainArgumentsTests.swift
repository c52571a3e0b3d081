@testable import clsfile
import Foundation
import PlainCalls
import SessionRecorder
import Testing

/// What the entry point reads without ArgumentParser, and what it leaves to it.
struct PlainArgumentsTests {
    private func read(_ arguments: [String]) -> PlainArguments? {
        PlainArguments(arguments, command: "stats", valued: ["--target-words"], flags: ["--json"])
    }

    @Test func eachArgumentsBytesAreFoundInOnePassInOrder() throws {
        // This test process's own arguments: each found where it stands, one after another, and a
        // name that is not among them given as its UTF-8.
        let given = Array(CommandLine.arguments.dropFirst())
        try #require(given.count >= 2)
        let found = ProcessArguments.bytes(ofEach: [given[0], given[given.count - 1], "not-an-argument-\u{E9}"])
        #expect(found == [Array(given[0].utf8), Array(given[given.count - 1].utf8), Array("not-an-argument-\u{E9}".utf8)])
    }

    @Test func theFrontKnowsTheHookEventsTheRecorderDoes() {
        // The front reads a hook call without SessionRecorder: its list of events must be the recorder's.
        #expect(PlainArguments.hookEvents == SessionEvent.Kind.allCases.map(\.rawValue))
        #expect(PlainArguments.hook(["hook", "edit", "a.txt"]) != nil)
        #expect(PlainArguments.hook(["hook", "typo", "a.txt"]) == nil, "a call of no event goes to ArgumentParser at once")
    }

    @Test func optionsAreReadInEitherSpellingAndAnyOrder() throws {
        let call = try #require(read(["stats", "a.txt", "--target-words=20", "--json", "b.txt"]))
        #expect(call.positionals == ["a.txt", "b.txt"])
        #expect(call.value(of: "--target-words") == "20")
        #expect(call.has("--json"))
        let spaced = try #require(read(["stats", "--target-words", "20", "a.txt"]))
        #expect(spaced.value(of: "--target-words") == "20" && !spaced.has("--json"))
        #expect(spaced.positionals == ["a.txt"])
    }

    @Test func anythingElseIsLeftToArgumentParser() {
        for arguments in [
            ["hook", "a.txt"], // another command
            ["stats", "--help"], ["stats", "-h"], // help
            ["stats", "--json", "--json", "a.txt"], // a repeated flag
            ["stats", "--target-words", "1", "--target-words=2", "a.txt"], // a repeated option
            ["stats", "a.txt", "--target-words"], // a missing value
            ["stats", "--target-words", "--json"], // a value that looks like an option
            ["stats", "--target-words=", "a.txt"], // an empty value
            ["stats", "--json=yes", "a.txt"], // a value given to a flag
            ["stats", "--", "-a.txt"], // the end of options
            ["stats", "--bogus", "a.txt"] // an unknown option
        ] {
            #expect(read(arguments) == nil, "\(arguments)")
        }
    }

    /// A corrupt or foreign store can hold any number: no formatter may trap on it.
    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300, -5, 0, 1e15])
    func formattersNeverTrap(value: Double) {
        let texts = [
            Formatting.text(value), Formatting.percent(value), Formatting.number(value),
            Formatting.decimal(value, places: 1)
        ]
        #expect(texts.allSatisfy { !$0.isEmpty }, "\(texts)")
        if !value.isFinite {
            #expect(Array(texts.prefix(3)) == ["-", "-", "-"], "\(texts)")
        }
    }

    @Test func datesAreWrittenAsFoundationWritesThem() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1
            // From 1970 to 2100, to the millisecond.
            let date = Date(timeIntervalSince1970: Double(state >> 11 % 4_102_444_800_000) / 1000)
            #expect(Formatting.iso8601(date) == date.formatted(.iso8601), "\(date.timeIntervalSince1970)")
            let millisecond = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000 + 0.0004)
            #expect(
                Formatting.iso8601(millisecond, milliseconds: true)
                    == millisecond.formatted(
                        .iso8601.year().month().day().time(includingFractionalSeconds: true)
                            .timeZone(separator: .omitted).dateSeparator(.dash).timeSeparator(.colon)),
                "\(millisecond.timeIntervalSince1970)")
        }
        #expect(Formatting.iso8601(Date(timeIntervalSince1970: -0.5), milliseconds: true) == "1969-12-31T23:59:59.500Z")
        #expect(Formatting.iso8601(Date(timeIntervalSince1970: .nan)) == "-")
    }

    @Test func extremeDurationsReadAsPeopleWriteThem() {
        #expect(Formatting.text(-5) == "-5s")
        #expect(Formatting.text(1e300) == "2.77778e+296h")
        #expect(Formatting.text(7500.9) == "2h 05m")
    }

    @Test func decimalsHaveTheirPlacesWithoutFoundation() {
        #expect(Formatting.decimal(26.14, places: 1) == "26.1")
        #expect(Formatting.decimal(26.16, places: 1) == "26.2")
        #expect(Formatting.decimal(7, places: 1) == "7.0")
        #expect(Formatting.decimal(0.04, places: 2) == "0.04")
        #expect(Formatting.decimal(-3.25, places: 1) == "-3.2", "ties go to even")
        #expect(Formatting.decimal(-0.04, places: 1) == "0.0", "no negative zero")
        #expect(Formatting.decimal(12.5, places: 0) == "12")
        #expect(Formatting.decimal(1e20, places: 1) == "100000000000000000000.0")
        #expect(Formatting.decimal(.nan, places: 1) == "nan")
        #expect(Formatting.percent(0.125) == "12.5%" && Formatting.percent(0.8) == "80%")
    }
}
