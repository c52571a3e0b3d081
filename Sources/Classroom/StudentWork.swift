import Foundation
import OpenClassKit

/// One student's work on one assignment: what a submission carries and what a teacher sees.
///
/// It holds the assigned document's file name (never its path), the sessions, the progress, the
/// done date and every activity item, and nothing about any other file.
public struct StudentWork: Sendable, Equatable, Codable {
    /// One editing session.
    public struct Session: Sendable, Equatable, Codable {
        public var start: Date
        /// When it ended; for a session still running, its last sign of work.
        public var end: Date
        /// Whether the session was still running when the work was read; nil in work written
        /// before clsfile recorded it.
        public var isRunning: Bool?
        /// The session's identifier in the student's store, as the writing history and the notes
        /// name it; nil in work read elsewhere (a class server's copy) or written before clsfile sent it.
        public var identifier: String?
        /// True when the session was written by dictation or an input method: its input counted as
        /// typed, never as pasted; nil otherwise.
        public var isDictated: Bool?

        /// The session's active time in seconds: the union of its spans, without the pauses past
        /// the idle timeout it went on after; nil in work written before clsfile sent it.
        public var activeSeconds: Double?

        /// Creates a session; `isRunning` nil leaves it to be judged by its end (see ``XAPIStatementBuilder``).
        public init(
            start: Date, end: Date, activeSeconds: Double? = nil, isRunning: Bool? = nil, identifier: String? = nil,
            isDictated: Bool? = nil
        ) {
            self.start = start
            self.end = end
            self.activeSeconds = activeSeconds
            self.isRunning = isRunning
            self.identifier = identifier
            self.isDictated = isDictated
        }

        /// A session a student's store or a class server's copy of the work holds.
        init(_ session: WorkSession) {
            self.init(
                start: session.start, end: session.end ?? max(session.lastPulse, session.start), activeSeconds: session.activeTime,
                isRunning: session.end == nil)
        }

        /// The session's length in seconds, from its start to its end.
        public var seconds: Double { end.timeIntervalSince(start) }

        /// The session's active time in seconds: ``activeSeconds``, or in work that does not carry
        /// it, the session's length. The sessions' active times add up to the work's.
        public var activeTime: Double { activeSeconds ?? seconds }
    }

    /// One activity item, whatever its subclass.
    public struct Item: Sendable, Equatable, Codable {
        /// `quantity`, `score` or `binary`.
        public var kind: String
        public var identifier: String
        public var title: String
        /// The quantity, the score, or 1/0 for a binary item.
        public var value: Double
        /// The maximum score, for score items.
        public var maxScore: Double?

        /// Creates an item.
        public init(kind: String, identifier: String, title: String, value: Double, maxScore: Double? = nil) {
            self.kind = kind
            self.identifier = identifier
            self.title = title
            self.value = value
            self.maxScore = maxScore
        }

        /// What a primary item is compared by: items of different keys are never averaged together.
        public var comparisonKey: String { "\(kind):\(identifier)" }

        /// The value for people: `412`, `3/4`, `yes`; a time as a duration (`2m 05s`), what
        /// timed a session in words.
        public var formattedValue: String {
            switch kind {
            case ItemKind.score.rawValue: "\(Self.number(value))/\(Self.number(maxScore ?? 0))"
            case ItemKind.binary.rawValue: value != 0 ? "yes" : "no"
            case ItemKind.quantity.rawValue where ItemIdentifier.durations.contains(identifier):
                value.isFinite ? DurationText.text(max(0, value)) : "-"
            case ItemKind.quantity.rawValue where identifier == ItemIdentifier.timingSource:
                TimingSource(code: value)?.name ?? Self.number(value)
            default: Self.number(value)
            }
        }

