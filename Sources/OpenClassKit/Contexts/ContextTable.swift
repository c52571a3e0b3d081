import Foundation
import ProgramBasics
internal import GRDB

/// The SQL of the context tree, run inside a transaction that ``SQLiteStorage`` opens: contexts
/// with their metadata, and the active context.
enum ContextTable {
    private static let columns = """
        id, parent_id, identifier, type, title, path, created_at, modified_at, custom_type_name, display_order, topic,
        summary, thumbnail, is_assignable, suggested_age_from, suggested_age_length, suggested_time_from,
        suggested_time_length, capabilities, universal_link
        """

    /// Whether a context is one of the app's (a course's document included), not a plain file's.
    private static func isAppContext(_ alias: String = "") -> String {
        let column = alias.isEmpty ? "" : alias + "."
        return "(\(column)path IS NULL OR \(column)course_document = 1)"
    }

    /// The row of the main app context, made when missing.
    static func rootID(appIdentifier: String, in db: Database) throws -> Int64 {
        if let id = try Int64.fetchOne(
            db, sql: "SELECT id FROM context WHERE parent_id IS NULL AND identifier = ?",
            arguments: [appIdentifier])
        {
            return id
        }
        let now = Date().timeIntervalSince1970
        try db.execute(
            sql: """
                INSERT INTO context (parent_id, identifier, type, title, created_at, modified_at)
                VALUES (NULL, ?, ?, ?, ?, ?)
                """, arguments: [appIdentifier, CLSContextType.app.rawValue, appIdentifier, now, now])
        return db.lastInsertedRowID
    }

