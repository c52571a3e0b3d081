import Foundation

/// An item that reports one of two values, such as pass or fail.
public final class CLSBinaryItem: CLSActivityItem, @unchecked Sendable {
    /// Creates a binary item whose value is `false`.
    /// - Parameters:
    ///   - identifier: Unique within the activity.
    ///   - title: What people see.
    ///   - valueType: How the value reads (true/false, pass/fail, yes/no, correct/incorrect).
    public init(identifier: String, title: String, type valueType: CLSBinaryValueType) {
        super.init(identifier: identifier, title: title, value: .binary(false, valueType))
    }

    override init(identifier: String, title: String, value: ItemValue, created: Date, modified: Date?) {
        super.init(identifier: identifier, title: title, value: value, created: created, modified: modified)
    }

    /// The value.
    public var value: Bool {
        get { if case .binary(let flag, _) = itemValue { flag } else { false } }
        set { update { if case .binary(_, let type) = $0.value { $0.value = .binary(newValue, type) } } }
    }

    /// How the value reads to people.
    public var valueType: CLSBinaryValueType {
        if case .binary(_, let type) = itemValue { type } else { .trueFalse }
    }
}
