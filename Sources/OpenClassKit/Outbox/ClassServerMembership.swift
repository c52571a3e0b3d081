import Foundation

/// A class a student's store joined on a class server, and how the last sync went. Not part of ClassKit.
///
/// Set by ``CLSDataStore/joinClassServer(_:)`` once the server accepted the join code; from then
/// on every save of the activity of a document assigned by the class's teacher also writes a
/// ``SyncOperation`` for the class to the store's outbox.
package struct ClassServerMembership: Sendable, Equatable {
    /// The server's address, such as `https://class.example.org`.
    package var serverURL: URL
    /// The student's account on the server.
    package var accountID: UUID
    /// The class joined.
    package var classID: UUID
    package var className: String
    /// The recipient package key of the class's teacher (P-256, X9.63), as their handouts carry
    /// it: only the work of assignments handed out with this key goes to the class. Nil for a
    /// class joined before classes were tied to their teacher, which gets every assignment's work.
    package var teacherKey: Data?
    package var joinedAt: Date
    /// When a sync last reached the server; nil before the first.
    package var lastSyncAt: Date?
    /// Why the last sync failed; nil when it succeeded.
    package var lastError: String?

    /// Creates a membership as the server answered a join.
    package init(
        serverURL: URL, accountID: UUID, classID: UUID, className: String, teacherKey: Data?,
        joinedAt: Date = Date(), lastSyncAt: Date? = nil, lastError: String? = nil
    ) {
        self.serverURL = serverURL
        self.accountID = accountID
        self.classID = classID
        self.className = className
        self.teacherKey = teacherKey
        self.joinedAt = joinedAt
        self.lastSyncAt = lastSyncAt
        self.lastError = lastError
    }
}

/// An operation waiting in the outbox, with its place in the queue.
package struct OutboxEntry: Sendable, Equatable {
    /// Its place: entries are sent in this order and acknowledged by it.
    package var sequence: Int64
    /// The class joined when it was made, which it is sent to.
    package var classID: UUID
    package var operation: SyncOperation
}
