import Foundation
internal import GRDB

/// Assignments of context trees (``Assignment/coversContextTree``): a teacher assigned a context
/// of a class server's catalog, and every context at or below it that has work reports to an
/// assignment of its own, derived from the assigned one.
extension ClassroomTables {
    /// Records an assignment of a context tree as accepted, and derives the assignment of every
    /// context at or below its path that has work and no assignment yet; returns how many there
    /// are now. Accepting it again changes nothing but what new work calls for.
    static func acceptContextTree(_ assignment: Assignment, in db: Database) throws -> Int {
        guard assignment.coversContextTree, let path = assignment.contextPath, !path.isEmpty else {
            throw CLSError(
                .invalidArgument,
                "assignment \(assignment.identifier) names no context tree; only an assignment of a catalog's context can be accepted this way"
            )
        }
        if let existing = try Self.assignment(identifier: assignment.identifier, in: db) {
            guard existing.teacherKey == assignment.teacherKey, existing.coversContextTree, existing.contextPath == path else {
                throw CLSError(
                    .invalidModification,
                    "assignment \(assignment.identifier) is already in the store as another assignment (another context or teacher key); an assignment's identifier cannot be reused"
                )
            }
        } else {
            try insert(assignment, contextID: nil, acceptedAt: Date().timeIntervalSince1970, in: db)
        }
        let contexts = try Int64.fetchAll(db, sql: "SELECT DISTINCT context_id FROM activity ORDER BY context_id")
        var count = 0
        for contextID in contexts {
            if let derived = try Self.assignment(contextID: contextID, in: db) {
                if derived.identifier.hasPrefix(Self.derivedPrefix), derived.contextPath == path { count += 1 }
                continue
            }
            guard try derive(forContext: contextID, in: db) != nil else { continue }
            count += 1
            // The context's work so far is the assignment's now: a class server gets all of it.
            try OutboxTable.enqueueSnapshot(ofContext: contextID, at: Date().timeIntervalSince1970, in: db)
        }
        return count
    }

    /// Whether the store holds an accepted assignment of a context tree: one indexed look-up,
    /// what a save of unassigned work asks before anything else.
    static func hasContextTreeAssignments(in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM assignment WHERE covers_context_tree = 1 AND accepted_at IS NOT NULL)
                    """)) ?? false
    }

    /// The assignment of a context with no assignment, derived from the accepted context-tree
    /// assignment whose path is the longest at or above the context's path (below its app's main
    /// context); nil when none covers it. Its identifier is the same on every student's machine
    /// for the same app's context, so the class report puts their work together.
    static func derive(forContext contextID: Int64, in db: Database) throws -> Assignment? {
        let chain = try ContextTable.chain(to: contextID, in: db)
        guard chain.count >= 2, let app = chain.first, let context = chain.last else { return nil }
        let identifiers = chain.dropFirst().map(\.identifier)
        let covering = try Row.fetchAll(
            db,
            sql: """
                SELECT id FROM assignment WHERE covers_context_tree = 1 AND accepted_at IS NOT NULL ORDER BY created_at, id
                """
        ).compactMap { try Self.assignment(identifier: $0["id"], in: db) }
            .filter { identifiers.starts(with: $0.contextPath ?? [""]) }
            .max { ($0.contextPath?.count ?? 0) < ($1.contextPath?.count ?? 0) }
        guard let covering, let path = covering.contextPath else { return nil }
        let below = identifiers.dropFirst(path.count)
        let name = ([covering.identifier, app.identifier] + identifiers).joined(separator: "\u{0}")
        var derived = covering
        derived.identifier = Self.derivedPrefix + NameBasedUUID.version5(name, namespace: Self.namespace)
        derived.title = below.isEmpty ? covering.title : "\(covering.title): \(context.title)"
        derived.documentName = below.isEmpty ? path[path.count - 1] : below.joined(separator: "/")
        derived.coversContextTree = false
        if try Self.assignment(identifier: derived.identifier, in: db) != nil {
            // Derived before for a context removed since (its tie was cleared): tied again. One
            // still tied elsewhere (its document moved) stays there.
            try db.execute(
                sql: "UPDATE assignment SET context_id = ? WHERE id = ? AND context_id IS NULL", arguments: [contextID, derived.identifier])
            guard db.changesCount > 0 else { return nil }
        } else {
            try insert(derived, contextID: contextID, acceptedAt: Date().timeIntervalSince1970, in: db)
        }
        return derived
    }

    /// What every derived assignment's identifier starts with.
    static let derivedPrefix = "ctx-"

    /// The namespace of derived assignments' identifiers. Fixed forever: changing it would split
    /// a context's work between two assignments.
    private static let namespace: [UInt8] = [
        0x3c, 0x9a, 0x51, 0x0e, 0x7d, 0x24, 0x4b, 0x8e, 0x9f, 0x06, 0x12, 0xc4, 0x5b, 0xe0, 0x77, 0xa1
    ]
}
