import Foundation
internal import NIOConcurrencyHelpers

/// The root of the ClassKit object hierarchy: every object knows when it was created and last changed.
///
/// `@unchecked Sendable`: the only state is `dates`, guarded by its lock (`NIOLockedValueBox`).
public class CLSObject: @unchecked Sendable, CustomStringConvertible {
    private let dates: NIOLockedValueBox<(created: Date, modified: Date)>

    init(created: Date = Date(), modified: Date? = nil) {
        dates = NIOLockedValueBox((created, modified ?? created))
    }

    /// When the object was created.
    public var dateCreated: Date { dates.withLockedValue { $0.created } }

    /// When the object was last changed.
    public var dateLastModified: Date { dates.withLockedValue { $0.modified } }

    func setDates(created: Date? = nil, modified: Date) {
        dates.withLockedValue {
            if let created { $0.created = created }
            $0.modified = modified
        }
    }

    public var description: String { "<\(type(of: self))>" }
}
