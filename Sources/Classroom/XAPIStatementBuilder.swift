import Foundation
import OpenClassKit

/// Turns a student's work on an assignment into xAPI statements in the manner of cmi5: for each
/// session `initialized` at its start and `terminated` at its end (its duration the session's
/// length, as cmi5's session time, pauses included), one `progressed` with the progress and the
/// word count, and `completed` once the student marked the work done (its duration the active
/// time up to then, which the class report shows: no pause counts). The
/// student's statement of AI use, when they gave one, is in the context of `progressed` and
/// `completed` (``aiUseExtension``, ``aiUseNoteExtension``).
///
/// ```swift
/// let builder = XAPIStatementBuilder()
/// let statements = builder.statements(actor: mode.accountIdentifier, assignment: assignment,
///                                     work: work, readAt: readAt)
/// let json = try XAPIStatement.jsonArray(statements)
/// ```
///
/// The statements are a function of the work alone. Every id is a name-based UUID (version 5)
/// derived from the statement's content, so exporting the same work twice gives the same bytes,
/// and sending them to a Learning Record Store again changes nothing; when the work changes, the
/// changed statements get new ids, so an LRS never meets one id with two contents. Times are cut
/// to the second, as submissions keep them, so a student's export and the teacher's export of the
/// same work are the same statements.
///
/// The actor is an account of the student's opaque identifier on ``Configuration/homePage``; no
/// name, e-mail address or path is ever written, and only the work passed in appears.
public struct XAPIStatementBuilder: Sendable {
    /// Settings of the statements.
    public struct Configuration: Sendable, Equatable {
        /// The home page used when none is given; `.invalid` is reserved and never resolves.
        public static let defaultHomePage = "https://clsfile.invalid"

        /// The home page of the system the student accounts belong to: the `homePage` of every
        /// actor's account. An absolute http or https IRL.
        public var homePage: String

        /// Creates settings.
        public init(homePage: String = Configuration.defaultHomePage) {
            self.homePage = homePage
        }
    }

    /// The four cmi5 verbs clsfile uses, in the order they are written when they share a second.
    public enum Verb: String, Sendable, CaseIterable {
        case initialized, progressed, completed, terminated

        /// The verb's ADL IRI.
        public var iri: String { "http://adlnet.gov/expapi/verbs/\(rawValue)" }
    }

    /// The cmi5 result extension for progress, a whole number from 0 to 100.
    public static let progressExtension = "https://w3id.org/xapi/cmi5/result/extensions/progress"
    /// The result extension for the word count of the assigned document.
    public static let wordCountExtension = "https://clsfile.invalid/xapi/result/extensions/word-count"
    /// The result extensions of the characters typed, pasted from outside the document, and pasted
    /// from the document itself (the student's own text moved or copied), on the progressed
    /// statement, when the work counts them.
    public static let typedCharactersExtension = "https://clsfile.invalid/xapi/result/extensions/typed-characters"
    public static let pastedCharactersExtension = "https://clsfile.invalid/xapi/result/extensions/pasted-characters"
    public static let movedCharactersExtension = "https://clsfile.invalid/xapi/result/extensions/moved-characters"
    /// The context extension of the student's statement of AI use, on the statements that sum
    /// the work up (`progressed`, `completed`): the kind they chose, `none`, `ideas`,
    /// `feedback`, `editing` or `drafting`. The student's words, never a verdict.
    public static let aiUseExtension = "https://clsfile.invalid/xapi/context/extensions/ai-use"
    /// The context extension of the student's note on their AI use, in their own words, beside
    /// ``aiUseExtension`` when they wrote one.
    public static let aiUseNoteExtension = "https://clsfile.invalid/xapi/context/extensions/ai-use-note"
    /// The cmi5 context extension that names the session a statement belongs to.
    public static let sessionExtension = "https://w3id.org/xapi/cmi5/context/extensions/sessionid"
    /// The ADL activity type of an assignment.
    public static let activityType = "http://adlnet.gov/expapi/activities/assessment"
    /// The settings in use.
    public var configuration: Configuration

