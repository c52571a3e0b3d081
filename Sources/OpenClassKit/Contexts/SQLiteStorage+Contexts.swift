import Foundation
import ProgramBasics
internal import GRDB

/// The context tree's side of the store: each call is one transaction around ``ContextTable``.
extension SQLiteStorage {
    /// The row of the main app context, made when missing.
    func rootContext(appIdentifier: String) async throws -> Int64 {
        if let id = try await reading({ db in
            try Int64.fetchOne(db, sql: "SELECT id FROM context WHERE parent_id IS NULL AND identifier = ?", arguments: [appIdentifier])
        }) {
            return id
        }
        return try await writing { db in try ContextTable.rootID(appIdentifier: appIdentifier, in: db) }
    }

    /// The child of a context with an identifier, if stored.
    func childContext(of parentID: Int64, identifier: String) async throws -> ContextRecord? {
        try await reading { db in try ContextTable.child(of: parentID, identifier: identifier, in: db) }
    }

    /// The stored children of a context that are not file contexts.
    func childContexts(of parentID: Int64) async throws -> [ContextRecord] {
        try await reading { db in try ContextTable.children(of: parentID, in: db) }
    }

    /// Every app context below a root, parents before children.
    func contextTree(under rootID: Int64) async throws -> [ContextRecord] {
        try await reading { db in try ContextTable.tree(under: rootID, in: db) }
    }

    /// Writes context changes in one transaction; returns the row of each insert.
    func saveContexts(_ changes: [ContextChange]) async throws -> [Int64?] {
        try await writing { db in try ContextTable.save(changes, in: db) }
    }

    /// Makes a file the document of an app context: the context takes the file's path, and what
    /// was recorded for the file so far moves into it. Returns false when it was so already.
    func bindDocument(_ file: FileIdentity, toContext contextID: Int64) async throws -> Bool {
        let appIdentifier = self.appIdentifier
        return try await writing { db in
            // The context that holds the file now: its plain file context (made when it has none,
            // found by inode when it moved), or the app context it is bound to already.
            let holder = try ActivityTable.findOrCreate(file, appIdentifier: appIdentifier, in: db).contextID
            guard holder != contextID else { return false }
            try ContextTable.moveDocument(file, from: holder, to: contextID, in: db)
            return true
        }
    }

    /// Makes a context the active one for this process, at once, on the caller's thread.
    nonisolated func setActiveContextNow(_ id: Int64) throws {
        try writingNow { db in try ContextTable.setActive(id, owner: ProcessIdentity.current, in: db) }
    }

    /// Ends a context's being active for this process, at once.
    nonisolated func resignActiveContextNow(_ id: Int64) throws {
        try writingNow { db in try ContextTable.resignActive(id, owner: ProcessIdentity.current, in: db) }
    }

    /// The active context and its ancestors, root first, read at once; empty when none is active.
    nonisolated func activeContextChainNow() throws -> [ContextRecord] {
        try writingNow { db in try ContextTable.active(in: db).map { try ContextTable.chain(to: $0, in: db) } ?? [] }
    }
}
