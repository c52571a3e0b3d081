import Foundation

/// A JSON value as parsed, keeping whole numbers, other numbers and Booleans apart.
public indirect enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    public subscript(key: String) -> JSONValue? { object?[key] }
}

/// Checks xAPI 1.0.3 statements as an LRS would, from the bytes, independently of the types that
/// wrote them, plus the rules clsfile's export promises: an account-only agent, the cmi5 verbs
/// and order, the progress extension. Returns the problems found, one line each; none is valid.
public enum XAPIValidator {
    public static let progressExtension = "https://w3id.org/xapi/cmi5/result/extensions/progress"
    public static let sessionExtension = "https://w3id.org/xapi/cmi5/context/extensions/sessionid"

    /// Every problem of an export: a JSON array of statements.
    public static func problems(inExport data: Data) -> [String] {
        let parsed: JSONValue
        do { parsed = try JSONDecoder().decode(JSONValue.self, from: data) } catch { return ["not JSON: \(error)"] }
        guard case .array(let statements) = parsed else { return ["the export is not a JSON array"] }
        var problems: [String] = []
        for (index, statement) in statements.enumerated() {
            problems += Self.problems(inStatement: statement).map { "statement \(index): \($0)" }
        }
        let ids = statements.compactMap { $0["id"]?.string }
        if Set(ids).count != ids.count { problems.append("statement ids are not unique") }
        problems += cmi5Problems(statements)
        return problems
    }

    /// Every problem of one statement.
    public static func problems(inStatement statement: JSONValue) -> [String] {
        guard let object = statement.object else { return ["not a JSON object"] }
        var problems = unknownKeys(
            object,
            allowed: [
                "id", "actor", "verb", "object", "result", "context", "timestamp",
                "stored", "authority", "version", "attachments"
            ], at: "statement")
        for key in ["actor", "verb", "object"] where object[key] == nil { problems.append("\(key) is missing") }
        if let id = object["id"] { problems += uuidProblems(id, at: "id") }
        if let actor = object["actor"] { problems += agentProblems(actor) }
        if let verb = object["verb"] { problems += verbProblems(verb) }
        if let activity = object["object"] { problems += activityProblems(activity) }
        if let result = object["result"] { problems += resultProblems(result, verb: object["verb"]?["id"]?.string) }
        if let context = object["context"] { problems += contextProblems(context) }
        if let timestamp = object["timestamp"] { problems += timestampProblems(timestamp, at: "timestamp") }
        return problems
    }

    // MARK: Parts

    static func agentProblems(_ actor: JSONValue) -> [String] {
        guard let agent = actor.object else { return ["actor is not an object"] }
        var problems = unknownKeys(agent, allowed: ["objectType", "account"], at: "actor")
        if agent["objectType"] != .string("Agent") { problems.append("actor.objectType is not Agent") }
        let identifiers = ["mbox", "mbox_sha1sum", "openid", "account"].filter { agent[$0] != nil }
        if identifiers != ["account"] { problems.append("actor has identifiers \(identifiers), not exactly one account") }
        if agent["name"] != nil { problems.append("actor has a name") }
        guard let account = agent["account"]?.object else { return problems + ["actor.account is not an object"] }
        problems += unknownKeys(account, allowed: ["homePage", "name"], at: "actor.account")
        if !isIRL(account["homePage"]?.string) { problems.append("actor.account.homePage is not an absolute IRL") }
        if (account["name"]?.string ?? "").isEmpty { problems.append("actor.account.name is missing or empty") }
        if let name = account["name"]?.string, name.contains("@") || name.contains(" ") {
            problems.append("actor.account.name '\(name)' looks like an address or a person's name")
        }
        return problems
    }

    static func verbProblems(_ verb: JSONValue) -> [String] {
        guard let object = verb.object else { return ["verb is not an object"] }
        var problems = unknownKeys(object, allowed: ["id", "display"], at: "verb")
        if !isIRI(object["id"]?.string) { problems.append("verb.id is not an absolute IRI") }
        if let display = object["display"] { problems += languageMapProblems(display, at: "verb.display") }
        return problems
    }

