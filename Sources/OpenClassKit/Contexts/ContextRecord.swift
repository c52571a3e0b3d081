import Foundation

/// What a context holds besides its place in the tree, as stored and compared.
struct ContextMetadata: Sendable, Equatable {
    var customTypeName: String?
    var displayOrder = 0
    var topic: CLSContextTopic?
    var summary: String?
    var thumbnail: Data?
    var isAssignable = true
    var suggestedAge = ContextMetadata.noLimits
    var suggestedCompletionTime = ContextMetadata.noLimits
    /// Empty means ClassKit's default: one `.duration` capability.
    var capabilities: [Capability] = []
    var universalLinkURL: URL?

    /// A progress reporting capability as stored.
    struct Capability: Sendable, Hashable, Codable {
        var kind: Int
        var details: String?
    }

    /// ClassKit's "no limits" range: from 0, `Int.max - 1` long.
    static let noLimits = NSRange(location: 0, length: Int.max - 1)
}

/// One context as stored.
struct ContextRecord: Sendable, Equatable {
    var id: Int64
    var parentID: Int64?
    var identifier: String
    var type: CLSContextType
    var title: String
    /// The canonical path of a document context made from a file.
    var path: [UInt8]?
    var metadata: ContextMetadata
    var createdAt: Double
    var modifiedAt: Double
}

/// A change to one context, for a save: a new context under a parent, an update, or a removal.
struct ContextChange: Sendable {
    enum Kind: Sendable {
        /// A new context; its parent is stored (`parentID`) or new in the same save (`parentIndex`).
        case insert(parentID: Int64?, parentIndex: Int?)
        case update(id: Int64)
        case delete(id: Int64)
    }

    var kind: Kind
    var identifier: String
    var type: CLSContextType
    var title: String
    var metadata: ContextMetadata
    var createdAt: Double
}
