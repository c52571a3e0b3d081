/// Makes the contexts an app's content has, when a data store is asked for a path it does not
/// hold yet (``CLSDataStore/contexts(matchingIdentifierPath:)``).
public protocol CLSDataStoreDelegate: AnyObject {
    /// Makes the context for one missing identifier under a parent; called once for each missing
    /// identifier of a path, parent first. Return nil when the identifier names nothing: the path
    /// then ends there.
    /// - Parameters:
    ///   - identifier: The identifier of the context to make.
    ///   - parentContext: Where it goes.
    ///   - parentIdentifierPath: The identifier path of the parent, from the main app context.
    func createContext(
        forIdentifier identifier: String, parentContext: CLSContext,
        parentIdentifierPath: [String]
    ) -> CLSContext?
}

/// Fills a context's children when they are first asked for, for apps whose content is too large
/// to describe up front.
public protocol CLSContextProvider: AnyObject {
    /// Adds or updates the children of a context; the data store saves them afterwards.
    func updateDescendants(of context: CLSContext) async throws
}