    /// Creates a builder.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The IRI of an assignment as an activity: the handout's identifier under clsfile's own
    /// namespace, the same on every machine whatever the home page.
    public static func activityIRI(assignment identifier: String) -> String {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        // Percent-encoding valid Swift text cannot fail; the identifier itself is the fallback.
        let segment = identifier.addingPercentEncoding(withAllowedCharacters: unreserved) ?? identifier
        return "https://clsfile.invalid/xapi/assignments/\(segment)"
    }

    /// The statements of a student's work on an assignment, oldest first.
    /// - Parameters:
    ///   - actor: The student's opaque account identifier.
    ///   - assignment: The assignment the work is for; its title names the activity.
    ///   - work: The work, as ``Submitter/assignedWork(in:key:)`` reads it or a submission holds it.
    ///   - readAt: When the work was read. A session that had not ended before then was still
    ///     running: it gets its `initialized` statement but no `terminated` one yet.
    /// - Returns: The statements, ordered by time.
    public func statements(actor: String, assignment: Assignment, work: StudentWork, readAt: Date) -> [XAPIStatement] {
        statements(actor: actor, title: assignment.title, work: work, readAt: readAt)
    }

    /// The statements of every student's work in a teacher's class report: per assignment, per
    /// student, oldest first.
    ///
    /// A submission marks the sessions that were still running when it was made: they get no
    /// `terminated` statement yet. Work from submissions made before sessions were marked counts a
    /// session that ends in or after the second of the submission as running.
    public func statements(for report: ClassReport) -> [XAPIStatement] {
        report.assignments.flatMap { summary in
            summary.students.flatMap { row in
                statements(actor: row.studentIdentifier, title: summary.title, work: row.work, readAt: row.submittedAt)
            }
        }
    }

    /// The statements of a student's work, the activity named by `title`; see
    /// ``statements(actor:assignment:work:readAt:)``.
    public func statements(actor: String, title: String, work: StudentWork, readAt: Date) -> [XAPIStatement] {
        let agent = XAPIStatement.Agent(account: .init(homePage: configuration.homePage, name: actor))
        let activity = XAPIStatement.Activity(
            id: Self.activityIRI(assignment: work.assignmentIdentifier),
            definition: .init(name: ["en-US": title], type: Self.activityType))
        let registration = NameBasedUUID.version5(["registration", actor, work.assignmentIdentifier].joined(separator: "\n"))
        let spans = Self.spans(of: work, readAt: readAt)

        var drafts: [(second: Int64, verb: Verb, result: XAPIStatement.Result?, session: String?)] = []
        for span in spans {
            let session = NameBasedUUID.version5(["session", actor, work.assignmentIdentifier, String(span.start)].joined(separator: "\n"))
            drafts.append((span.start, .initialized, nil, session))
            if !span.isRunning {
                drafts.append(
                    (span.end, .terminated, .init(duration: XAPIFormat.duration(seconds: Double(span.end - span.start))), session))
            }
        }
        if let measured = spans.map({ $0.isRunning ? $0.start : $0.end }).max() {
            var extensions = [Self.progressExtension: Int((min(1, max(0, work.progress)) * 100 + 1e-9).rounded(.down))]
            if let item = work.primaryItem, item.kind == ItemKind.quantity.rawValue, item.identifier == ItemIdentifier.wordCount,
                let words = Int(exactly: item.value.rounded())
            {
                extensions[Self.wordCountExtension] = words
            }
            for (identifier, iri) in [
                (ItemIdentifier.typedCharacters, Self.typedCharactersExtension),
                (ItemIdentifier.pastedCharacters, Self.pastedCharactersExtension),
                (ItemIdentifier.movedCharacters, Self.movedCharactersExtension)
            ] {
                if let item = work.additionalItems.first(where: { $0.identifier == identifier && $0.kind == ItemKind.quantity.rawValue }),
                    let count = Int(exactly: item.value.rounded())
                {
                    extensions[iri] = count
                }
            }
            drafts.append((measured, .progressed, .init(extensions: extensions), nil))
        }
        if let completedAt = work.completedAt {
            let second = Int64(completedAt.timeIntervalSince1970.rounded(.down))
            // Cut to the second, as the other times.
            let seconds = Self.activeSeconds(of: spans, until: second, inAll: work.activeSeconds).rounded(.down)
            drafts.append((second, .completed, .init(completion: true, duration: XAPIFormat.duration(seconds: seconds)), nil))
        }
        let ranks = Dictionary(uniqueKeysWithValues: Verb.allCases.enumerated().map { ($1, $0) })
        drafts.sort { ($0.second, ranks[$0.verb] ?? 0) < ($1.second, ranks[$1.verb] ?? 0) }

        var statedUse: [String: String] = [:]
        if let stated = work.aiStatement {
            statedUse[Self.aiUseExtension] = stated.use.rawValue
            statedUse[Self.aiUseNoteExtension] = stated.note
        }
        var seen = Set<String>()
        return drafts.compactMap { draft in
            var extensions = draft.session.map { [Self.sessionExtension: $0] } ?? [:]
            if draft.verb == .progressed || draft.verb == .completed { extensions.merge(statedUse) { held, _ in held } }
            var statement = XAPIStatement(
                id: "", actor: agent,
                verb: .init(id: draft.verb.iri, display: ["en-US": draft.verb.rawValue]),
                object: activity, result: draft.result,
                context: .init(
                    registration: registration, platform: "clsfile",
                    extensions: extensions.isEmpty ? nil : extensions),
                timestamp: XAPIFormat.timestamp(Date(timeIntervalSince1970: Double(draft.second))))
            statement.id = NameBasedUUID.version5(Self.identity(of: statement))
            return seen.insert(statement.id).inserted ? statement : nil
        }
    }