    static func activityProblems(_ activity: JSONValue) -> [String] {
        guard let object = activity.object else { return ["object is not an object"] }
        var problems = unknownKeys(object, allowed: ["objectType", "id", "definition"], at: "object")
        if let type = object["objectType"], type != .string("Activity") { problems.append("object.objectType is not Activity") }
        if !isIRI(object["id"]?.string) { problems.append("object.id is not an absolute IRI") }
        if let definition = object["definition"] {
            guard let fields = definition.object else { return problems + ["object.definition is not an object"] }
            problems += unknownKeys(fields, allowed: ["name", "description", "type", "moreInfo", "extensions"], at: "object.definition")
            if let name = fields["name"] { problems += languageMapProblems(name, at: "object.definition.name") }
            if let type = fields["type"], !isIRI(type.string) { problems.append("object.definition.type is not an absolute IRI") }
        }
        return problems
    }

    static func resultProblems(_ result: JSONValue, verb: String?) -> [String] {
        guard let object = result.object else { return ["result is not an object"] }
        var problems = unknownKeys(object, allowed: ["score", "success", "completion", "response", "duration", "extensions"], at: "result")
        if let completion = object["completion"], case .bool = completion {
        } else if object["completion"] != nil {
            problems.append("result.completion is not a Boolean")
        }
        if let duration = object["duration"] {
            if !isDuration(duration.string) { problems.append("result.duration \(duration) is not an ISO 8601 duration to the hundredth") }
        }
        if let extensions = object["extensions"] {
            guard let map = extensions.object else { return problems + ["result.extensions is not an object"] }
            for key in map.keys where !isIRI(key) { problems.append("result extension key \(key) is not an absolute IRI") }
            if let progress = map[progressExtension] {
                if case .integer(let value) = progress, (0...100).contains(value) {
                } else {
                    problems.append("the progress extension is \(progress), not a whole number from 0 to 100")
                }
            }
        }
        return problems
    }

    static func contextProblems(_ context: JSONValue) -> [String] {
        guard let object = context.object else { return ["context is not an object"] }
        var problems = unknownKeys(
            object,
            allowed: [
                "registration", "instructor", "team", "contextActivities", "revision",
                "platform", "language", "statement", "extensions"
            ], at: "context")
        if let registration = object["registration"] { problems += uuidProblems(registration, at: "context.registration") }
        if let extensions = object["extensions"] {
            guard let map = extensions.object else { return problems + ["context.extensions is not an object"] }
            for key in map.keys where !isIRI(key) { problems.append("context extension key \(key) is not an absolute IRI") }
            if let session = map[sessionExtension] { problems += uuidProblems(session, at: "the session id") }
        }
        return problems
    }

    // MARK: cmi5

    /// Per registration: timestamps never go back, each verb has what cmi5 asks of it, and each
    /// session starts with one `initialized` and ends with at most one `terminated`, whose
    /// duration is the time between them.
    static func cmi5Problems(_ statements: [JSONValue]) -> [String] {
        var problems: [String] = []
        var lastTime: [String: Date] = [:]
        var sessions: [String: (initialized: Date?, terminated: Date?)] = [:]
        for (index, statement) in statements.enumerated() {
            let verb = statement["verb"]?["id"]?.string ?? ""
            let registration = statement["context"]?["registration"]?.string ?? ""
            guard let time = date(statement["timestamp"]?.string) else {
                problems.append("statement \(index) has no timestamp")
                continue
            }
            if let last = lastTime[registration], time < last { problems.append("statement \(index) goes back in time") }
            lastTime[registration] = time
            let result = statement["result"]
            let session = statement["context"]?["extensions"]?[sessionExtension]?.string
            switch verb.split(separator: "/").last.map(String.init) {
            case "initialized":
                guard let session else {
                    problems.append("statement \(index): initialized without a session id")
                    continue
                }
                if sessions[session] != nil { problems.append("statement \(index): session \(session) initialized twice") }
                sessions[session] = (time, nil)
            case "terminated":
                guard let session, let start = sessions[session]?.initialized else {
                    problems.append("statement \(index): terminated before its session was initialized")
                    continue
                }
                if sessions[session]?.terminated != nil { problems.append("statement \(index): session terminated twice") }
                sessions[session]?.terminated = time
                if result?["duration"]?.string.flatMap(seconds(ofDuration:)) != time.timeIntervalSince(start) {
                    problems.append("statement \(index): terminated duration is not the session's length")
                }
            case "progressed":
                if result?["extensions"]?[progressExtension] == nil { problems.append("statement \(index): progressed without progress") }
            case "completed":
                if result?["completion"] != .bool(true) { problems.append("statement \(index): completed without completion true") }
                if result?["duration"] == nil { problems.append("statement \(index): completed without a duration") }
            default:
                problems.append("statement \(index): verb \(verb) is not one of the cmi5 verbs clsfile writes")
            }
        }
        return problems
    }

