import Foundation
import Synchronization

/// The root of the ClassKit object hierarchy: every object knows when it was created and last changed.
///
/// `@unchecked Sendable`: the only state is `dates`, guarded by its `Mutex`.
public class CLSObject: @unchecked Sendable, CustomStringConvertible {
    private let dates: Mutex<(created: Date, modified: Date)>

    init(created: Date = Date(), modified: Date? = nil) {
        dates = Mutex((created, modified ?? created))
    }

    /// When the object was created.
    public var dateCreated: Date { dates.withLock { $0.created } }

    /// When the object was last changed.
    public var dateLastModified: Date { dates.withLock { $0.modified } }

    func setDates(created: Date? = nil, modified: Date) {
        dates.withLock {
            if let created { $0.created = created }
            $0.modified = modified
        }
    }

    public var description: String { "<\(type(of: self))>" }
}
