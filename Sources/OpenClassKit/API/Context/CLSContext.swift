import Foundation
internal import NIOConcurrencyHelpers

/// A place in the app's content tree: the main app context at the root; below it the app's own
/// contexts (a book, its chapters, a quiz), and a document context for each file that has an
/// activity.
///
/// An app builds its tree with ``addChildContext(_:)``, or lets the data store build it through its
/// ``CLSDataStoreDelegate`` (``CLSDataStore/contexts(matchingIdentifierPath:)``). Changes to a
/// context in a data store's tree — a title, metadata, a new child, a removal — are written by the
/// store's next ``CLSDataStore/save()``.
///
/// File contexts are made by ``CLSDataStore/fetchActivity(for:)``; their ``identifier`` is the file's
/// canonical path and ``fileURL`` names the file.
///
/// `@unchecked Sendable`: every mutable property sits in one `NIOLockedValueBox`.
public final class CLSContext: CLSObject, @unchecked Sendable {
    /// The most levels of a tree, the main app context included, and the most characters of an
    /// identifier path, as ClassKit allows.
    public static let maximumDepth = 8
    public static let maximumPathLength = 256
    /// The most characters of an identifier or a title, and of a summary.
    public static let maximumIdentifierLength = 256
    public static let maximumSummaryLength = 4_000

    private struct State {
        var identifier: String
        var title: String
        var type: CLSContextType
        var path: [UInt8]?
        weak var parent: CLSContext?
        var children: [CLSContext] = []
        /// Kept apart until first set: most contexts (one per file of a report) have none, and a
        /// report makes 100,000 of them.
        var storedMetadata: MetadataBox? = nil
        var metadata: ContextMetadata {
            get { storedMetadata?.value ?? ContextMetadata() }
            set {
                if let box = storedMetadata { box.value = newValue } else { storedMetadata = MetadataBox(value: newValue) }
            }
        }
        /// The row of the context in the store; nil until saved.
        var rowID: Int64?
        /// The tree of the data store the context belongs to; nil until it is in one.
        var tree: ContextTree?
        var isActive = false
        /// The newest attempt made or read through this context; weak, as the activity holds
        /// its context (an unsaved one is held by its data store until saved).
        weak var currentActivity: CLSActivity?
    }

    private let state: NIOLockedValueBox<State>

    /// Creates a context that has no parent yet.
    /// - Parameters:
    ///   - type: What the context stands for.
    ///   - identifier: Unique among siblings; at most 256 characters.
    ///   - title: What people see; at most 256 characters.
    public convenience init(type: CLSContextType, identifier: String, title: String) {
        self.init(type: type, identifier: identifier, title: title, parent: nil, path: nil)
    }

    init(
        type: CLSContextType, identifier: String, title: String, parent: CLSContext?, path: [UInt8]?,
        created: Date = Date(), rowID: Int64? = nil, tree: ContextTree? = nil
    ) {
        state = NIOLockedValueBox(
            State(
                identifier: identifier, title: title, type: type, path: path, parent: parent,
                rowID: rowID, tree: tree))
        super.init(created: created)
    }

    /// A context read from the store, in a data store's tree (nil for a read-only view).
    convenience init(record: ContextRecord, parent: CLSContext?, tree: ContextTree?) {
        self.init(
            type: record.type, identifier: record.identifier, title: record.title, parent: parent,
            path: record.path, created: Date(timeIntervalSince1970: record.createdAt), rowID: record.id, tree: tree)
        state.withLockedValue { $0.metadata = record.metadata }
        setDates(modified: Date(timeIntervalSince1970: record.modifiedAt))
    }

    // MARK: Identity

    /// The identifier, unique among the context's siblings. A file's context uses the file's path.
    public var identifier: String { state.withLockedValue { $0.identifier } }

    /// The identifiers from the main app context down to this one.
    public var identifierPath: [String] {
        (parent?.identifierPath ?? []) + [identifier]
    }

