import Classroom
import OpenClassKit

/// How an activity item's value reads on a page.
enum ItemValue {
    /// `412`, `3/4`, `yes`, `12m 30s` for a time.
    static func text(of item: StudentWork.Item) -> String {
        if item.kind == ItemKind.quantity.rawValue && ItemIdentifier.durations.contains(item.identifier) {
            return DisplayFormat.duration(item.value)
        }
        return item.kind == ItemKind.quantity.rawValue ? DisplayFormat.number(item.value) : item.formattedValue
    }

    /// `quantity` → `Quantity`.
    static func kindName(of item: StudentWork.Item) -> String {
        item.kind.prefix(1).uppercased() + item.kind.dropFirst()
    }
}
