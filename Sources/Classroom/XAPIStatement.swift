import Foundation

/// One xAPI 1.0.3 statement, as `clsfile export --xapi` writes it: an agent known only by an
/// opaque account, a verb, the assignment as the activity, and a result and context.
///
/// Only the properties clsfile uses are modelled; absent optional properties are left out of the
/// JSON. Times are kept as the text that is written (see ``XAPIFormat``) so that encoding never
/// changes them. ``XAPIStatementBuilder`` makes statements.
public struct XAPIStatement: Sendable, Equatable, Codable {
    /// The person the statement is about: an agent identified by an account alone, never by a name
    /// or an e-mail address.
    public struct Agent: Sendable, Equatable, Codable {
        /// An account on a system.
        public struct Account: Sendable, Equatable, Codable {
            /// The home page of the system the account belongs to, an absolute IRL.
            public var homePage: String
            /// The opaque account identifier.
            public var name: String
        }

        /// Always `Agent`.
        public var objectType = "Agent"
        /// The one identifier of the agent.
        public var account: Account
    }

    /// What happened, as an IRI with names for people.
    public struct Verb: Sendable, Equatable, Codable {
        /// The verb's IRI, for example `http://adlnet.gov/expapi/verbs/completed`.
        public var id: String
        /// The verb's name by RFC 5646 language tag.
        public var display: [String: String]
    }

    /// The activity the statement is about: one assignment.
    public struct Activity: Sendable, Equatable, Codable {
        /// The activity's name and type.
        public struct Definition: Sendable, Equatable, Codable {
            /// The name by RFC 5646 language tag.
            public var name: [String: String]
            /// The activity type's IRI.
            public var type: String
        }

        /// Always `Activity`.
        public var objectType = "Activity"
        /// The activity's IRI.
        public var id: String
        /// The activity's name and type.
        public var definition: Definition
    }

    /// The outcome of what happened.
    public struct Result: Sendable, Equatable, Codable {
        /// Whether the work is complete; set only on `completed`.
        public var completion: Bool?
        /// An ISO 8601 duration, see ``XAPIFormat/duration(seconds:)``.
        public var duration: String?
        /// Whole-number values by extension IRI: progress in percent, the word count.
        public var extensions: [String: Int]?
    }

    /// Where it happened.
    public struct Context: Sendable, Equatable, Codable {
        /// A UUID that ties together every statement of one student on one assignment.
        public var registration: String
        /// The tool that reports.
        public var platform: String
        /// Values by extension IRI, such as the session identifier.
        public var extensions: [String: String]?
    }

    /// A UUID derived from everything else in the statement, see ``XAPIStatementBuilder``.
    public var id: String
    /// Who did it.
    public var actor: Agent
    /// What they did.
    public var verb: Verb
    /// The assignment they did it on.
    public var object: Activity
    /// The duration, completion, progress and word count, where the verb has them.
    public var result: Result?
    /// The registration, the platform and the session.
    public var context: Context
    /// When it happened, in ISO 8601 with a time zone.
    public var timestamp: String

    /// Statements as a JSON array: sorted keys, indented, slashes unescaped, ending in a newline.
    /// The same statements always give the same bytes.
    /// - Throws: `EncodingError`, which these values cannot cause.
    public static func jsonArray(_ statements: [XAPIStatement]) throws -> Data {
        var data = try JSONCoding.encoder.encode(statements)
        data.append(0x0a)
        return data
    }
}
