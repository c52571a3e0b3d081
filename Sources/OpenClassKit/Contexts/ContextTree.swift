import Foundation
internal import NIOConcurrencyHelpers

/// The context tree of one data store: reads children from the store when first asked for, asks
/// the delegate and the provider for what is missing, and keeps changed contexts until a save.
final class ContextTree: Sendable {
    let storage: SQLiteStorage
    let appIdentifier: String
    /// The data store's activities, reached from contexts as from files.
    let instances = ActivityInstances()

    private struct State {
        var changed: [ObjectIdentifier: CLSContext] = [:]
        var removed: [ObjectIdentifier: CLSContext] = [:]
        /// Contexts whose children the provider filled already.
        var provided: Set<Int64> = []
    }

    private let state = NIOLockedValueBox(State())
    /// Held while a missing context is made, so that the delegate is asked once for each.
    private let making = NIOLockedValueBox(())
    /// One save at a time: a context saved by one must have its row before another saves its children.
    private let saving = SaveTurn()

    init(storage: SQLiteStorage, appIdentifier: String) {
        self.storage = storage
        self.appIdentifier = appIdentifier
    }

    // The app's delegate and provider are its own objects, not Sendable: they are read and
    // written only under `references`, and called as ClassKit calls them.
    nonisolated(unsafe) private weak var storedDelegate: (any CLSDataStoreDelegate)?
    nonisolated(unsafe) private weak var storedProvider: (any CLSContextProvider)?
    private let references = NIOLockedValueBox(())

    var delegate: (any CLSDataStoreDelegate)? {
        get { references.withLockedValue { _ in storedDelegate } }
        set { references.withLockedValue { _ in storedDelegate = newValue } }
    }

    var provider: (any CLSContextProvider)? {
        get { references.withLockedValue { _ in storedProvider } }
        set { references.withLockedValue { _ in storedProvider = newValue } }
    }

    func markChanged(_ context: CLSContext) {
        state.withLockedValue { $0.changed[ObjectIdentifier(context)] = context }
    }

    func markRemoved(_ context: CLSContext) {
        state.withLockedValue { state in
            state.changed[ObjectIdentifier(context)] = nil
            state.removed[ObjectIdentifier(context)] = context
        }
    }

    var hasChanges: Bool { state.withLockedValue { !$0.changed.isEmpty || !$0.removed.isEmpty } }

    // MARK: Reading

    /// The store row of a context; the main app context's is made when missing.
    func rowID(of context: CLSContext) async throws -> Int64? {
        if let id = context.rowID { return id }
        guard context.parent == nil, context.type == .app, context.identifier == appIdentifier else { return nil }
        let id = try await storage.rootContext(appIdentifier: appIdentifier)
        context.rowID = id
        return id
    }

    /// A child of a context by identifier, from the store, else from the provider; nil when neither has it.
    func storedChild(_ identifier: String, of parent: CLSContext) async throws -> CLSContext? {
        guard let parentID = try await rowID(of: parent) else { return nil }
        if let record = try await storage.childContext(of: parentID, identifier: identifier) {
            return parent.adoptStoredChild(record, tree: self)
        }
        guard let provider, state.withLockedValue({ $0.provided.insert(parentID).inserted }) else { return nil }
        try await provider.updateDescendants(of: parent)
        try await save()
        return parent.loadedChild(identifier)
    }

    /// Every context along a path below `root`, asking the delegate for each missing one, parent
    /// first, and saving what it made.
    func contexts(along path: [String], from root: CLSContext) async throws -> [CLSContext] {
        var found: [CLSContext] = []
        var parent = root
        for identifier in path {
            var child = try await parent.child(identifier)
            if child == nil {
                child = try makeChild(identifier, of: parent)
                if child != nil { try await save() }
            }
            guard let child else { break }
            found.append(child)
            parent = child
        }
        return found
    }

    /// Asks the delegate for one missing context and adds it, unless another call made it meanwhile.
    private func makeChild(_ identifier: String, of parent: CLSContext) throws -> CLSContext? {
        try making.withLockedValue { _ in
            if let made = parent.loadedChild(identifier) { return made }
            guard let delegate else { return nil }
            guard
                let child = delegate.createContext(
                    forIdentifier: identifier, parentContext: parent,
                    parentIdentifierPath: parent.identifierPath)
            else { return nil }
            guard child.identifier == identifier else {
                throw CLSError(
                    .invalidCreate,
                    "the delegate was asked for '\(identifier)' under \(parent.identifierPath.joined(separator: "/")) and made '\(child.identifier)'; a context made for an identifier must have it",
                    object: child)
            }
            if child.parent !== parent { parent.addChildContext(child) }
            return child
        }
    }

    // MARK: Saving

