import Foundation

extension SyncOperation {
    /// A student's note on their evidence, in the wire's plain values: the kind as text (checked
    /// by the server), the session as the student's store names it, the date in seconds since 1970.
    package struct NoteRecord: Sendable, Equatable, Codable {
        /// An ``EvidenceNote/Kind`` raw value: `work`, `session` or `paste`.
        package var kind: String
        /// The session it is about (``CLSActivity/workSessionIdentifiers``); nil for the work's.
        package var session: String?
        package var text: String
        package var writtenAt: Double

        /// The record of a note.
        package init(_ note: EvidenceNote) {
            kind = note.kind.rawValue
            session = note.sessionIdentifier
            text = note.text
            writtenAt = note.writtenAt.timeIntervalSince1970
        }

        /// The note it records; nil when its values are not a note.
        package var note: EvidenceNote? {
            guard let kind = EvidenceNote.Kind(rawValue: kind), writtenAt.isFinite, (kind == .work) == (session == nil) else { return nil }
            return EvidenceNote(kind: kind, sessionIdentifier: session, text: text, writtenAt: Date(timeIntervalSince1970: writtenAt))
        }
    }

    /// The most notes one operation, and one assignment's work, may carry: one on the work and
    /// two on each of 5,000 sessions, as a submission may hold.
    package static let maximumNotes = 10_001
}