    // MARK: Sessions

    /// A session in whole seconds.
    struct Span: Equatable {
        var start: Int64
        var end: Int64
        var isRunning: Bool
        /// The session's active time: its length less the pauses past the idle timeout in it.
        var activeSeconds: Double
    }

    /// The sessions cut to the second, oldest first; sessions that start in the same second are
    /// one, since they would give one `initialized` statement.
    static func spans(of work: StudentWork, readAt: Date) -> [Span] {
        var bySecond: [Int64: Span] = [:]
        for session in work.sessions {
            let start = Int64(session.start.timeIntervalSince1970.rounded(.down))
            let end = max(start, Int64(session.end.timeIntervalSince1970.rounded(.down)))
            let span = Span(
                start: start, end: end, isRunning: session.isRunning ?? (session.end >= readAt), activeSeconds: session.activeTime)
            if let other = bySecond[start] {
                bySecond[start] = Span(
                    start: start, end: max(end, other.end), isRunning: span.isRunning || other.isRunning,
                    activeSeconds: max(span.activeSeconds, other.activeSeconds))
            } else {
                bySecond[start] = span
            }
        }
        return bySecond.values.sorted { $0.start < $1.start }
    }

    /// The active time before a second: the work's whole (`total`) once every session ended by
    /// then; else each session's active time, one running across that second counting no more
    /// than its part before it, and never more than the whole. Not the sessions' lengths: their
    /// pauses past the idle timeout are no work.
    static func activeSeconds(of spans: [Span], until limit: Int64, inAll total: Double) -> Double {
        if spans.allSatisfy({ !$0.isRunning && $0.end <= limit }) { return total }
        let before = spans.reduce(0.0) { sum, span in sum + min(span.activeSeconds, Double(max(0, limit - span.start))) }
        return min(before, total)
    }

    // MARK: Identity

    /// Everything a statement says but its id, one field a line: equal keys mean equal statements,
    /// so equal ids do too.
    static func identity(of statement: XAPIStatement) -> String {
        func pairs(_ label: String, _ map: [String: String]) -> [String] {
            map.sorted { $0.key < $1.key }.map { "\(label) \($0.key) \($0.value)" }
        }
        var lines = [
            "clsfile xAPI statement 1",
            statement.actor.objectType, statement.actor.account.homePage, statement.actor.account.name,
            statement.verb.id, statement.object.objectType, statement.object.id, statement.object.definition.type,
            statement.timestamp, statement.context.registration, statement.context.platform
        ]
        lines += pairs("display", statement.verb.display) + pairs("name", statement.object.definition.name)
        lines += pairs("context", statement.context.extensions ?? [:])
        if let result = statement.result {
            lines.append("completion \(result.completion.map(String.init) ?? "-")")
            lines.append("duration \(result.duration ?? "-")")
            lines += pairs("result", (result.extensions ?? [:]).mapValues(String.init))
        }
        return lines.joined(separator: "\n")
    }
}