    /// The file this context stands for, for document contexts made from a file.
    public var fileURL: URL? { path.map(PathBytes.fileURL(for:)) }

    /// The canonical path of ``fileURL`` as people read it, bytes that are not UTF-8 written as
    /// `\xNN`; nil for a context with no file. Not part of ClassKit.
    public var filePath: String? { path.map(PathBytes.display) }

    /// The canonical path bytes behind ``fileURL``.
    var path: [UInt8]? { state.withLockedValue { $0.path } }

    var rowID: Int64? {
        get { state.withLockedValue { $0.rowID } }
        set { state.withLockedValue { $0.rowID = newValue } }
    }

    var tree: ContextTree? { state.withLockedValue { $0.tree } }

    /// What the context stands for.
    public var type: CLSContextType { state.withLockedValue { $0.type } }

    /// Changes what the context stands for.
    public func setType(_ type: CLSContextType) {
        change { $0.type = type }
    }

    /// The title people see; at most 256 characters.
    public var title: String {
        get { state.withLockedValue { $0.title } }
        set { change { $0.title = newValue } }
    }

    // MARK: Metadata

    /// The name of the type, for a context of type ``CLSContextType/custom``.
    public var customTypeName: String? {
        get { state.withLockedValue { $0.metadata.customTypeName } }
        set { change { $0.metadata.customTypeName = newValue } }
    }

    /// Where the context comes among its siblings: lower first.
    public var displayOrder: Int {
        get { state.withLockedValue { $0.metadata.displayOrder } }
        set { change { $0.metadata.displayOrder = newValue } }
    }

    /// The subject.
    public var topic: CLSContextTopic? {
        get { state.withLockedValue { $0.metadata.topic } }
        set { change { $0.metadata.topic = newValue } }
    }

    /// A description for teachers; at most 4,000 characters.
    public var summary: String? {
        get { state.withLockedValue { $0.metadata.summary } }
        set { change { $0.metadata.summary = newValue } }
    }

    /// A picture of the context: the bytes of a PNG or JPEG image, 80 to 330 pixels a side and at
    /// most 1 MiB. (ClassKit takes a `CGImage`, which Linux does not have.) At save the size is
    /// checked and the whole image decoded; a thumbnail that does not decode is refused.
    public var thumbnail: Data? {
        get { state.withLockedValue { $0.metadata.thumbnail } }
        set { change { $0.metadata.thumbnail = newValue } }
    }

    /// Whether teachers may assign the context; true by default.
    public var isAssignable: Bool {
        get { state.withLockedValue { $0.metadata.isAssignable } }
        set { change { $0.metadata.isAssignable = newValue } }
    }

    /// The ages the context suits; from 0 with no upper limit by default.
    public var suggestedAge: NSRange {
        get { state.withLockedValue { $0.metadata.suggestedAge } }
        set { change { $0.metadata.suggestedAge = newValue } }
    }

    /// The minutes the context takes; from 0 with no upper limit by default.
    public var suggestedCompletionTime: NSRange {
        get { state.withLockedValue { $0.metadata.suggestedCompletionTime } }
        set { change { $0.metadata.suggestedCompletionTime = newValue } }
    }

    /// The kinds of progress the context reports; one ``CLSProgressReportingCapability/Kind/duration``
    /// by default.
    public var progressReportingCapabilities: Set<CLSProgressReportingCapability> {
        let stored = state.withLockedValue { $0.metadata.capabilities }
        guard !stored.isEmpty else { return [CLSProgressReportingCapability(kind: .duration, details: nil)] }
        return Set(stored.map { CLSProgressReportingCapability(kind: .init(rawValue: $0.kind) ?? .duration, details: $0.details) })
    }

    /// Adds kinds of progress the context reports.
    public func addProgressReportingCapabilities(_ capabilities: Set<CLSProgressReportingCapability>) {
        let added = capabilities.map { ContextMetadata.Capability(kind: $0.kind.rawValue, details: $0.details) }
        change { state in
            if state.metadata.capabilities.isEmpty { state.metadata.capabilities = [.init(kind: 0, details: nil)] }
            for capability in added where !state.metadata.capabilities.contains(capability) {
                state.metadata.capabilities.append(capability)
            }
        }
    }