        static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.1f", value)
        }
    }

    public var assignmentIdentifier: String
    public var documentName: String
    /// Active time in seconds: the union of the sessions.
    public var activeSeconds: Double
    public var sessions: [Session]
    /// Progress, 0…1.
    public var progress: Double
    /// What the progress measures; nil in work written before clsfile recorded it, or when a
    /// program set the progress without naming a basis.
    public var progressBasis: ProgressBasis?
    public var primaryItem: Item?
    public var additionalItems: [Item]
    /// When the student marked it done; nil while not done.
    public var completedAt: Date?
    /// The writing history's rows, when the assignment asks for process evidence; nil otherwise.
    public var history: [WritingHistoryEntry]?
    /// The snapshots of the text, when the assignment asks for replay; nil otherwise.
    public var snapshots: [WritingSnapshotRecord]?
    /// The student's notes on the work, its sessions and their pastes; nil when there are none.
    public var notes: [EvidenceNote]?
    /// The student's own statement of how they used AI tools, when they gave one.
    public var aiStatement: AIStatement?
    /// When the student withdrew the process evidence not yet sent: the work then carries its
    /// figures without the writing history the assignment asks for. Nil while not withdrawn.
    public var evidenceWithdrawnAt: Date?
    /// When the teacher's store or class server deleted the writing history of this work, kept
    /// the days the handout says after the work last changed; the figures stay. Never in a
    /// student's submission (one that carries it is refused).
    public var evidenceExpiredAt: Date?

    /// Whether the student marked it done.
    public var isDone: Bool { completedAt != nil }

    /// The work recorded on an assigned document, read from its activity.
    /// - Parameters:
    ///   - assignment: The accepted assignment.
    ///   - activity: The activity of the assigned file, or nil when the student never opened it.
    public init(assignment: Assignment, activity: CLSActivity?) {
        assignmentIdentifier = assignment.identifier
        documentName = assignment.documentURL?.lastPathComponent ?? assignment.documentName
        completedAt = assignment.completedAt
        aiStatement = assignment.aiStatement
        evidenceWithdrawnAt = assignment.processEvidence == nil ? nil : assignment.evidenceWithdrawnAt
        guard let activity else {
            activeSeconds = 0
            sessions = []
            progress = 0
            additionalItems = []
            return
        }
        // As the student's own report counts it: a running session up to its last sign of work.
        activeSeconds = activity.recordedDuration()
        sessions = activity.workSessions.map(Session.init)
        progress = activity.progress
        progressBasis = activity.progressBasis
        primaryItem = activity.primaryActivityItem.map(Self.item(from:))
        additionalItems = activity.additionalActivityItems.map(Self.item(from:))
        // Each session by its name in the store, as a class server's copy names it too.
        nameSessions(activity.workSessionIdentifiers)
    }

    /// The work a class server holds, merged from a student's operations: the same numbers as
    /// ``init(assignment:activity:)`` reads from the student's own store.
    package init(state: WorkState) {
        assignmentIdentifier = state.assignmentIdentifier
        documentName = state.assignment.documentName
        completedAt = state.completedAt.map(Date.init(timeIntervalSince1970:))
        activeSeconds = state.activeSeconds
        sessions = state.sessions.map(Session.init)
        progress = state.progress
        progressBasis = state.progressBasis.map(ProgressBasis.init(rawValue:))
        aiStatement = state.aiStatement?.statement
        evidenceWithdrawnAt = state.evidenceWithdrawnAt.map(Date.init(timeIntervalSince1970:))
        let items = state.items.map {
            Item(
                kind: $0.kind, identifier: $0.identifier, title: $0.title, value: $0.value,
                maxScore: $0.kind == ItemKind.score.rawValue ? $0.maxScore : nil)
        }
        primaryItem = zip(state.items, items).first { $0.0.isPrimary }?.1
        additionalItems = zip(state.items, items).filter { !$0.0.isPrimary }.map(\.1)
        // Each session by the name the student's store gives it, so that their notes and
        // dictation marks stand beside the right one.
        let identifiers = state.sessionIdentifiers
        nameSessions(identifiers)
        markDictated(Set(state.dictatedSessions ?? []))
        let named = Set(identifiers)
        let notes = (state.notes ?? []).compactMap(\.note).filter { $0.sessionIdentifier.map(named.contains) ?? true }
        self.notes = notes.isEmpty ? nil : notes
    }

    /// Creates work from its parts.
    public init(
        assignmentIdentifier: String, documentName: String, activeSeconds: Double, sessions: [Session],
        progress: Double, progressBasis: ProgressBasis? = nil, primaryItem: Item?, additionalItems: [Item],
        completedAt: Date?
    ) {
        self.assignmentIdentifier = assignmentIdentifier
        self.documentName = documentName
        self.activeSeconds = activeSeconds
        self.sessions = sessions
        self.progress = progress
        self.progressBasis = progressBasis
        self.primaryItem = primaryItem
        self.additionalItems = additionalItems
        self.completedAt = completedAt
    }

    /// The student's note of a kind on the work or on one session; nil when there is none.
    /// - Parameters:
    ///   - kind: What the note is about.
    ///   - session: The session, for a note on a session or its paste.
    public func note(_ kind: EvidenceNote.Kind, on session: Session? = nil) -> EvidenceNote? {
        guard kind == .work || session?.identifier != nil else { return nil }
        return notes?.first { $0.kind == kind && $0.sessionIdentifier == (kind == .work ? nil : session?.identifier) }
    }

    /// Names each session as the student's store does (``Session/identifier``), when there is a
    /// name for each.
    mutating func nameSessions(_ identifiers: [String]) {
        guard identifiers.count == sessions.count else { return }
        for (index, identifier) in identifiers.enumerated() { sessions[index].identifier = identifier }
    }

    /// Marks the sessions of these names as written by dictation or an input method.
    mutating func markDictated(_ dictated: Set<String>) {
        for index in sessions.indices where sessions[index].identifier.map(dictated.contains) == true {
            sessions[index].isDictated = true
        }
    }

    /// The work a teacher's store keeps for a submission, as the collecting tool wrote it.
    /// - Throws: ``ClassroomError`` `.malformedFile`, naming the student, the assignment and the
    ///   store, when it cannot be read back.
    static func stored(in submission: Submission, of title: String, store path: String) throws -> StudentWork {
        do { return try JSONCoding.decoder.decode(StudentWork.self, from: submission.payload) } catch {
            throw ClassroomError(
                .malformedFile,
                "the submission of \(submission.studentName) for '\(title)' in \(path) cannot be read (\(JSONCoding.describe(error))); collect it again"
            )
        }
    }

    /// What became of the work's process evidence, in words, when it is not all there: withdrawn
    /// by the student, or deleted past the days the handout keeps it; nil otherwise.
    /// - Parameter date: How the reader's page writes a date.
    public func evidenceStatus(writingDates date: (Date) -> String) -> String? {
        if let evidenceExpiredAt {
            return "deleted \(date(evidenceExpiredAt)), past the days the handout keeps it; the figures stay"
        }
        if let evidenceWithdrawnAt {
            return "withdrawn by the student \(date(evidenceWithdrawnAt)): the figures come without the writing history"
        }
        return nil
    }

    /// The work as a submission seals it: the JSON that is encrypted, byte for byte.
    /// - Throws: `EncodingError` when a value cannot be encoded.
    public func sealedJSON() throws -> Data {
        try JSONCoding.encoder.encode(self)
    }

    /// What the progress measures, as people read it ("toward 500 words"); nil when unnamed.
    public var progressBasisName: String? {
        let target = additionalItems.first { $0.identifier == ItemIdentifier.targetWords }?.value
        return progressBasis?.name(targetWords: target.flatMap { $0 >= 1 && $0 < 1e9 ? Int($0) : nil })
    }

    // MARK: Checking work from others

    /// The most seconds of work a submission may hold: a year.
    public static let maximumSeconds: Double = 366 * 86_400
    /// The most sessions and items a submission may hold.
    static let maximumSessions = 100_000
    static let maximumItems = 1_000
    /// The largest item value: 10¹².
    static let maximumItemValue = 1e12
    /// The longest identifier, title or document name, in bytes.
    static let maximumTextLength = 1_024
    /// The earliest date a session may have: 2000-01-01.
    static let earliestDate = Date(timeIntervalSince1970: 946_684_800)
    /// The most history rows, snapshots and bytes of snapshots a submission may hold: rebuilding
    /// a snapshot for the dashboard copies at most that many contents of at most 2 MiB.
    static let maximumHistoryRows = 100_000
    static let maximumSnapshots = 2_000
    static let maximumSnapshotBytes = 8 << 20
    /// The most notes a submission may hold: one on the work and two on each of 5,000 sessions.
    static let maximumNotes = 10_001

    /// Checks every value of work decrypted from another person's file before it is stored:
    /// finite, in range, not dated in the future beyond `clockMargin`, with bounded
    /// counts and sizes.
    /// - Throws: ``ClassroomError`` `.invalidValue` naming the file and the first value out of range.
    public func validate(at now: Date = Date(), file url: URL) throws {
        func refuse(_ what: String) -> ClassroomError {
            ClassroomError(.invalidValue, "\(url.path) holds \(what); it was not imported: ask the student to run `clsfile submit` again")
        }
        let latest = now.addingTimeInterval(Submission.clockMargin)
        func isValidDate(_ date: Date) -> Bool {
            date.timeIntervalSince1970.isFinite && date >= Self.earliestDate && date <= latest
        }
        guard activeSeconds.isFinite, (0...Self.maximumSeconds).contains(activeSeconds) else {
            throw refuse("an active time of \(activeSeconds) seconds, outside 0 to a year")
        }
        guard progress.isFinite, (0...1).contains(progress) else { throw refuse("a progress of \(progress), outside 0 to 1") }
        guard sessions.count <= Self.maximumSessions else { throw refuse("\(sessions.count) sessions, more than \(Self.maximumSessions)") }
        for session in sessions {
            guard isValidDate(session.start), isValidDate(session.end), session.start <= session.end,
                session.seconds <= Self.maximumSeconds
            else {
                throw refuse(
                    "a session from \(session.start) to \(session.end), which is reversed, longer than a year, or not between 2000 and now")
            }
            // Active within the session's length, give or take the second its dates are cut to.
            if let active = session.activeSeconds, !(active.isFinite && active >= 0 && active <= session.seconds + 1) {
                throw refuse("a session from \(session.start) to \(session.end) active for \(active) seconds, more than its length")
            }
        }
        if let completedAt, !isValidDate(completedAt) { throw refuse("a done date of \(completedAt), not between 2000 and now") }
        if let evidenceWithdrawnAt, !isValidDate(evidenceWithdrawnAt) {
            throw refuse("a withdrawal of its process evidence dated \(evidenceWithdrawnAt), not between 2000 and now")
        }
        guard evidenceExpiredAt == nil else { throw refuse("a date its process evidence expired, which only a teacher's store sets") }
        if let aiStatement {
            guard isValidDate(aiStatement.statedAt) else {
                throw refuse("a statement of AI use dated \(aiStatement.statedAt), not between 2000 and now")
            }
            if let note = aiStatement.note, let problem = AIStatement.problem(withNote: note) {
                throw refuse("a statement of AI use whose note \(problem)")
            }
        }
        let items = (primaryItem.map { [$0] } ?? []) + additionalItems
        guard items.count <= Self.maximumItems else { throw refuse("\(items.count) items, more than \(Self.maximumItems)") }
        for item in items {
            guard ItemKind(rawValue: item.kind) != nil else { throw refuse("an item of unknown kind '\(item.kind)'") }
            guard item.value.isFinite, abs(item.value) <= Self.maximumItemValue else {
                throw refuse("the item '\(item.identifier)' with value \(item.value), beyond ±10¹²")
            }
            if let maxScore = item.maxScore {
                guard maxScore.isFinite, maxScore > 0, maxScore <= Self.maximumItemValue else {
                    throw refuse("the item '\(item.identifier)' with a maximum score of \(maxScore), outside 0 to 10¹²")
                }
            }
            guard item.identifier.utf8.count <= Self.maximumTextLength, item.title.utf8.count <= Self.maximumTextLength else {
                throw refuse("an item identifier or title longer than \(Self.maximumTextLength) bytes")
            }
        }
        guard Handout.isPlainFileName(documentName), assignmentIdentifier.utf8.count <= Self.maximumTextLength else {
            throw refuse("the document name '\(documentName)', which is not a plain file name")
        }
        let rows = (history ?? []) + (snapshots ?? []).map(\.entry)
        guard rows.count <= Self.maximumHistoryRows else {
            throw refuse("\(rows.count) history rows, more than \(Self.maximumHistoryRows)")
        }
        for row in rows {
            let figures =
                [row.activeTime, row.openTime ?? 0, row.progress ?? 0]
                + [
                    row.words, row.characters, row.typedCharacters, row.pastedCharacters, row.movedCharacters, row.largestPaste,
                    row.snapshotSize
                ].map {
                    Double($0 ?? 0)
                }
            guard isValidDate(row.date), isValidDate(row.sessionStart), row.sessionEnd.map(isValidDate) ?? true,
                figures.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= Self.maximumItemValue }), (row.progress ?? 0) <= 1
            else {
                throw refuse("a history row of \(row.date) whose dates or figures are out of range")
            }
        }
        if let snapshots {
            do { try Self.checkSnapshots(snapshots) } catch let error as CLSError { throw refuse("snapshots that \(error.message)") }
        }
        try validateNotes(refusing: refuse, isValidDate: isValidDate)
    }

    /// Checks the notes: at most ``maximumNotes``, each within its length, of one line, on the
    /// work or on a session the work holds, dated between 2000 and now.
    private func validateNotes(refusing refuse: (String) -> ClassroomError, isValidDate: (Date) -> Bool) throws {
        guard let notes else { return }
        guard notes.count <= Self.maximumNotes else { throw refuse("\(notes.count) notes, more than \(Self.maximumNotes)") }
        let sessionIdentifiers = Set(sessions.compactMap(\.identifier))
        for note in notes {
            if let problem = EvidenceNote.problem(with: note.text) { throw refuse("a note that \(problem)") }
            guard isValidDate(note.writtenAt) else { throw refuse("a note written at \(note.writtenAt), not between 2000 and now") }
            guard (note.kind == .work) == (note.sessionIdentifier == nil),
                note.sessionIdentifier.map(sessionIdentifiers.contains) ?? true
            else {
                throw refuse("a note on a \(note.kind.rawValue) that the work does not hold")
            }
        }
    }

    /// The most bytes of content one chain of snapshots (a keyframe and the deltas after it) may
    /// make, and all of them together: what one step of the dashboard's replay, and checking a
    /// submission, may cost at most. A store's own chains make at most 16 MiB and a keyframe.
    static let longestChain = 18 << 20
    static let mostRebuilt = 256 << 20

    /// Checks snapshots as a submission carries them: at most ``maximumSnapshots`` of at most
    /// ``maximumSnapshotBytes``, each rebuilding the content its digest names, within
    /// ``longestChain`` a chain and ``mostRebuilt`` in all.
    /// - Throws: ``CLSError`` `.invalidArgument` saying what is wrong, in words that follow "snapshots that".
    package static func checkSnapshots(_ snapshots: [WritingSnapshotRecord]) throws {
        guard snapshots.count <= maximumSnapshots else {
            throw CLSError(.invalidArgument, "are \(snapshots.count), more than \(maximumSnapshots)")
        }
        let bytes = snapshots.reduce(0) { $0 + $1.delta.count + $1.digest.count }
        guard bytes <= maximumSnapshotBytes else {
            throw CLSError(.invalidArgument, "take \(bytes) bytes, more than \(maximumSnapshotBytes)")
        }
        var chain = 0, total = 0
        do {
            try WritingSnapshotRecord.rebuild(snapshots) { snapshot in
                chain = (snapshot.isKeyframe ? 0 : chain) + snapshot.content.count
                total += snapshot.content.count
                guard chain <= longestChain, total <= mostRebuilt else {
                    throw CLSError(.invalidArgument, "make more text than any store keeps (\(chain) bytes in one chain, \(total) in all)")
                }
            }
        } catch let error as CLSError where error.code == .invalidArgument && !error.message.hasPrefix("make more") {
            throw CLSError(.invalidArgument, "do not rebuild: \(error.message)")
        }
    }

    private static func item(from item: CLSActivityItem) -> Item {
        switch item {
        case let score as CLSScoreItem:
            Item(
                kind: ItemKind.score.rawValue, identifier: score.identifier, title: score.title, value: score.score,
                maxScore: score.maxScore)
        case let binary as CLSBinaryItem:
            Item(kind: ItemKind.binary.rawValue, identifier: binary.identifier, title: binary.title, value: binary.value ? 1 : 0)
        default:
            // The three subclasses are the only items there can be: CLSActivityItem has no public initializer.
            Item(
                kind: ItemKind.quantity.rawValue, identifier: item.identifier, title: item.title,
                value: (item as? CLSQuantityItem)?.quantity ?? 0)
        }
    }
}
