@testable import clsfile
import ArgumentParser
import Foundation
import SessionRecorder
import Testing

/// A hook request is read in three ways: by the entry point from plain arguments, by
/// ArgumentParser, and from a JSON line of `hook --stdio`. They must agree on every option, in
/// every spelling.
struct HookRequestTests {
    /// An option with a value as the command line gives it and as a JSON line gives it.
    private struct Option {
        var name: String
        var value: String?
        var json: String
    }

    private static let file = "/tmp/essay.txt"
    private static let options = [
        Option(name: "--line", value: "3", json: #""line":3"#),
        Option(name: "--editor", value: "vim", json: #""editor":"vim""#),
        Option(name: "--input-at", value: "1763900000.25", json: #""inputAt":1763900000.25"#),
        Option(name: "--opened-at", value: "1763890000", json: #""openedAt":1763890000"#),
        Option(name: "--target-words", value: "50", json: #""targetWords":50"#),
        Option(name: "--reading", value: nil, json: #""reading":true"#)
    ]
    /// The options only a command line has.
    private static let commandLineOnly = [["--store", "/tmp/store.sqlite"], ["--idle-timeout", "60"]]

    /// The three readings of one request; the JSON line's with the command line's store and timeout.
    private func readings(_ arguments: [String], json: String) throws -> (plain: HookCall?, parsed: HookCall?, line: HookCall) {
        let plain = HookCall(arguments: arguments)
        let command = try #require(try Clsfile.parseAsRoot(arguments) as? HookCommand, "\(arguments)")
        let parsed = try command.call(idleTimeout: try command.sessionOptions.resolvedIdleTimeout())
        let request = try JSONDecoder().decode(HookRequest.self, from: Data(json.utf8))
        var line = try HookCall(request: request)
        (line.store, line.idleTimeout) = (parsed?.store, parsed?.idleTimeout ?? 0)
        return (plain, parsed, line)
    }

    private func spellings(of option: Option) -> [[String]] {
        guard let value = option.value else { return [[option.name]] }
        return [[option.name, value], ["\(option.name)=\(value)"]]
    }

    @Test func everyOptionInEverySpellingMeansTheSameInAllThreeReadings() throws {
        for option in Self.options {
            for spelled in spellings(of: option) {
                for arguments in [
                    ["hook", "view", Self.file] + spelled + ["--view", "2-5", "--total-lines", "10"],
                    ["hook"] + spelled + ["--view=2-5", "--total-lines=10", "view", Self.file]
                ] {
                    let json = #"{"event":"view","file":"\#(Self.file)","view":[2,5],"totalLines":10,\#(option.json)}"#
                    let (plain, parsed, line) = try readings(arguments, json: json)
                    #expect(plain != nil, "the plain form is read without ArgumentParser: \(arguments)")
                    #expect(plain == parsed, "\(arguments)")
                    #expect(line == parsed, "\(arguments) and \(json)")
                }
            }
        }
    }

    @Test func everythingAtOnceInAnyOrderMeansTheSame() throws {
        // --target-words and --reading together are a usage error; everything else at once.
        let options = Self.options.filter { $0.name != "--reading" }
        let groups = options.compactMap { spellings(of: $0).last } + Self.commandLineOnly + [["--view", "2-5"], ["--total-lines", "10"]]
        let json =
            #"{"event":"save","file":"\#(Self.file)","view":[2,5],"totalLines":10,"#
            + options.map(\.json).joined(separator: ",") + "}"
        for ordered in [["hook", "save", Self.file] + groups.joined(), ["hook"] + groups.reversed().joined() + ["save", Self.file]] {
            let (plain, parsed, line) = try readings(ordered, json: json)
            #expect(plain != nil && plain == parsed, "\(ordered)")
            #expect(line == parsed)
            #expect(parsed?.store == "/tmp/store.sqlite" && parsed?.idleTimeout == 60 && parsed?.targetWords == 50)
        }
    }

    /// An edit and a save carry the figures since those last sent, a close the rest: the same in
    /// every reading.
    @Test(arguments: ["edit", "save", "close"])
    func figuresMeanTheSameInAllThreeReadings(event: String) throws {
        let arguments = ["hook", event, Self.file, "--typed", "12", "--pasted", "30", "--largest-paste", "20"]
        let json = #"{"event":"\#(event)","file":"\#(Self.file)","typed":12,"pasted":30,"largestPaste":20}"#
        let (plain, parsed, line) = try readings(arguments, json: json)
        #expect(plain != nil && plain == parsed && line == parsed, "\(arguments)")
        #expect(parsed?.input == SessionEvent.InputFigures(typed: 12, pasted: 30, largestPaste: 20))
        #expect(parsed?.sessionEvent.input == parsed?.input, "the event carries them")
    }

    /// What a plugin is told when its figures are refused: the value, and what is allowed.
    @Test(arguments: [
        (#"{"event":"close","file":"/tmp/essay.txt","typed":-1}"#, "the typed count must be 0 or more characters, not -1."),
        (
            #"{"event":"close","file":"/tmp/essay.txt","pasted":10,"largestPaste":11}"#,
            "the largest paste (11 characters) cannot exceed the characters pasted (10)."
        ),
        (
            #"{"event":"view","file":"/tmp/essay.txt","typed":5}"#,
            "typed, pasted, moved and largest-paste figures count input since the figures last sent: send them with edit, save or close, not view."
        ),
        (
            #"{"event":"open","file":"/tmp/essay.txt","pasted":5}"#,
            "typed, pasted, moved and largest-paste figures count input since the figures last sent: send them with edit, save or close, not open."
        )
    ])
    func refusedFiguresSayWhyAndWhatIsAllowed(json: String, message: String) throws {
        let request = try JSONDecoder().decode(HookRequest.self, from: Data(json.utf8))
        let error = #expect(throws: RecorderError.self) { _ = try request.sessionEvent() }
        #expect(error?.message == message)
        #expect(error?.code == .invalidRequest)
    }

    @Test func aBadValueIsRefusedByEveryReading() throws {
        let cases: [(arguments: [String], json: String)] = [
            (
                ["hook", "view", Self.file, "--view", "5-2", "--total-lines", "10"],
                #"{"event":"view","file":"/tmp/essay.txt","view":[5,2],"totalLines":10}"#
            ),
            (["hook", "view", Self.file, "--view", "2-5"], #"{"event":"view","file":"/tmp/essay.txt","view":[2,5]}"#),
            (["hook", "edit", Self.file, "--input-at", "-5"], #"{"event":"edit","file":"/tmp/essay.txt","inputAt":-5}"#),
            (["hook", "edit", Self.file, "--target-words", "0"], #"{"event":"edit","file":"/tmp/essay.txt","targetWords":0}"#),
            (
                ["hook", "open", Self.file, "--target-words", "50", "--reading"],
                #"{"event":"open","file":"/tmp/essay.txt","targetWords":50,"reading":true}"#
            ),
            (["hook", "close", Self.file, "--typed", "-1"], #"{"event":"close","file":"/tmp/essay.txt","typed":-1}"#),
            (
                ["hook", "close", Self.file, "--pasted", "10", "--largest-paste", "11"],
                #"{"event":"close","file":"/tmp/essay.txt","pasted":10,"largestPaste":11}"#
            ),
            (["hook", "view", Self.file, "--typed", "5"], #"{"event":"view","file":"/tmp/essay.txt","typed":5}"#),
            (["hook", "open", Self.file, "--pasted", "5"], #"{"event":"open","file":"/tmp/essay.txt","pasted":5}"#)
        ]
        for (arguments, json) in cases {
            #expect(HookCall(arguments: arguments) == nil, "left to ArgumentParser, which reports it: \(arguments)")
            #expect(throws: (any Error).self, "\(arguments)") {
                let command = try #require(try Clsfile.parseAsRoot(arguments) as? HookCommand)
                _ = try command.call(idleTimeout: 300)
            }
            #expect(throws: (any Error).self, "\(json)") {
                _ = try HookCall(request: JSONDecoder().decode(HookRequest.self, from: Data(json.utf8)))
            }
        }
    }
}