    /// Goes back to the default: one ``CLSProgressReportingCapability/Kind/duration``.
    public func resetProgressReportingCapabilities() {
        change { $0.metadata.capabilities = [] }
    }

    /// A link that opens the context in the app.
    public var universalLinkURL: URL? {
        get { state.withLockedValue { $0.metadata.universalLinkURL } }
        set { change { $0.metadata.universalLinkURL = newValue } }
    }

    var metadata: ContextMetadata { state.withLockedValue { $0.metadata } }

    /// Sets the title, type and metadata at once (an imported manifest entry).
    func replace(title: String, type: CLSContextType, metadata: ContextMetadata) {
        change { state in
            state.title = title
            state.type = type
            state.metadata = metadata
        }
    }

    // MARK: The tree

    /// The parent context; nil for the main app context and for a context not yet added.
    public var parent: CLSContext? { state.withLockedValue { $0.parent } }

    /// The top of the context's tree: the main app context, or the context itself.
    var root: CLSContext {
        var context = self
        while let parent = context.parent { context = parent }
        return context
    }

    /// The children added or read so far.
    var loadedChildren: [CLSContext] { state.withLockedValue { $0.children } }

    /// Adds a child context. A child that has another parent leaves it. In a data store's tree,
    /// the child is written by the next save.
    public func addChildContext(_ child: CLSContext) {
        guard child !== self else { return }
        child.removeFromParent()
        let tree = state.withLockedValue { state -> ContextTree? in
            state.children.removeAll { $0 === child }
            state.children.append(child)
            return state.tree
        }
        child.state.withLockedValue { $0.parent = self }
        if let tree { child.join(tree) }
    }

    /// Takes the context out of its parent; in a data store's tree, the next save removes it and
    /// its descendants from the store.
    public func removeFromParent() {
        guard let parent else { return }
        parent.state.withLockedValue { $0.children.removeAll { $0 === self } }
        let tree = state.withLockedValue { state -> ContextTree? in
            state.parent = nil
            return state.tree
        }
        tree?.markRemoved(self)
    }

    /// Adds a child read from the store, unless one with its row is there.
    func adoptStoredChild(_ record: ContextRecord, tree: ContextTree) -> CLSContext {
        state.withLockedValue { state in
            if let held = state.children.first(where: { $0.rowID == record.id }) { return held }
            let child = CLSContext(record: record, parent: self, tree: tree)
            state.children.append(child)
            return child
        }
    }

    /// Puts the context and its descendants in a data store's tree; new ones are written by the next save.
    func join(_ tree: ContextTree) {
        let (children, isNew, activity) = state.withLockedValue { state -> ([CLSContext], Bool, CLSActivity?) in
            state.tree = tree
            return (state.children, state.rowID == nil, state.currentActivity)
        }
        if isNew { tree.markChanged(self) }
        activity?.contextJoined(tree)
        for child in children { child.join(tree) }
    }

    /// The child with an identifier, among those added or read so far.
    func loadedChild(_ identifier: String) -> CLSContext? {
        state.withLockedValue { $0.children.first { $0.identifier == identifier } }
    }

    /// Finds a descendant by the identifiers below this context, reading the store and asking the
    /// data store's ``CLSContextProvider`` for children not known yet.
    /// - Parameter identifierPath: The identifiers of the descendants, this context's child first.
    /// - Returns: The descendant, or nil when the path names none.
    public func descendant(matchingIdentifierPath identifierPath: [String]) async throws -> CLSContext? {
        var context = self
        for identifier in identifierPath {
            guard let child = try await context.child(identifier) else { return nil }
            context = child
        }
        return context
    }

    /// Finds a descendant, then calls a completion handler that may run on any thread.
    public func descendant(
        matchingIdentifierPath identifierPath: [String],
        completion: @escaping @Sendable (CLSContext?, (any Error)?) -> Void
    ) {
        Task {
            do { completion(try await descendant(matchingIdentifierPath: identifierPath), nil) } catch { completion(nil, error) }
        }
    }

