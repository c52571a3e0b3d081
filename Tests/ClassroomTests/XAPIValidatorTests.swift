import Foundation
import Testing
import TestSupport

/// The validator must catch what an LRS would refuse, or its passing says nothing.
struct XAPIValidatorTests {
    static let valid = #"""
        {"id":"886313e1-3b8a-5372-9b90-0c9aee199e5d",
         "actor":{"objectType":"Agent","account":{"homePage":"https://school.example","name":"5d0f7c1e"}},
         "verb":{"id":"http://adlnet.gov/expapi/verbs/progressed","display":{"en-US":"progressed","zh-Hant-TW":"進度"}},
         "object":{"objectType":"Activity","id":"https://clsfile.invalid/xapi/assignments/x",
                   "definition":{"name":{"en":"Essay"},"type":"http://adlnet.gov/expapi/activities/assessment"}},
         "result":{"duration":"PT1H2M3.5S","completion":false,
                   "extensions":{"https://w3id.org/xapi/cmi5/result/extensions/progress":42}},
         "context":{"registration":"886313e1-3b8a-5372-9b90-0c9aee199e5d","platform":"clsfile"},
         "timestamp":"2025-03-01T09:30:05+01:00"}
        """#

    static func problems(replacing old: String, with new: String) throws -> [String] {
        let text = valid.replacingOccurrences(of: old, with: new)
        try #require(text != valid, "the fixture has no \(old)")
        return XAPIValidator.problems(inStatement: try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    @Test func theValidFixturePasses() throws {
        #expect(XAPIValidator.problems(inStatement: try JSONDecoder().decode(JSONValue.self, from: Data(Self.valid.utf8))) == [])
    }

    @Test(arguments: [
        (#""id":"886313e1-3b8a-5372-9b90-0c9aee199e5d","#, #""id":"886313E1-3B8A-5372-9B90-0C9AEE199E5D","#, "id"),
        (#""id":"886313e1-3b8a-5372-9b90-0c9aee199e5d","#, #""id":"886313e1-3b8a-5372-1b90-0c9aee199e5d","#, "id"),
        (#""id":"886313e1-3b8a-5372-9b90-0c9aee199e5d","#, #""id":"886313e1-3b8a-0372-9b90-0c9aee199e5d","#, "id"),
        (#""account":{"homePage":"https://school.example","name":"5d0f7c1e"}"#, #""mbox":"mailto:ada@example.org""#, "exactly one account"),
        (#""objectType":"Agent","#, #""objectType":"Agent","name":"Ada Lovelace","#, "actor has a name"),
        (#""objectType":"Agent","#, #""objectType":"Agent","mbox":"mailto:ada@example.org","#, "exactly one account"),
        (#""homePage":"https://school.example""#, #""homePage":"school.example""#, "homePage"),
        (#""name":"5d0f7c1e""#, #""name":"ada@example.org""#, "looks like"),
        (#""id":"http://adlnet.gov/expapi/verbs/progressed""#, #""id":"progressed""#, "verb.id"),
        (#""en-US":"progressed""#, #""en_US":"progressed""#, "RFC 5646"),
        (#""verb":{"#, #""verbs":{},"verb":{"#, "property verbs"),
        (#""duration":"PT1H2M3.5S""#, #""duration":"PT1.234S""#, "duration"),
        (#""duration":"PT1H2M3.5S""#, #""duration":"1:02:03""#, "duration"),
        (#""duration":"PT1H2M3.5S""#, #""duration":"PT""#, "duration"),
        (#""completion":false"#, #""completion":"true""#, "Boolean"),
        (#"progress":42"#, #"progress":101"#, "progress"),
        (#"progress":42"#, #"progress":42.5"#, "progress"),
        (#""registration":"886313e1-3b8a-5372-9b90-0c9aee199e5d""#, #""registration":"r1""#, "registration"),
        (#""timestamp":"2025-03-01T09:30:05+01:00""#, #""timestamp":"2025-03-01T09:30:05""#, "timestamp"),
        (#""timestamp":"2025-03-01T09:30:05+01:00""#, #""timestamp":"2025-13-01T09:30:05Z""#, "timestamp"),
        (#""timestamp":"2025-03-01T09:30:05+01:00""#, #""timestamp":"2025-03-01T09:30:05-00:00""#, "timestamp")
    ])
    func aBrokenRuleIsFound(old: String, new: String, mentioning word: String) throws {
        let problems = try Self.problems(replacing: old, with: new)
        #expect(problems.contains { $0.contains(word) }, "\(problems)")
    }

    @Test func aMissingActorIsFound() throws {
        let problems = try Self.problems(
            replacing: #""actor":{"objectType":"Agent","account":{"homePage":"https://school.example","name":"5d0f7c1e"}},"#, with: "")
        #expect(problems.contains("actor is missing"))
    }

    @Test func duplicateIdsAndCmi5OrderAreFoundInAnExport() {
        func statement(_ verb: String, _ time: String, id: String, duration: String? = nil) -> String {
            let result = duration.map { #","result":{"duration":"\#($0)"}"# } ?? ""
            return #"""
                {"id":"\#(id)","actor":{"objectType":"Agent","account":{"homePage":"https://s.example","name":"a"}},
                 "verb":{"id":"http://adlnet.gov/expapi/verbs/\#(verb)","display":{"en-US":"\#(verb)"}},
                 "object":{"id":"https://clsfile.invalid/xapi/assignments/x"},"timestamp":"\#(time)"\#(result),
                 "context":{"registration":"886313e1-3b8a-5372-9b90-0c9aee199e5d",
                            "extensions":{"https://w3id.org/xapi/cmi5/context/extensions/sessionid":"11111111-1111-5111-8111-111111111111"}}}
                """#
        }
        let one = "00000000-0000-4000-8000-000000000001", two = "00000000-0000-4000-8000-000000000002"
        let terminatedFirst =
            "[\(statement("terminated", "2025-03-01T10:00:00Z", id: one, duration: "PT1H")),\(statement("initialized", "2025-03-01T09:00:00Z", id: two))]"
        let problems = XAPIValidator.problems(inExport: Data(terminatedFirst.utf8))
        #expect(problems.contains { $0.contains("terminated before its session was initialized") }, "\(problems)")
        #expect(problems.contains { $0.contains("goes back in time") }, "\(problems)")

        let wrongLength =
            "[\(statement("initialized", "2025-03-01T09:00:00Z", id: one)),\(statement("terminated", "2025-03-01T10:00:00Z", id: one, duration: "PT2H"))]"
        let more = XAPIValidator.problems(inExport: Data(wrongLength.utf8))
        #expect(more.contains("statement ids are not unique"), "\(more)")
        #expect(more.contains { $0.contains("not the session's length") }, "\(more)")

        let good =
            "[\(statement("initialized", "2025-03-01T09:00:00Z", id: one)),\(statement("terminated", "2025-03-01T10:00:00Z", id: two, duration: "PT1H"))]"
        #expect(XAPIValidator.problems(inExport: Data(good.utf8)) == [])
    }
}