    /// Writes every changed, new and removed context in one transaction, parents before children.
    /// - Throws: ``CLSError`` `.limits` for a context past ClassKit's limits (nothing is written,
    ///   and the changes stay pending), or the store's error.
    func save() async throws {
        // Most saves (every hook call) change no context: no turn to wait for.
        guard hasChanges else { return }
        await saving.begin()
        do {
            try await saveChanges()
            await saving.end()
        } catch {
            await saving.end()
            throw error
        }
    }

    private func saveChanges() async throws {
        let (changed, removed) = state.withLockedValue { state -> ([CLSContext], [CLSContext]) in
            defer {
                state.changed = [:]
                state.removed = [:]
            }
            return (Array(state.changed.values), Array(state.removed.values))
        }
        guard !changed.isEmpty || !removed.isEmpty else { return }
        do {
            let ordered = changed.filter { $0.parent != nil || $0.rowID != nil }
                .sorted { $0.identifierPath.count < $1.identifierPath.count }
            var batch: [ContextChange] = []
            var inserted: [(CLSContext, Int)] = []
            var newIndex: [ObjectIdentifier: Int] = [:]
            for context in ordered {
                try Self.checkLimits(of: context)
                var kind = ContextChange.Kind.update(id: context.rowID ?? 0)
                if context.rowID == nil {
                    guard let parent = context.parent else { continue }
                    let parentID = try await rowID(of: parent)
                    kind = .insert(parentID: parentID, parentIndex: newIndex[ObjectIdentifier(parent)])
                    newIndex[ObjectIdentifier(context)] = batch.count
                    inserted.append((context, batch.count))
                }
                batch.append(
                    ContextChange(
                        kind: kind, identifier: context.identifier, type: context.type, title: context.title,
                        metadata: context.metadata, createdAt: context.dateCreated.timeIntervalSince1970))
            }
            for context in removed {
                if let id = context.rowID {
                    batch.append(
                        ContextChange(
                            kind: .delete(id: id), identifier: context.identifier,
                            type: context.type, title: context.title,
                            metadata: context.metadata, createdAt: 0))
                }
            }
            let rows = try await storage.saveContexts(batch)
            for (context, index) in inserted { context.rowID = rows[index] }
            for context in removed { context.rowID = nil }
        } catch {
            state.withLockedValue { state in
                for context in changed { state.changed[ObjectIdentifier(context)] = context }
                for context in removed { state.removed[ObjectIdentifier(context)] = context }
            }
            throw error
        }
    }

    /// ClassKit's limits: 8 levels and 256 characters of path, 256 of an identifier or title,
    /// 4,000 of a summary, and a PNG or JPEG thumbnail of 80 to 330 pixels a side and at most
    /// 1 MiB, whose every pixel decodes.
    static func checkLimits(of context: CLSContext) throws {
        let path = context.identifierPath
        func refuse(_ what: String) -> CLSError {
            CLSError(.limits, "the context \(path.joined(separator: "/")) \(what); it was not saved", object: context)
        }
        guard path.count <= CLSContext.maximumDepth else {
            throw refuse("is \(path.count) levels deep; a tree has at most \(CLSContext.maximumDepth), the main app context included")
        }
        let length = path.reduce(0) { $0 + $1.count }
        guard length <= CLSContext.maximumPathLength else {
            throw refuse("has an identifier path of \(length) characters; at most \(CLSContext.maximumPathLength)")
        }
        guard context.identifier.count <= CLSContext.maximumIdentifierLength, context.title.count <= CLSContext.maximumIdentifierLength
        else {
            throw refuse("has an identifier or title longer than \(CLSContext.maximumIdentifierLength) characters")
        }
        if let summary = context.summary, summary.count > CLSContext.maximumSummaryLength {
            throw refuse("has a summary of \(summary.count) characters; at most \(CLSContext.maximumSummaryLength)")
        }
        if let thumbnail = context.thumbnail, let problem = ThumbnailImage.problem(with: thumbnail) {
            throw refuse("cannot keep its thumbnail: \(problem)")
        }
    }

    // MARK: The active context

    func setActive(_ id: Int64) -> Bool {
        do {
            try storage.setActiveContextNow(id)
            return true
        } catch {
            SpanHandover.report(error as? CLSError ?? CLSError(.databaseInaccessible, "making a context active failed: \(error)"))
            return false
        }
    }

    func resignActive(_ id: Int64) {
        do { try storage.resignActiveContextNow(id) } catch {
            SpanHandover.report(error as? CLSError ?? CLSError(.databaseInaccessible, "resigning the active context failed: \(error)"))
        }
    }
}

/// Turns for ``ContextTree/save()``: one at a time, in the order they came.
private actor SaveTurn {
    private var isTaken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func begin() async {
        guard isTaken else {
            isTaken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func end() {
        if waiting.isEmpty {
            isTaken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