    /// A child by identifier: added, read from the store, or made by the context provider.
    func child(_ identifier: String) async throws -> CLSContext? {
        if let held = loadedChild(identifier) { return held }
        guard let tree else { return nil }
        return try await tree.storedChild(identifier, of: self)
    }

    // MARK: Attempts

    /// The context's newest activity (attempt): the one made last by ``createNewActivity()``, else
    /// the newest in the store, whichever process made it (read from the store at once); nil when
    /// the context has none. When the store cannot be read, it is nil and the failure goes to the
    /// handler of ``CLSDataStore/reportExitFailures(to:)``.
    public var currentActivity: CLSActivity? {
        if let held = state.withLockedValue({ $0.currentActivity }), held.isUnsaved { return held }
        guard let tree, let rowID else { return state.withLockedValue { $0.currentActivity } }
        do {
            guard let record = try tree.storage.currentActivityNow(ofContext: rowID) else { return nil }
            let activity = tree.instances.instance(for: record) { self }
            state.withLockedValue { $0.currentActivity = activity }
            return activity
        } catch {
            SpanHandover.report(
                error as? CLSError
                    ?? CLSError(
                        .databaseInaccessible, "reading the current activity of \(identifierPath.joined(separator: "/")) failed: \(error)"))
            return nil
        }
    }

    /// Makes a new activity (attempt) for the context and makes it the ``currentActivity``; the
    /// previous one is stopped for good: its running time spans end (this process's now, other
    /// processes' at their last pulse). The new activity is written by the data store's next
    /// save, after the context itself; its time starts with ``CLSActivity/start()``.
    public func createNewActivity() -> CLSActivity {
        currentActivity?.stop()
        let activity = CLSActivity(newAttemptOf: self)
        state.withLockedValue { $0.currentActivity = activity }
        return activity
    }

    // MARK: Active context

    /// Whether this process made the context the active one (``becomeActive()``).
    public var isActive: Bool { state.withLockedValue { $0.isActive } }

    /// Makes the context the one the person is working in, in place of any other in the store.
    /// It is written at once, with this process's identity, so a process that dies leaves no
    /// context active. The context must have been saved.
    public func becomeActive() {
        guard let tree, let rowID else { return }
        if tree.setActive(rowID) { state.withLockedValue { $0.isActive = true } }
    }

    /// Ends ``becomeActive()``.
    public func resignActive() {
        guard state.withLockedValue({ $0.isActive }), let tree, let rowID else { return }
        tree.resignActive(rowID)
        state.withLockedValue { $0.isActive = false }
    }

    // MARK: Changes

    private func change(_ body: (inout State) -> Void) {
        let tree = state.withLockedValue { state -> ContextTree? in
            body(&state)
            return state.tree
        }
        setDates(modified: Date())
        tree?.markChanged(self)
    }

    /// Becomes the context of a course's document at a canonical path.
    func tieDocument(at path: [UInt8]) {
        state.withLockedValue { $0.path = path }
    }

    /// Follows a file that moved: the context takes the new path and, for a plain file's context
    /// (named after its path, unlike a course's document), the new path as identifier and the
    /// file name as title.
    func fileMoved(to newPath: [UInt8], isPlainFile: Bool) {
        state.withLockedValue { state in
            guard state.path != newPath else { return }
            state.path = newPath
            guard isPlainFile else { return }
            state.identifier = PathBytes.display(newPath)
            state.title = PathBytes.fileName(of: newPath)
        }
    }

    public override var description: String {
        "<CLSContext \(identifierPath.joined(separator: " > "))>"
    }
}

/// A context's metadata, on the heap only for contexts that have some; read and written only under
/// the context's lock.
final class MetadataBox: @unchecked Sendable {
    var value: ContextMetadata

    init(value: ContextMetadata) {
        self.value = value
    }
}
