import ClassDashboard
import Classroom
import Foundation
internal import PostgresNIO
#if canImport(Glibc)
internal import Glibc
#endif

/// A school's data leaving the server: a student's on request (``forgetStudent(_:)``), a class's
/// at the end of a term (``archiveClass(_:to:)``). Both run as the role that owns the schema, and
/// each is one transaction: it happens entirely or not at all.
///
/// The database forgets at once; a replica replays the deletion within its lag. PostgreSQL's own
/// backups and archived write-ahead log keep the rows until they expire, as the school's
/// backup policy says; the server keeps no other copy. A server process that verified the
/// student's key in the last minute may accept it for the rest of that minute, and every
/// request of the account is then refused: there is no account to write as.
extension ServerDatabase {
    /// What ``forgetStudent(_:)`` deleted.
    public struct ForgottenStudent: Sendable, Equatable {
        public var accountID: UUID
        public var name: String
        /// Device keys.
        public var keys: Int
        /// Classes the student had joined.
        public var enrolments: Int
        /// Rows of work, one per assignment and class.
        public var workRows: Int
        /// Ids of operations applied.
        public var appliedOperations: Int
    }

    /// Deletes a student and everything of theirs: the account, its device keys, its
    /// enrolments, its work in every class and the ids of its applied operations. Their teachers'
    /// reports no longer show them. Their clsfile keeps its own store, and is refused by the
    /// server from then on; joining again with a code makes a new account.
    /// - Parameter student: The student's account id or key id.
    /// - Throws: ``ServerError`` `.notFound` when no student has that id (a teacher's is refused too).
    public func forgetStudent(_ student: String) async throws -> ForgottenStudent {
        try await translating("forgetting the student \(student)") {
            try await client.withTransaction(logger: logger) { connection in
                let found = try await connection.run(
                    """
                    SELECT a.id, a.name FROM clsfile.account a WHERE a.role = 'student'
                    AND (a.id::text = lower(\(student)) OR a.id IN (SELECT account_id FROM clsfile.device_key WHERE kid = \(student)))
                    FOR UPDATE
                    """, logger: logger
                ).decode((UUID, String).self).collected()
                guard let (account, name) = found.first else {
                    throw ServerError(
                        .notFound,
                        "no student has the account or key id \(student): the class's /api/class-report.json gives each student's account id (studentIdentifier)"
                    )
                }
                let counts = try await connection.run(
                    """
                    SELECT (SELECT count(*) FROM clsfile.device_key WHERE account_id = \(account))::bigint,
                           (SELECT count(*) FROM clsfile.enrolment WHERE student_id = \(account))::bigint,
                           (SELECT count(*) FROM clsfile.work WHERE student_id = \(account))::bigint,
                           (SELECT count(*) FROM clsfile.applied_operation WHERE student_id = \(account))::bigint
                    """, logger: logger
                ).decode((Int64, Int64, Int64, Int64).self).collected()
                // Keys, enrolments (and with them the work), applied ids: each refers to the
                // account with ON DELETE CASCADE.
                try await connection.run("DELETE FROM clsfile.account WHERE id = \(account)", logger: logger)
                let (keys, enrolments, work, applied) = counts.first ?? (0, 0, 0, 0)
                return ForgottenStudent(
                    accountID: account, name: name, keys: Int(keys), enrolments: Int(enrolments),
                    workRows: Int(work), appliedOperations: Int(applied))
            }
        }
    }

    /// What ``archiveClass(_:to:)`` wrote and deleted.
    public struct ArchivedClass: Sendable, Equatable {
        public var classID: UUID
        public var name: String
        public var teacherName: String
        /// The students enrolled, whose enrolments were deleted.
        public var students: Int
        /// Rows of work deleted, one per student and assignment.
        public var workRows: Int
        /// The assignments the report holds.
        public var assignments: Int
        /// Of the students, those now in no class: their accounts stay until ``forgetStudent(_:)``.
        public var studentsInNoClass: Int
    }