    // MARK: Formats

    static func unknownKeys(_ object: [String: JSONValue], allowed: Set<String>, at place: String) -> [String] {
        object.keys.filter { !allowed.contains($0) }.sorted().map { "\(place) has the property \($0), which xAPI does not define here" }
    }

    /// RFC 4122: lowercase hexadecimal in 8-4-4-4-12, version 1 to 5, variant 10.
    static func uuidProblems(_ value: JSONValue, at place: String) -> [String] {
        let pattern = #"^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#
        guard let text = value.string, text.range(of: pattern, options: .regularExpression) != nil else {
            return ["\(place) \(value) is not an RFC 4122 UUID in lowercase"]
        }
        return []
    }

    /// An absolute IRI: a scheme, a colon, then no spaces, controls or characters IRIs forbid.
    static func isIRI(_ text: String?) -> Bool {
        guard let text else { return false }
        return text.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`\x00-\x1F]+$"#, options: .regularExpression) != nil
    }

    /// An absolute IRL: an http or https IRI with a host.
    static func isIRL(_ text: String?) -> Bool {
        guard let text, isIRI(text), let url = URL(string: text) else { return false }
        return ["http", "https"].contains(url.scheme?.lowercased() ?? "") && !(url.host ?? "").isEmpty
    }

    /// A language map: RFC 5646 tags to text.
    static func languageMapProblems(_ map: JSONValue, at place: String) -> [String] {
        guard let object = map.object, !object.isEmpty else { return ["\(place) is not a non-empty language map"] }
        let language = #"[A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8}"#
        let tag =
            #"^(\#(language))(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*(-x(-[A-Za-z0-9]{1,8})+)?$"#
        var problems: [String] = []
        for (key, value) in object {
            if key.range(of: tag, options: .regularExpression) == nil { problems.append("\(place) key \(key) is not an RFC 5646 tag") }
            if value.string == nil { problems.append("\(place)[\(key)] is not text") }
        }
        return problems
    }

    /// ISO 8601 extended date and time with seconds and a zone (Z or ±hh:mm, never -00:00).
    static func timestampProblems(_ value: JSONValue, at place: String) -> [String] {
        guard let text = value.string, date(text) != nil, !text.hasSuffix("-00:00") else {
            return ["\(place) \(value) is not an ISO 8601 timestamp with a time zone"]
        }
        return []
    }

    /// The instant a timestamp names, or nil for one that is not ISO 8601 with a zone.
    public static func date(_ text: String?) -> Date? {
        let pattern =
            #"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$"#
        guard let text, text.range(of: pattern, options: .regularExpression) != nil else { return nil }
        let withFraction = text.contains(".")
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: withFraction))
    }

    /// An xAPI duration: ISO 8601 `PnYnMnDTnHnMnS` or `PnW`, at least one part, seconds to the
    /// hundredth at most.
    static func isDuration(_ text: String?) -> Bool {
        guard let text, text != "P", !text.hasSuffix("T") else { return false }
        let pattern = #"^P(\d+W|(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d{1,2})?S)?)?)$"#
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    /// The seconds of a duration with hours, minutes and seconds only; nil for others.
    public static func seconds(ofDuration text: String) -> Double? {
        guard isDuration(text), text.hasPrefix("PT") else { return nil }
        var total = 0.0, number = ""
        for character in text.dropFirst(2) {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number) else { return nil }
            switch character {
            case "H": total += value * 3600
            case "M": total += value * 60
            case "S": total += value
            default: return nil
            }
            number = ""
        }
        return total
    }
}
