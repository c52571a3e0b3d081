import Classroom
import ClassWire
import Foundation
import OpenClassKit

/// The bounds every operation a student sends must keep, checked before anything is applied:
/// finite numbers in range, dates between 2000 and now (a few minutes of clock skew allowed),
/// counts and strings of bounded size, a document name that is a plain file name.
enum OperationCheck {
    static let maximumText = 1_024
    static let maximumSpans = 10_000
    static let maximumRanges = 10_000
    static let maximumItems = 1_000
    static let maximumContextDepth = 32
    static let earliest = Date(timeIntervalSince1970: 946_684_800).timeIntervalSince1970
    static let clockMargin: TimeInterval = 5 * 60
    /// The latest due date: 2100-01-01.
    static let latestDueDate: Double = 4_102_444_800

    /// Checks a request's operations.
    /// - Throws: ``ServerError`` `.tooLarge` or `.invalidValue`, naming the operation and value.
    static func check(_ operations: [SyncOperation], at now: Date = Date()) throws {
        guard !operations.isEmpty else {
            throw ServerError(.invalidValue, "the request holds no operations: send 1 to \(SyncWire.maximumOperations)")
        }
        guard operations.count <= SyncWire.maximumOperations else {
            throw ServerError(
                .tooLarge, "the request holds \(operations.count) operations, more than \(SyncWire.maximumOperations): send them in batches"
            )
        }
        let latest = now.timeIntervalSince1970 + clockMargin
        for operation in operations {
            try check(operation, latest: latest)
        }
    }

    /// Checks a teacher's registration of handouts.
    /// - Throws: ``ServerError`` `.tooLarge` or `.invalidValue`, naming the handout and value.
    static func check(_ handouts: [SyncWire.HandoutRequest.Handout]) throws {
        guard (1...SyncWire.maximumHandouts).contains(handouts.count) else {
            throw ServerError(
                handouts.isEmpty ? .invalidValue : .tooLarge,
                "the request holds \(handouts.count) handouts: send 1 to \(SyncWire.maximumHandouts)")
        }
        for handout in handouts {
            try checkAssignment(handout.identifier, handout.assignment) { what, code in
                ServerError(code, "the handout \(handout.identifier.prefix(60)) holds \(what)")
            }
        }
    }

    /// Checks an assignment's identifier and what is said of it.
    private static func checkAssignment(
        _ identifier: String, _ info: SyncOperation.AssignmentInfo,
        refuse: (String, ServerError.Code) -> ServerError
    ) throws {
        func text(_ value: String, _ name: String, allowsEmpty: Bool = false) throws {
            guard value.utf8.count <= maximumText else { throw refuse("\(name) longer than \(maximumText) bytes", .tooLarge) }
            guard allowsEmpty || !value.isEmpty else { throw refuse("an empty \(name)", .invalidValue) }
            guard !value.utf8.contains(0) else { throw refuse("\(name) with a NUL character", .invalidValue) }
        }
        try text(identifier, "assignment identifier")
        try text(info.title, "title", allowsEmpty: true)
        try text(info.className ?? "", "class name", allowsEmpty: true)
        // The work of a context of an assigned context tree is named by its identifiers below the
        // assigned context, which may hold `/`.
        let isContextName =
            info.contextPath != nil && !info.documentName.isEmpty
            && !info.documentName.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard Handout.isPlainFileName(info.documentName) || isContextName, info.documentName.utf8.count <= maximumText else {
            throw refuse("the document name '\(info.documentName.prefix(60))', which is not a plain file name", .invalidValue)
        }
        // A due date is the teacher's, and lies ahead while the work is done: only its range is checked.
        if let due = info.dueDate, !(due.isFinite && (earliest...latestDueDate).contains(due)) {
            throw refuse("the due date \(due), not a date between 2000 and 2100", .invalidValue)
        }
        if let words = info.targetWords, !(1...10_000_000).contains(words) {
            throw refuse("a target of \(words) words, outside 1 to 10,000,000", .invalidValue)
        }
        if let asked = info.aiStatement, AIStatement.Requirement(rawValue: asked) == nil {
            throw refuse("an AI statement requirement '\(asked.prefix(20))', not one of required or optional", .invalidValue)
        }
        if let days = info.keptEvidenceDays, !(1...ProcessEvidence.maximumKeptDays).contains(days) {
            throw refuse("process evidence kept \(days) days, outside 1 to \(ProcessEvidence.maximumKeptDays)", .invalidValue)
        }
        if let path = info.contextPath {
            guard path.count <= maximumContextDepth else {
                throw refuse("a context path of \(path.count) levels, more than \(maximumContextDepth)", .tooLarge)
            }
            for identifier in path { try text(identifier, "context identifier") }
        }
    }