    static func child(of parentID: Int64, identifier: String, in db: Database) throws -> ContextRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(columns) FROM context WHERE parent_id = ? AND identifier = ?"),
            arguments: [parentID, identifier]
        ).map(record(from:))
    }

    /// The children of a context that are not plain file contexts, in display order.
    static func children(of parentID: Int64, in db: Database) throws -> [ContextRecord] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns) FROM context WHERE parent_id = ? AND \(isAppContext()) ORDER BY display_order, identifier
                """, arguments: [parentID]
        ).map(record(from:))
    }

    /// Every app context below a root (not plain file contexts), parents before children.
    static func tree(under rootID: Int64, in db: Database) throws -> [ContextRecord] {
        try Row.fetchAll(
            db,
            sql: """
                WITH RECURSIVE down(id, depth) AS (
                    SELECT id, 0 FROM context WHERE parent_id = ? AND \(isAppContext())
                    UNION ALL SELECT c.id, down.depth + 1 FROM context c JOIN down ON c.parent_id = down.id WHERE \(isAppContext("c")))
                SELECT \(columns.split(separator: ",").map { "c." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", "))
                FROM down JOIN context c ON c.id = down.id ORDER BY down.depth, c.display_order, c.identifier
                """, arguments: [rootID]
        ).map(record(from:))
    }

    /// A context and its ancestors, the root first.
    static func chain(to id: Int64, in db: Database) throws -> [ContextRecord] {
        try Row.fetchAll(
            db,
            sql: """
                WITH RECURSIVE up(id, depth) AS (SELECT ?, 0 UNION ALL SELECT c.parent_id, up.depth + 1 FROM context c JOIN up ON c.id = up.id WHERE c.parent_id IS NOT NULL)
                SELECT \(columns.split(separator: ",").map { "c." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", "))
                FROM up JOIN context c ON c.id = up.id ORDER BY up.depth DESC
                """, arguments: [id]
        ).map(record(from:))
    }

    /// Writes context changes in order; returns the row of each insert (nil for the others).
    static func save(_ changes: [ContextChange], in db: Database) throws -> [Int64?] {
        var rows: [Int64?] = []
        for change in changes {
            let m = change.metadata
            let capabilities = m.capabilities.isEmpty ? nil : String(decoding: try JSONEncoder().encode(m.capabilities), as: UTF8.self)
            let values: [(any DatabaseValueConvertible)?] = [
                change.identifier, change.type.rawValue, change.title, m.customTypeName, m.displayOrder, m.topic?.rawValue,
                m.summary, m.thumbnail, m.isAssignable, m.suggestedAge.location, m.suggestedAge.length,
                m.suggestedCompletionTime.location, m.suggestedCompletionTime.length, capabilities,
                m.universalLinkURL?.absoluteString, Date().timeIntervalSince1970
            ]
            switch change.kind {
            case .insert(let parentID, let parentIndex):
                guard let parent = parentID ?? parentIndex.flatMap({ rows[$0] }) else {
                    throw CLSError(
                        .invalidCreate,
                        "the context '\(change.identifier)' has no saved parent; add it to a context of the data store's tree")
                }
                if try child(of: parent, identifier: change.identifier, in: db) != nil {
                    throw CLSError(
                        .invalidCreate,
                        "a context '\(change.identifier)' already exists under the same parent; identifiers are unique among siblings: fetch it with contexts(matchingIdentifierPath:) instead of making another"
                    )
                }
                try db.execute(
                    sql: """
                        INSERT INTO context (identifier, type, title, custom_type_name, display_order, topic, summary, thumbnail,
                            is_assignable, suggested_age_from, suggested_age_length, suggested_time_from, suggested_time_length,
                            capabilities, universal_link, modified_at, parent_id, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: StatementArguments(values + [parent, change.createdAt]))
                rows.append(db.lastInsertedRowID)
            case .update(let id):
                try db.execute(
                    sql: """
                        UPDATE context SET identifier = ?, type = ?, title = ?, custom_type_name = ?, display_order = ?, topic = ?,
                            summary = ?, thumbnail = ?, is_assignable = ?, suggested_age_from = ?, suggested_age_length = ?,
                            suggested_time_from = ?, suggested_time_length = ?, capabilities = ?, universal_link = ?, modified_at = ?
                        WHERE id = ?
                        """, arguments: StatementArguments(values + [id]))
                rows.append(nil)
            case .delete(let id):
                try db.execute(sql: "DELETE FROM context WHERE id = ?", arguments: [id])
                rows.append(nil)
            }
        }
        return rows
    }

    // MARK: Documents of courses

    /// Moves a file's record from the context that holds it (a plain file context) into an app
    /// context: its attempts follow the app context's own, its assignment goes along, and the app
    /// context takes the file's path.
    static func moveDocument(_ file: FileIdentity, from holder: Int64, to contextID: Int64, in db: Database) throws {
        let display = PathBytes.display(file.path)
        func pathName(_ id: Int64) throws -> String { try chain(to: id, in: db).map(\.identifier).dropFirst().joined(separator: "/") }
        if try Bool.fetchOne(db, sql: "SELECT course_document FROM context WHERE id = ?", arguments: [holder]) == true {
            throw CLSError(
                .invalidArgument,
                "\(display) is already the document of the context \(try pathName(holder)); a document belongs to one context: name it once in the manifest"
            )
        }
        let assigned =
            try Int.fetchOne(db, sql: "SELECT count(*) FROM assignment WHERE context_id IN (?, ?)", arguments: [holder, contextID]) ?? 0
        if assigned > 1 {
            throw CLSError(
                .invalidArgument,
                "\(display) and the context \(try pathName(contextID)) are assigned apart; remove one of the assignments (clsfile assignments) before tying the document to the context"
            )
        }
        try db.execute(sql: "UPDATE assignment SET context_id = ? WHERE context_id = ?", arguments: [contextID, holder])
        let offset =
            try Int.fetchOne(db, sql: "SELECT coalesce(max(attempt), 0) FROM activity WHERE context_id = ?", arguments: [contextID]) ?? 0
        try db.execute(
            sql: "UPDATE activity SET context_id = ?, attempt = attempt + ? WHERE context_id = ?",
            arguments: [contextID, offset, holder])
        try db.execute(sql: "DELETE FROM context WHERE id = ?", arguments: [holder])
        try db.execute(
            sql: """
                UPDATE context SET path = ?, device = ?, inode = ?, course_document = 1, modified_at = ? WHERE id = ?
                """,
            arguments: [
                Data(file.path), Int64(bitPattern: file.device), Int64(bitPattern: file.inode),
                Date().timeIntervalSince1970, contextID
            ])
        // Its attempts were renumbered: a class server's copy starts again from what it holds.
        try OutboxTable.enqueueSnapshot(ofContext: contextID, at: Date().timeIntervalSince1970, in: db)
    }

    // MARK: The active context

    /// Makes a context the active one, owned by a process.
    static func setActive(_ id: Int64, owner: ProcessIdentity, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO active_context (slot, context_id, owner_host, owner_boot, owner_pid, owner_start)
                VALUES (1, ?, ?, ?, ?, ?)
                """, arguments: [id, owner.host, owner.bootID, owner.pid, owner.startTicks])
    }

    /// Ends a context's being active, when a process made it so.
    static func resignActive(_ id: Int64, owner: ProcessIdentity, in db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM active_context WHERE context_id = ? AND owner_pid = ? AND owner_start = ? AND owner_boot = ?
                """, arguments: [id, owner.pid, owner.startTicks, owner.bootID])
    }

    /// The active context, unless the process that made it active is gone (then it is cleared).
    static func active(in db: Database) throws -> Int64? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM active_context") else { return nil }
        let owner = ProcessIdentity(
            host: row["owner_host"], bootID: row["owner_boot"], pid: row["owner_pid"],
            startTicks: row["owner_start"])
        if owner.isKnownDead {
            try db.execute(sql: "DELETE FROM active_context")
            return nil
        }
        return row["context_id"]
    }

    private static func record(from row: Row) -> ContextRecord {
        var metadata = ContextMetadata()
        metadata.customTypeName = row["custom_type_name"]
        metadata.displayOrder = row["display_order"] ?? 0
        metadata.topic = (row["topic"] as String?).map(CLSContextTopic.init(rawValue:))
        metadata.summary = row["summary"]
        metadata.thumbnail = row["thumbnail"]
        metadata.isAssignable = row["is_assignable"] ?? true
        if let from: Int = row["suggested_age_from"], let length: Int = row["suggested_age_length"] {
            metadata.suggestedAge = NSRange(location: from, length: length)
        }
        if let from: Int = row["suggested_time_from"], let length: Int = row["suggested_time_length"] {
            metadata.suggestedCompletionTime = NSRange(location: from, length: length)
        }
        if let json: String = row["capabilities"] {
            metadata.capabilities = (try? JSONDecoder().decode([ContextMetadata.Capability].self, from: Data(json.utf8))) ?? []
        }
        metadata.universalLinkURL = (row["universal_link"] as String?).flatMap(URL.init(string:))
        return ContextRecord(
            id: row["id"], parentID: row["parent_id"], identifier: row["identifier"],
            type: CLSContextType(rawValue: row["type"]) ?? .none, title: row["title"],
            path: (row["path"] as Data?).map { [UInt8]($0) }, metadata: metadata,
            createdAt: row["created_at"], modifiedAt: row["modified_at"])
    }
}
