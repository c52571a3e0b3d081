import Foundation

/// The class server a student's store syncs to, and how the last sync went. Not part of ClassKit.
///
/// Set by ``CLSDataStore/joinClassServer(_:)`` once the server accepted the join code; from then
/// on every save of an assigned document's activity also writes a ``SyncOperation`` to the
/// store's outbox.
public struct ClassServerMembership: Sendable, Equatable {
    /// The server's address, such as `https://class.example.org`.
    public var serverURL: URL
    /// The student's account on the server.
    public var accountID: UUID
    /// The class joined.
    public var classID: UUID
    public var className: String
    public var joinedAt: Date
    /// When a sync last reached the server; nil before the first.
    public var lastSyncAt: Date?
    /// Why the last sync failed; nil when it succeeded.
    public var lastError: String?

    /// Creates a membership as the server answered a join.
    public init(serverURL: URL, accountID: UUID, classID: UUID, className: String, joinedAt: Date = Date(),
                lastSyncAt: Date? = nil, lastError: String? = nil) {
        self.serverURL = serverURL
        self.accountID = accountID
        self.classID = classID
        self.className = className
        self.joinedAt = joinedAt
        self.lastSyncAt = lastSyncAt
        self.lastError = lastError
    }
}

/// An operation waiting in the outbox, with its place in the queue.
public struct OutboxEntry: Sendable, Equatable {
    /// Its place: entries are sent in this order and acknowledged by it.
    public var sequence: Int64
    /// The class joined when it was made, which it is sent to.
    public var classID: UUID
    public var operation: SyncOperation
}
