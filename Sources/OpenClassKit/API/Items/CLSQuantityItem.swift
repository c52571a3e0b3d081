import Foundation

/// An item that reports a number, such as a word count.
///
/// ```swift
/// let words = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
/// words.quantity = 558
/// activity.primaryActivityItem = words
/// ```
public final class CLSQuantityItem: CLSActivityItem, @unchecked Sendable {
    /// Creates a quantity item with a quantity of zero.
    /// - Parameters:
    ///   - identifier: Unique within the activity.
    ///   - title: What people see.
    public init(identifier: String, title: String) {
        super.init(identifier: identifier, title: title, value: .quantity(0))
    }

    override init(identifier: String, title: String, value: ItemValue, created: Date, modified: Date?) {
        super.init(identifier: identifier, title: title, value: value, created: created, modified: modified)
    }

    /// The number reported.
    public var quantity: Double {
        get { if case .quantity(let quantity) = itemValue { quantity } else { 0 } }
        set { update { $0.value = .quantity(newValue) } }
    }

    override var validationError: CLSError? {
        quantity.isFinite
            ? nil
            : CLSError(.invalidArgument, "quantity of item '\(identifier)' is \(quantity): set a finite number")
    }
}
