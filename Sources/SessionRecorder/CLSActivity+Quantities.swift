import OpenClassKit

extension CLSActivity {
    /// The quantity of the additional quantity item with this identifier, if there is one.
    func quantity(of identifier: String) -> Double? {
        (additionalActivityItems.first { $0.identifier == identifier } as? CLSQuantityItem)?.quantity
    }

    /// Sets an additional quantity item, replacing the one with the same identifier.
    func setQuantity(_ value: Double, identifier: String, title: String) {
        let item = CLSQuantityItem(identifier: identifier, title: title)
        item.quantity = value.isFinite ? value : 0
        addAdditionalActivityItem(item)
    }

    /// Adds to an additional quantity item, creating it at zero when missing.
    func addToQuantity(_ amount: Double, identifier: String, title: String) {
        setQuantity((quantity(of: identifier) ?? 0) + amount, identifier: identifier, title: title)
    }

    /// The target word count remembered for the file, if it has a usable one.
    public var targetWordCount: Int? {
        quantity(of: ItemIdentifier.targetWords).flatMap { $0 >= 1 && $0 < 1e9 ? Int($0) : nil }
    }
}
