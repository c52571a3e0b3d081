internal import Classroom
import Foundation
import OpenClassKit

/// What a student's clsfile and the class server send each other: JSON bodies, dates in seconds
/// since 1970, binary data in base64. Every request carries a ``DeviceToken``.
public enum SyncWire {
    /// The most operations one sync request may carry.
    public static let maximumOperations = 500
    /// The largest request body the server reads, in bytes.
    public static let maximumBodyBytes = 4 << 20
    /// The most handouts one registration may carry.
    public static let maximumHandouts = 500
    /// The students a page of `GET /api/class-report.json` or `GET /api/xapi.json` holds when
    /// the request names no `limit`.
    public static let reportStudentsPerPage = ClassReport.studentsPerPage
    /// The most students a page of those routes holds, whatever `limit` asks.
    public static let maximumReportStudentsPerPage = ClassReport.maximumStudentsPerPage
    /// The header naming the device key that signed a request (the `kid` its token names), so
    /// that a proxy in front of several server processes can send one device's requests to one
    /// of them (nginx: `hash $http_clsfile_key consistent`), where that process holds the
    /// device's work decoded. Routing only: the server reads the key from the verified token.
    public static let keyHeader = "Clsfile-Key"

    /// `POST /v1/join`: a student joins a class with its code. The token must be signed by the key
    /// sent, which proves the device holds it.
    public struct JoinRequest: Sendable, Equatable, Codable {
        public var code: String
        /// The student's name as the teacher sees it.
        public var name: String
        /// The device's public signing key, P-256 in X9.63 form.
        public var publicKey: Data

        public init(code: String, name: String, publicKey: Data) {
            self.code = code
            self.name = name
            self.publicKey = publicKey
        }
    }

    /// The answer to a join.
    public struct JoinAnswer: Sendable, Equatable, Codable {
        public var accountID: UUID
        public var classID: UUID
        public var className: String
        /// The class's teacher's recipient public key (P-256, X9.63), which their handouts carry:
        /// the student's clsfile sends the class only the work of that teacher's assignments.
        /// Nil from a server older than classes tied to their teacher.
        public var teacherKey: Data?

        public init(accountID: UUID, classID: UUID, className: String, teacherKey: Data?) {
            self.accountID = accountID
            self.classID = classID
            self.className = className
            self.teacherKey = teacherKey
        }
    }

    /// `POST /v1/lti/link`: ties the device's key to the LMS person an LTI launch gave the
    /// one-use `token` to (`clsfile join URL --lti TOKEN`), signed by that key. A student's key
    /// joins their course's class; a teacher's goes on the account their launches made, with the
    /// recipient key their handouts carry.
    public struct LinkRequest: Sendable, Equatable, Codable {
        public var token: String
        /// The device's public signing key, P-256 in X9.63 form.
        public var publicKey: Data
        /// A teacher's recipient public key (P-256, X9.63); nil for a student.
        public var recipientKey: Data?

        public init(token: String, publicKey: Data, recipientKey: Data?) {
            self.token = token
            self.publicKey = publicKey
            self.recipientKey = recipientKey
        }
    }

    /// The answer to a link: the account and the class, and the role the launch gave.
    public struct LinkAnswer: Sendable, Equatable, Codable {
        /// `student` or `teacher`.
        public var role: String
        public var accountID: UUID
        public var classID: UUID
        public var className: String
        /// For a student, the class's teacher's recipient public key, as ``JoinAnswer`` has it.
        public var teacherKey: Data?

        public init(role: String, accountID: UUID, classID: UUID, className: String, teacherKey: Data?) {
            self.role = role
            self.accountID = accountID
            self.classID = classID
            self.className = className
            self.teacherKey = teacherKey
        }
    }

    /// `POST /v1/sync`: operations on the student's assigned work, in the order they were made.
    public struct SyncRequest: Sendable, Equatable, Codable {
        public var classID: UUID
        package var operations: [SyncOperation]

        package init(classID: UUID, operations: [SyncOperation]) {
            self.classID = classID
            self.operations = operations
        }
    }

    /// The answer to a sync: every operation of the request is acknowledged, applied now or
    /// already before.
    public struct SyncAnswer: Sendable, Equatable, Codable {
        /// How many were applied now.
        public var applied: Int
        /// How many had been applied before (a retry of a request whose answer was lost).
        public var repeated: Int

        public init(applied: Int, repeated: Int) {
            self.applied = applied
            self.repeated = repeated
        }
    }

    /// `POST /v1/classes/{id}/handouts`: a teacher registers the assignments of their handouts
    /// with a class, or updates them. A class's report shows what its teacher registered (never
    /// what a student's work says), and the server takes students' work only on assignments the
    /// class has: registered handouts and catalog assignments.
    public struct HandoutRequest: Sendable, Equatable, Codable {
        public var handouts: [Handout]

        public init(handouts: [Handout]) {
            self.handouts = handouts
        }

        /// One handout's assignment: its identifier and what the report shows of it.
        public struct Handout: Sendable, Equatable, Codable {
            public var identifier: String
            package var assignment: SyncOperation.AssignmentInfo

            package init(identifier: String, assignment: SyncOperation.AssignmentInfo) {
                self.identifier = identifier
                self.assignment = assignment
            }
        }
    }

    /// The answer to a registration of handouts.
    public struct HandoutAnswer: Sendable, Equatable, Codable {
        /// How many assignments the class has now from handouts.
        public var registered: Int

        public init(registered: Int) {
            self.registered = registered
        }
    }

    /// A class as its teacher or a student sees it (`GET /v1/classes`).
    public struct ClassEntry: Sendable, Equatable, Codable {
        public var id: UUID
        public var name: String
        /// Whether the caller teaches it (else they joined it).
        public var isTaught: Bool

        public init(id: UUID, name: String, isTaught: Bool) {
            self.id = id
            self.name = name
            self.isTaught = isTaught
        }
    }

    /// An assignment a teacher made from a context of the server's catalog, as the class's
    /// students receive it (`GET /v1/classes/{id}/assignments`): the work of every activity at or
    /// below ``identifierPath`` reports to it.
    public struct ClassAssignment: Sendable, Equatable, Codable {
        public var id: UUID
        public var title: String
        public var dueDate: Date?
        public var instructions: String?
        /// The publishing team whose catalog the context is in.
        public var team: String
        /// The assigned context's identifier path, below the app's main context.
        public var identifierPath: [String]
        /// The assigned context's ancestors, itself and its descendants as the catalog held them
        /// when it was assigned, parents first, in a course manifest's shape: what a student's
        /// store imports, so that the contexts have their titles and metadata.
        public var contexts: [CourseManifest.Entry]
        public var createdAt: Date

        public init(
            id: UUID, title: String, dueDate: Date?, instructions: String?, team: String,
            identifierPath: [String], contexts: [CourseManifest.Entry], createdAt: Date
        ) {
            self.id = id
            self.title = title
            self.dueDate = dueDate
            self.instructions = instructions
            self.team = team
            self.identifierPath = identifierPath
            self.contexts = contexts
            self.createdAt = createdAt
        }
    }

    /// Every refusal: an id to find it in the server's log, a stable code, and what to do.
    public struct ErrorAnswer: Sendable, Equatable, Codable {
        public var id: UUID
        public var code: String
        public var message: String
        /// For `unknownAssignment`: the assignments the class does not have, whose work waits.
        public var assignments: [String]?

        public init(id: UUID = UUID(), code: String, message: String, assignments: [String]? = nil) {
            self.id = id
            self.code = code
            self.message = message
            self.assignments = assignments
        }
    }

    /// The encoder both sides use.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    /// The decoder both sides use.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
