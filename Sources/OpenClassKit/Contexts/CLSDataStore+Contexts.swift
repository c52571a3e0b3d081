import Foundation

extension CLSDataStore {
    /// Makes the contexts that ``contexts(matchingIdentifierPath:)`` finds missing. Held weakly,
    /// as ClassKit holds it.
    public var delegate: (any CLSDataStoreDelegate)? {
        get { contextTree.delegate }
        set { contextTree.delegate = newValue }
    }

    /// Fills a context's children the first time they are asked for and not in the store. Held
    /// weakly. Not a property in ClassKit, where the provider is an app extension.
    public var contextProvider: (any CLSContextProvider)? {
        get { contextTree.provider }
        set { contextTree.provider = newValue }
    }

    /// Every context along an identifier path, the first below the main app context first: read
    /// from the store, else made by the ``delegate``, which is asked once for each missing
    /// identifier, parent first. What the delegate makes is saved before this returns. When the
    /// delegate makes nothing for an identifier, the contexts found up to it are returned.
    /// - Parameter identifierPath: The identifiers, from the main app context's child down; a path
    ///   that starts with the main app context's identifier is taken from there.
    /// - Throws: ``CLSError`` `.limits` for a path past ClassKit's limits (8 levels with the main
    ///   app context, 256 characters), `.invalidCreate` when the delegate made a context of another
    ///   identifier, `.databaseInaccessible` when the store cannot be used.
    public func contexts(matchingIdentifierPath identifierPath: [String]) async throws -> [CLSContext] {
        var path = identifierPath
        if path.first == mainAppContext.identifier { path.removeFirst() }
        let length = path.reduce(mainAppContext.identifier.count) { $0 + $1.count }
        guard path.count + 1 <= CLSContext.maximumDepth, length <= CLSContext.maximumPathLength else {
            throw CLSError(
                .limits,
                "the identifier path \(([mainAppContext.identifier] + path).joined(separator: "/")) has \(path.count + 1) levels and \(length) characters; ClassKit allows at most \(CLSContext.maximumDepth) levels and \(CLSContext.maximumPathLength) characters"
            )
        }
        return try await contextTree.contexts(along: path, from: mainAppContext)
    }

    /// Finds the contexts along an identifier path, then calls a completion handler that may run
    /// on any thread.
    public func contexts(
        matchingIdentifierPath identifierPath: [String],
        completion: @escaping @Sendable ([CLSContext], (any Error)?) -> Void
    ) {
        Task {
            do { completion(try await contexts(matchingIdentifierPath: identifierPath), nil) } catch { completion([], error) }
        }
    }

    /// The app's contexts (not those of files) that a predicate accepts, parents before children.
    ///
    /// On Linux the predicate is a block (`NSPredicate { context, _ in … }`), called with each
    /// ``CLSContext``: swift-corelibs-foundation has no predicate format strings, so ClassKit's
    /// `CLSPredicateKeyPath` forms cannot be used here.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read.
    public func contexts(matching predicate: NSPredicate) async throws -> [CLSContext] {
        guard let rootID = try await contextTree.rowID(of: mainAppContext) else { return [] }
        var placed: [Int64: CLSContext] = [rootID: mainAppContext]
        var found: [CLSContext] = []
        for record in try await storage.contextTree(under: rootID) {
            guard let parentID = record.parentID, let parent = placed[parentID] else { continue }
            let context = parent.adoptStoredChild(record, tree: contextTree)
            placed[record.id] = context
            if predicate.evaluate(with: context) { found.append(context) }
        }
        return found
    }

    /// Finds the contexts a predicate accepts, then calls a completion handler that may run on any thread.
    public func contexts(matching predicate: NSPredicate, completion: @escaping @Sendable ([CLSContext], (any Error)?) -> Void) {
        nonisolated(unsafe) let predicate = predicate
        Task {
            do { completion(try await contexts(matching: predicate), nil) } catch { completion([], error) }
        }
    }

    /// The current activity (newest attempt) of every context below a context that has one, its
    /// descendants' included, in one read: what ``CLSContext/currentActivity`` gives for each,
    /// without a read per context. Not part of ClassKit.
    /// - Parameter context: The context to look below; the main app context by default.
    /// - Throws: ``CLSError`` `.databaseInaccessible` when the store cannot be read.
    public func currentActivities(below context: CLSContext? = nil) async throws -> [CLSActivity] {
        guard let rowID = try await contextTree.rowID(of: context ?? mainAppContext) else { return [] }
        return try await storage.currentActivities(below: rowID).map(instance(for:))
    }

    /// Removes a context from the tree; the next save removes it, its descendants and their
    /// activities from the store.
    public func remove(_ context: CLSContext) {
        context.removeFromParent()
    }

    /// The context the person is working in: the one made active last (``CLSContext/becomeActive()``)
    /// by a process that is still running, read from the store at once; nil when there is none.
    /// When the store cannot be read, it is nil and the failure goes to the handler of
    /// ``reportExitFailures(to:)``.
    public var activeContext: CLSContext? {
        let chain: [ContextRecord]
        do { chain = try storage.activeContextChainNow() } catch {
            SpanHandover.report(error as? CLSError ?? CLSError(.databaseInaccessible, "reading the active context failed: \(error)"))
            return nil
        }
        guard let root = chain.first, root.identifier == mainAppContext.identifier else { return nil }
        if mainAppContext.rowID == nil { mainAppContext.rowID = root.id }
        var context = mainAppContext
        for record in chain.dropFirst() { context = context.adoptStoredChild(record, tree: contextTree) }
        return context === mainAppContext ? nil : context
    }
}