    /// Ends a class: writes its report to a new file, then deletes the class with its join code,
    /// enrolments, work and catalog assignments.
    ///
    /// The file holds the whole report: what `GET /api/class-report.json?class=ID` gives a page
    /// of students at a time, every student at once (every assignment with each student's work,
    /// and the catalog's contexts' titles); it is written and flushed to disk before anything is
    /// deleted. The class is locked meanwhile: a sync to it waits, and is then refused (the
    /// student is in no such class), so the file holds all the work the class received. Kept:
    /// the teacher's account, the students' accounts and keys (they may be in other classes;
    /// ``forgetStudent(_:)`` deletes one), the ids of their operations (until
    /// ``pruneAppliedOperations(batchSize:)``) and the catalogs.
    /// - Parameters:
    ///   - schoolClass: The class's id or join code.
    ///   - file: Where to write the report; must not exist.
    /// - Throws: ``ServerError`` `.notFound` for no such class, `.invalidValue` for a file that
    ///   exists or cannot be written (nothing is deleted then).
    public func archiveClass(_ schoolClass: String, to file: URL) async throws -> ArchivedClass {
        guard !FileManager.default.fileExists(atPath: file.path) else {
            throw ServerError(.invalidValue, "\(file.path) exists already: give another --output; archive never writes over a file")
        }
        return try await translating("archiving the class \(schoolClass)") {
            try await client.withTransaction(logger: logger) { connection in
                let found = try await connection.run(
                    """
                    SELECT c.id, c.name, c.teacher_id, a.name FROM clsfile.class c JOIN clsfile.account a ON a.id = c.teacher_id
                    WHERE c.id::text = lower(\(schoolClass)) OR c.join_code = upper(\(schoolClass))
                    FOR UPDATE OF c
                    """, logger: logger
                ).decode((UUID, String, UUID, String).self).collected()
                guard let (classID, name, teacher, teacherName) = found.first else {
                    throw ServerError(.notFound, "no class has the id or join code \(schoolClass): clsfile-server class list shows them")
                }
                // Locked until the class is deleted: a sync that would write its work waits.
                let students = try await connection.run(
                    """
                    SELECT student_id FROM clsfile.enrolment WHERE class_id = \(classID) FOR UPDATE
                    """, logger: logger
                ).decode(UUID.self).collected()
                let workRows = try await connection.run(
                    """
                    SELECT 1 FROM clsfile.work WHERE class_id = \(classID) FOR UPDATE
                    """, logger: logger
                ).collected().count
                let inNoClass =
                    try await connection.run(
                        """
                        SELECT count(*) FROM clsfile.enrolment e WHERE e.class_id = \(classID)
                        AND NOT EXISTS (SELECT 1 FROM clsfile.enrolment o WHERE o.student_id = e.student_id AND o.class_id <> \(classID))
                        """, logger: logger
                    ).decode(Int64.self).collected().first ?? 0
                // Read in a transaction of its own, which the locks above do not hold up.
                let report = try await classReport(classID, as: teacher)
                try Self.writeNew(file, try DashboardPages.reportEncoder().encode(report))
                do {
                    try await connection.run("DELETE FROM clsfile.class WHERE id = \(classID)", logger: logger)
                } catch {
                    try? FileManager.default.removeItem(at: file)
                    throw error
                }
                return ArchivedClass(
                    classID: classID, name: name, teacherName: teacherName, students: students.count,
                    workRows: workRows, assignments: report.assignments.count, studentsInNoClass: Int(inNoClass))
            }
        }
    }

    /// Writes a file that must not exist yet, and flushes it to disk.
    private static func writeNew(_ file: URL, _ data: Data) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ServerError(
                .invalidValue,
                "cannot create \(file.path): \(String(cString: strerror(errno))); give a --output in a folder you may write, that does not exist yet"
            )
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw ServerError(
                .invalidValue, "cannot write \(file.path): \(error.localizedDescription); nothing was deleted", underlyingError: error)
        }
    }
}
