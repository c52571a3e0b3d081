import Foundation
import Synchronization

/// A place in the app's content tree: the main app context at the root, and below it, for now, one
/// document context per file that has an activity.
///
/// File contexts are made by ``CLSDataStore/fetchActivity(for:)``; their ``identifier`` is the file's
/// canonical path and ``fileURL`` names the file.
///
/// `@unchecked Sendable`: the mutable title sits in a `Mutex`; everything else is immutable.
public final class CLSContext: CLSObject, @unchecked Sendable {
    /// The identifier, unique among the context's siblings. A file's context uses the file's path.
    public var identifier: String { mutable.withLock { $0.identifier } }
    /// What the context stands for.
    public let type: CLSContextType
    /// The parent context; nil for the main app context.
    public let parent: CLSContext?
    /// The file this context stands for, for document contexts made from a file.
    public var fileURL: URL? { path.map(PathBytes.fileURL(for:)) }
    /// The canonical path bytes behind ``fileURL``.
    var path: [UInt8]? { mutable.withLock { $0.path } }
    private let mutable: Mutex<(identifier: String, title: String, path: [UInt8]?)>

    /// Creates a context that has no parent yet.
    /// - Parameters:
    ///   - type: What the context stands for.
    ///   - identifier: Unique among siblings; at most 256 characters.
    ///   - title: What people see; at most 256 characters.
    public convenience init(type: CLSContextType, identifier: String, title: String) {
        self.init(type: type, identifier: identifier, title: title, parent: nil, path: nil)
    }

    init(type: CLSContextType, identifier: String, title: String, parent: CLSContext?, path: [UInt8]?,
         created: Date = Date()) {
        self.type = type
        self.parent = parent
        mutable = Mutex((identifier, title, path))
        super.init(created: created)
    }

    /// The title people see.
    public var title: String {
        get { mutable.withLock { $0.title } }
        set { mutable.withLock { $0.title = newValue } }
    }

    /// Follows a file that moved: the context takes the new path, and the name as its title.
    func fileMoved(to newPath: [UInt8]) {
        mutable.withLock { state in
            guard state.path != newPath else { return }
            state.path = newPath
            state.identifier = PathBytes.display(newPath)
            state.title = PathBytes.fileName(of: newPath)
        }
    }

    /// The identifiers from the main app context down to this one.
    public var identifierPath: [String] {
        (parent?.identifierPath ?? []) + [identifier]
    }

    public override var description: String {
        "<CLSContext \(identifierPath.joined(separator: " > "))>"
    }
}
