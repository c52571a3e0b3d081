/// Where a data store keeps its activities. ``SQLiteStorage`` is the real one; the protocol leaves
/// room for another backend, such as a class server.
protocol ActivityStorage: Sendable {
    /// Reads the current activity of a file, creating its context and activity when it has none.
    /// A file that moved (same device and inode, old path gone) takes its history along.
    func activity(for file: FileIdentity) async throws -> ActivityRecord

    /// Reads the current activity of a file, or nil when the file has none; writes nothing.
    func existingActivity(for file: FileIdentity) async throws -> ActivityRecord?

    /// Reads every file activity.
    func allActivities() async throws -> [ActivityRecord]

    /// Writes every change in one transaction, all or nothing, merging with what other processes
    /// saved, and returns what the store then holds for each activity, in the same order.
    func save(_ changes: [ActivityChanges]) async throws -> [ActivityRecord]
}
