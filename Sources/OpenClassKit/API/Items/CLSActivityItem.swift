import Foundation
internal import NIOConcurrencyHelpers

/// A measurement an activity reports: the abstract base of quantity, score and binary items.
///
/// Items are reference types: change a fetched item in place, then save the store. An item belongs to
/// one activity at a time; changing it marks that activity for the next save. Within one activity,
/// items are unique by ``identifier``.
///
/// `@unchecked Sendable`: all mutable state sits in `state`, guarded by its lock (`NIOLockedValueBox`).
public class CLSActivityItem: CLSObject, @unchecked Sendable {
    /// The item's identifier, unique within its activity.
    public let identifier: String

    struct State {
        var title: String
        var value: ItemValue
        weak var owner: CLSActivity?
    }

    let state: NIOLockedValueBox<State>

    init(identifier: String, title: String, value: ItemValue, created: Date = Date(), modified: Date? = nil) {
        self.identifier = identifier
        state = NIOLockedValueBox(State(title: title, value: value))
        super.init(created: created, modified: modified)
    }

    /// The title people see for the item.
    public var title: String {
        get { state.withLockedValue { $0.title } }
        set { update { $0.title = newValue } }
    }

    var itemValue: ItemValue { state.withLockedValue { $0.value } }

    /// Which subclass the item is. Not part of ClassKit.
    public var kind: ItemKind { itemValue.itemKind }

    /// Changes the item and tells its activity, so the change reaches the next save.
    func update(_ change: (inout State) -> Void) {
        let owner = state.withLockedValue { state -> CLSActivity? in
            change(&state)
            return state.owner
        }
        setDates(modified: Date())
        owner?.itemDidChange(self)
    }

    /// Sets values read from the store without marking anything changed.
    func load(_ record: ItemRecord) {
        state.withLockedValue {
            $0.title = record.title
            $0.value = record.value
        }
        setDates(
            created: Date(timeIntervalSince1970: record.createdAt),
            modified: Date(timeIntervalSince1970: record.modifiedAt))
    }

    func attach(to activity: CLSActivity) {
        state.withLockedValue { $0.owner = activity }
    }

    func record(role: ItemRole) -> ItemRecord {
        let (title, value) = state.withLockedValue { ($0.title, $0.value) }
        return ItemRecord(
            identifier: identifier, title: title, role: role, value: value,
            createdAt: dateCreated.timeIntervalSince1970,
            modifiedAt: dateLastModified.timeIntervalSince1970)
    }

    /// Makes the item of the right subclass for a stored record.
    static func make(from record: ItemRecord) -> CLSActivityItem {
        let created = Date(timeIntervalSince1970: record.createdAt)
        let modified = Date(timeIntervalSince1970: record.modifiedAt)
        let item: CLSActivityItem
        switch record.value {
        case .quantity:
            item = CLSQuantityItem(
                identifier: record.identifier, title: record.title, value: record.value,
                created: created, modified: modified)
        case .score:
            item = CLSScoreItem(
                identifier: record.identifier, title: record.title, value: record.value,
                created: created, modified: modified)
        case .binary:
            item = CLSBinaryItem(
                identifier: record.identifier, title: record.title, value: record.value,
                created: created, modified: modified)
        }
        return item
    }

    /// An error when the value breaks the subclass's rules; checked at save.
    var validationError: CLSError? { nil }

    public override var description: String {
        "<\(type(of: self)) \(identifier) \"\(title)\">"
    }
}