    private static func check(_ operation: SyncOperation, latest: Double) throws {
        func refuse(_ what: String, _ code: ServerError.Code = .invalidValue) -> ServerError {
            ServerError(code, "operation \(operation.id.uuidString.lowercased()) holds \(what)")
        }
        func date(_ value: Double?, _ name: String) throws {
            guard let value else { return }
            guard value.isFinite, value >= earliest, value <= latest else {
                throw refuse("\(name) \(value), not a date between 2000 and now: check the device's clock")
            }
        }
        func text(_ value: String, _ name: String, allowsEmpty: Bool = false) throws {
            guard value.utf8.count <= maximumText else { throw refuse("\(name) longer than \(maximumText) bytes", .tooLarge) }
            guard allowsEmpty || !value.isEmpty else { throw refuse("an empty \(name)") }
            guard !value.utf8.contains(0) else { throw refuse("\(name) with a NUL character") }
        }
        try checkAssignment(operation.assignmentIdentifier, operation.assignment, refuse: refuse)
        guard (0...1_000_000).contains(operation.attempt) else { throw refuse("the attempt \(operation.attempt), outside 0 to 1,000,000") }
        try date(operation.madeAt, "the time made")
        try date(operation.completedAt, "the done date")
        try date(operation.evidenceWithdrawnAt, "the date the process evidence was withdrawn")
        guard operation.spans.count <= maximumSpans, operation.discardedSpans.count <= maximumSpans else {
            throw refuse("more than \(maximumSpans) spans", .tooLarge)
        }
        for span in operation.spans {
            guard (1...64).contains(span.id.utf8.count) else { throw refuse("a span id of \(span.id.utf8.count) bytes, not 1 to 64") }
            if let session = span.session, !(1...64).contains(session.utf8.count) {
                throw refuse("a span's session id of \(session.utf8.count) bytes, not 1 to 64")
            }
            try date(span.start, "a span's start")
            try date(span.end, "a span's end")
            try date(span.lastPulse, "a span's last pulse")
            guard span.end.map({ $0 >= span.start }) ?? true else { throw refuse("a span that ends before it starts") }
            guard max(span.end ?? span.start, span.lastPulse) - span.start <= StudentWork.maximumSeconds else {
                throw refuse(
                    "a span of \(Int(max(span.end ?? span.start, span.lastPulse) - span.start)) seconds, longer than a year (as a submission may hold)"
                )
            }
        }
        for id in operation.discardedSpans { try text(id, "span id") }
        guard operation.ranges.count <= maximumRanges else { throw refuse("more than \(maximumRanges) progress ranges", .tooLarge) }
        for range in operation.ranges {
            guard range.lower.isFinite, range.upper.isFinite, 0 <= range.lower, range.lower <= range.upper, range.upper <= 1 else {
                throw refuse("the progress range \(range.lower)…\(range.upper), not within 0…1")
            }
        }
        for basis in [operation.progressBasisChange?.basis, operation.rangesBasis].compactMap({ $0 }) {
            guard (1...64).contains(basis.utf8.count) else { throw refuse("a progress basis of \(basis.utf8.count) bytes, not 1 to 64") }
        }
        guard operation.items.count <= maximumItems, operation.deletedItems.count <= maximumItems else {
            throw refuse("more than \(maximumItems) items", .tooLarge)
        }
        for identifier in operation.deletedItems { try text(identifier, "item identifier") }
        for item in operation.items {
            try text(item.identifier, "item identifier")
            try text(item.title, "item title", allowsEmpty: true)
            guard ItemKind(rawValue: item.kind) != nil else { throw refuse("an item of unknown kind '\(item.kind.prefix(20))'") }
            guard item.value.isFinite, abs(item.value) <= 1e12 else {
                throw refuse("the item '\(item.identifier)' with value \(item.value), beyond ±10¹²")
            }
            if let maximum = item.maxScore {
                guard maximum.isFinite, maximum > 0, maximum <= 1e12 else {
                    throw refuse("the item '\(item.identifier)' with a maximum score of \(maximum)")
                }
            }
            try date(item.createdAt, "an item's creation date")
            try date(item.modifiedAt, "an item's modification date")
        }
        if let stated = operation.aiStatement {
            guard AIStatement.Use(rawValue: stated.use) != nil else {
                throw refuse(
                    "a statement of AI use of unknown kind '\(stated.use.prefix(20))', not one of \(AIStatement.Use.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            if let note = stated.note, let problem = AIStatement.problem(withNote: note) {
                let isLong = note.utf8.count > AIStatement.maximumNoteBytes || note.count > AIStatement.maximumNoteLength
                throw refuse("a statement of AI use whose note \(problem)", isLong ? .tooLarge : .invalidValue)
            }
            try date(stated.statedAt, "the date of a statement of AI use")
        }
        if let notes = operation.notes {
            guard notes.count <= SyncOperation.maximumNotes else {
                throw refuse("\(notes.count) notes, more than \(SyncOperation.maximumNotes)", .tooLarge)
            }
            for record in notes {
                guard let note = record.note else {
                    throw refuse("a note of kind '\(record.kind.prefix(20))' that is not one of work, session or paste on its session")
                }
                if let session = note.sessionIdentifier, !(1...64).contains(session.utf8.count) {
                    throw refuse("a note's session id of \(session.utf8.count) bytes, not 1 to 64")
                }
                if let problem = EvidenceNote.problem(with: note.text) {
                    throw refuse("a note that \(problem)", note.text.count > EvidenceNote.longestText ? .tooLarge : .invalidValue)
                }
                try date(record.writtenAt, "the date of a note")
            }
        }
        if let dictated = operation.dictatedSessions {
            guard dictated.count <= maximumSpans else { throw refuse("more than \(maximumSpans) dictated sessions", .tooLarge) }
            for session in dictated where !(1...64).contains(session.utf8.count) {
                throw refuse("a dictated session id of \(session.utf8.count) bytes, not 1 to 64")
            }
        }
        try checkHistory(of: operation, refuse: refuse, date: date)
    }

    /// The most bytes a snapshot's delta may take: that of the largest snapshot a store keeps,
    /// inserted whole.
    static let largestDelta = WritingHistory.largestSnapshot + 64

    /// Checks the history rows an operation carries as a submission's are checked: ids of the
    /// store, dates between 2000 and now, figures finite and in range, a snapshot's digest of 16
    /// bytes and its delta of bounded size.
    private static func checkHistory(
        of operation: SyncOperation, refuse: (String, ServerError.Code) -> ServerError,
        date: (Double?, String) throws -> Void
    ) throws {
        let rows = operation.historyRows ?? [], removed = operation.removedHistoryRows ?? []
        guard rows.count <= WorkLimits.maximumHistoryRows, removed.count <= WorkLimits.maximumHistoryRows else {
            throw refuse("more than \(WorkLimits.maximumHistoryRows) history rows", .tooLarge)
        }
        if let id = (removed + rows.map(\.id)).first(where: { $0 < 1 }) {
            throw refuse("the history row id \(id), not 1 or more", .invalidValue)
        }
        for row in rows {
            let entry = row.entry
            try date(entry.date.timeIntervalSince1970, "a history row's date")
            try date(entry.sessionStart.timeIntervalSince1970, "a history row's session start")
            try date(entry.sessionEnd?.timeIntervalSince1970, "a history row's session end")
            let figures =
                [entry.activeTime, entry.openTime ?? 0, entry.progress ?? 0]
                + [
                    entry.words, entry.characters, entry.typedCharacters, entry.pastedCharacters, entry.movedCharacters,
                    entry.largestPaste, entry.snapshotSize
                ]
                .map { Double($0 ?? 0) }
            guard figures.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1e12 }), (entry.progress ?? 0) <= 1 else {
                throw refuse("a history row of \(entry.date) whose figures are out of range", .invalidValue)
            }
            if let session = entry.sessionIdentifier, !(1...64).contains(session.utf8.count) {
                throw refuse("a history row's session id of \(session.utf8.count) bytes, not 1 to 64", .invalidValue)
            }
            switch (row.delta, row.digest) {
            case (nil, nil):
                continue
            case (let delta?, let digest?):
                guard digest.count == 16 else {
                    throw refuse("a snapshot digest of \(digest.count) bytes, not 16", .invalidValue)
                }
                guard (1...largestDelta).contains(delta.count) else {
                    throw refuse("a snapshot of \(delta.count) bytes, not 1 to \(largestDelta)", .tooLarge)
                }
            default:
                throw refuse("a snapshot with a delta or a digest alone", .invalidValue)
            }
        }
    }
}
