import ClassDashboard
import Classroom
import ClassWire
import Foundation
internal import NIOCore
internal import NIOFoundationCompat
import OpenClassKit
internal import PostgresNIO

/// Process evidence over sync (``ServerSchema/version10``): the history rows and snapshots a
/// student's clsfile sends with the work on an assignment that asks for them, written in the
/// sync's transaction, and read for the class's teacher one student's work at a time.
extension ServerDatabase {
    /// Writes the evidence changes of a sync, after its work (which the rows belong to), and
    /// checks what each assignment's evidence holds then against ``WorkLimits``.
    /// - Throws: ``ServerError`` `.tooLarge` past a cap (the transaction, rolled back, leaves
    ///   nothing of the request).
    func writeEvidence(_ changes: [String: EvidenceChanges], inClass classID: UUID, as student: UUID, on connection: PostgresConnection)
        async throws
    {
        var cleared: [String] = [], removedAssignments: [String] = [], removedRows: [Int64] = []
        var rowAssignments: [String] = [], rowIDs: [Int64] = [], entries: [String] = []
        var deltas: [ByteBuffer] = [], digests: [ByteBuffer] = [], keyframes: [Bool] = []
        for (assignment, change) in changes.sorted(by: { $0.key < $1.key }) {
            if change.clearsHeld { cleared.append(assignment) }
            for id in change.removed.sorted() {
                removedAssignments.append(assignment)
                removedRows.append(id)
            }
            for (id, row) in change.rows.sorted(by: { $0.key < $1.key }) {
                rowAssignments.append(assignment)
                rowIDs.append(id)
                entries.append(String(decoding: try SyncWire.encoder.encode(row.entry), as: UTF8.self))
                deltas.append(ByteBuffer(data: row.delta ?? Data()))
                digests.append(ByteBuffer(data: row.digest ?? Data()))
                keyframes.append(row.isKeyframe ?? false)
            }
        }
        for (assignment, rows, snapshots, bytes) in try await connection.run(
            """
            SELECT * FROM clsfile.sync_history(\(student), \(classID), \(cleared)::text[], \(removedAssignments)::text[],
                                               \(removedRows)::bigint[], \(rowAssignments)::text[], \(rowIDs)::bigint[],
                                               \(entries)::text[], \(deltas)::bytea[], \(digests)::bytea[], \(keyframes)::boolean[])
            """, logger: logger
        ).decode((String, Int64, Int64, Int64).self).collected() {
            try WorkLimits.check(historyRows: Int(rows), snapshots: Int(snapshots), snapshotBytes: Int(bytes), on: assignment)
        }
    }

    /// The writing history a student's work on an assignment holds, for the class's teacher;
    /// nil when it holds none and the assignment's registered handout asks for none.
    /// Read from the replica when the server has one.
    /// - Throws: ``ServerError`` `.database` when the database cannot be read.
    public func writingHistory(ofStudent student: UUID, on assignment: String, inClass classID: UUID, as teacher: UUID)
        async throws -> EvidenceReader.History?
    {
        try await asReader(teacher) { connection in
            var entries: [WritingHistoryEntry] = []
            var snapshots = 0
            for (text, hasSnapshot) in try await connection.run(
                """
                SELECT entry::text, delta IS NOT NULL FROM clsfile.work_history
                WHERE class_id = \(classID) AND student_id = \(student) AND assignment_id = \(assignment) ORDER BY row_id
                """, logger: logger
            ).decode((String, Bool).self).collected() {
                entries.append(try Self.decodedEntry(text, assignment: assignment))
                if hasSnapshot { snapshots += 1 }
            }
            let expiredAt = try await connection.run(
                """
                SELECT expired_at FROM clsfile.evidence_expiry
                WHERE class_id = \(classID) AND student_id = \(student) AND assignment_id = \(assignment)
                """, logger: logger
            ).decode(Date.self).collected().first
            if entries.isEmpty, expiredAt == nil {
                let asked = try await connection.run(
                    """
                    SELECT 1 FROM clsfile.handout WHERE class_id = \(classID) AND assignment_id = \(assignment)
                    AND detail->>'processEvidence' IS NOT NULL
                    """, logger: logger
                ).collected()
                guard !asked.isEmpty else { return nil }
            }
            return EvidenceReader.History(entries: entries, snapshots: snapshots, expiredAt: expiredAt)
        }
    }

    /// The snapshots of the text a student's work on an assignment holds, oldest first, for the
    /// class's teacher. Read from the replica when the server has one.
    /// - Throws: `CLSError` `.invalidArgument` when they are more than a
    ///   submission may hold or do not rebuild (checked as a submission's are);
    ///   ``ServerError`` `.database` when the database cannot be read.
    public func snapshotRecords(ofStudent student: UUID, on assignment: String, inClass classID: UUID, as teacher: UUID)
        async throws -> [WritingSnapshotRecord]
    {
        let records: [WritingSnapshotRecord] = try await asReader(teacher) { connection in
            var records: [WritingSnapshotRecord] = []
            for (text, delta, digest, isKeyframe) in try await connection.run(
                """
                SELECT entry::text, delta, digest, is_keyframe FROM clsfile.work_history
                WHERE class_id = \(classID) AND student_id = \(student) AND assignment_id = \(assignment) AND delta IS NOT NULL
                ORDER BY row_id
                """, logger: logger
            ).decode((String, Data, Data, Bool).self).collected() {
                records.append(
                    WritingSnapshotRecord(
                        entry: try Self.decodedEntry(text, assignment: assignment), delta: delta, digest: digest, isKeyframe: isKeyframe))
            }
            return records
        }
        do {
            try StudentWork.checkSnapshots(records)
        } catch let error as CLSError {
            throw CLSError(error.code, "the snapshots the server holds \(error.message)")
        }
        return records
    }

    /// Where a teacher's pages of a class read its students' process evidence.
    func evidenceReader(ofClass classID: UUID, as teacher: UUID) -> EvidenceReader {
        EvidenceReader(
            history: { assignment, student in
                guard let student = UUID(uuidString: student) else { return nil }
                return try await writingHistory(ofStudent: student, on: assignment, inClass: classID, as: teacher)
            },
            snapshots: { assignment, student in
                guard let student = UUID(uuidString: student) else { return [] }
                return try await snapshotRecords(ofStudent: student, on: assignment, inClass: classID, as: teacher)
            })
    }

    private static func decodedEntry(_ text: String, assignment: String) throws -> WritingHistoryEntry {
        do {
            return try SyncWire.decoder.decode(WritingHistoryEntry.self, from: Data(text.utf8))
        } catch {
            throw ServerError(
                .database, "a stored history row of the work on \(assignment) cannot be read (\(error)); it was left as it is")
        }
    }
}
